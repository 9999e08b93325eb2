// One entry per op kind: everything the compiler knows about an op lives in its entry — the
// shape/dtype rule, the CPU reference evaluation, the transpose (autograd) rule, and the names
// upstream uses for its fields. Entries are defined by op family in src/ops/*.cpp.
#pragma once

#include <functional>
#include <span>

#include "../codegen/wgsl.h"
#include "tensorgrad/cpu_eval.h"
#include "tensorgrad/errors.h"
#include "tensorgrad/ops.h"

namespace tg::detail {

struct OutType {
  Shape shape;
  Dtype dtype;
};

struct InferArgs {
  std::span<const TensorInfo* const> in;
  const OpAttrs& attrs;
  const CallSite& site;
  [[noreturn]] void fail(const std::string& message) const { throw ShapeError(message, &site); }
  const std::string& name() const { return site.opName; }
};

struct EvalArgs {
  const Op& op;
  std::span<const HostTensor* const> in;
  const TensorInfo& out;
  const EvalInputs& env;
};

// Autograd's view of one forward op while its adjoint is appended.
class GradContext {
 public:
  GradContext(Graph& graph, const Op& op, Tensor outCotan,
              std::vector<std::optional<Tensor>>& cotangents)
      : graph_(graph), op_(op), dy_(std::move(outCotan)), cotangents_(cotangents) {}
  const Op& op() const { return op_; }
  const OpAttrs& attrs() const { return op_.attrs; }
  Tensor in(size_t i) const { return Tensor(&graph_, op_.inputs.at(i)); }
  Tensor out() const { return Tensor(&graph_, op_.out); }
  const Tensor& dy() const { return dy_; }
  Loc loc() const;  // the forward op's call site, so backward errors point at user code
  // Adds `contribution` to input i's cotangent, summing over broadcast axes first.
  void accumulate(size_t i, const Tensor& contribution);

 private:
  Graph& graph_;
  const Op& op_;
  Tensor dy_;
  std::vector<std::optional<Tensor>>& cotangents_;
};

enum class Differentiable : uint8_t {
  Yes,       // grad rule appends the adjoint
  NoFlow,    // gradient stops here silently (leaves, sampling, comparisons, argmax)
  Rejected,  // differentiating through it is an error (optimizer updates, backward-only ops)
};

struct OpDef {
  OpKind kind{};
  std::string_view name;                     // upstream's kind string, e.g. "mean_last"
  std::vector<std::string_view> inputNames;  // upstream field names in canonical order
  std::vector<std::string_view> attrNames;   // upstream field names of OpAttrs members used
  bool variadic = false;                     // concat: inputNames[0] names the list
  std::function<OutType(const InferArgs&)> infer;
  std::function<HostTensor(const EvalArgs&)> eval;
  Differentiable differentiable = Differentiable::NoFlow;
  std::function<void(GradContext&)> grad;
  bool stochastic = false;  // consumes a salt from the shared PRNG seed
  std::function<KernelSource(const KernelArgs&)> kernel;  // empty: no dispatch (graph inputs)
  // KernelSet::Fast's kernel; empty (or returning no WGSL) means the upstream `kernel` serves.
  std::function<KernelSource(const KernelArgs&)> fastKernel;
  // Same-shape element-wise ops also give their value as a WGSL expression of their inputs'
  // values, so the fusion pass can chain them inside one kernel. Empty: not fusable.
  std::function<std::string(const Op&, const std::vector<std::string>& in)> expr;
  std::string exprPreamble;  // helper functions the expression calls
};

const OpDef& opDef(OpKind kind);
inline bool isMatmul(OpKind kind) {
  return kind == OpKind::Matmul || kind == OpKind::MatmulBatched;
}
const OpDef* opDefByName(std::string_view name);

using OpTable = std::vector<OpDef>;

// The kernel slot of an already registered op (families attach their WGSL templates this way).
std::function<KernelSource(const KernelArgs&)>& kernelOf(OpTable& table, OpKind kind);
std::function<KernelSource(const KernelArgs&)>& fastKernelOf(OpTable& table, OpKind kind);
// Registers an op's fusable element-wise expression.
void setExpr(OpTable& table, OpKind kind,
             std::function<std::string(const Op&, const std::vector<std::string>&)> expr,
             std::string preamble = "");

// Family registration functions, called once to fill the table.
void registerLeafOps(OpTable&);
void registerElementwiseOps(OpTable&);
void registerUnaryOps(OpTable&);
void registerRandomOps(OpTable&);
void registerReduceOps(OpTable&);
void registerShapeOps(OpTable&);
void registerLinalgOps(OpTable&);
void registerIndexingOps(OpTable&);
void registerSoftmaxOps(OpTable&);
void registerSelectOps(OpTable&);
void registerOptimizerOps(OpTable&);
void registerSliceOps(OpTable&);
void registerConvOps(OpTable&);

// Shared shape helpers.
std::optional<Shape> broadcastTrailing(const Shape& a, const Shape& b);
bool shapesEqual(const Shape& a, const Shape& b);
std::vector<int64_t> stridesOf(const Shape& shape);
// Flat index into a tensor of `from` shape for output index `outIdx` of `to` shape, under
// right-aligned broadcasting.
int64_t broadcastIndex(int64_t outIdx, const Shape& to, const Shape& from);
CallSite internalSite(const char* opName, Loc loc);

}  // namespace tg::detail
