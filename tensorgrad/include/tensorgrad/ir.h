// The intermediate representation: plain data. Tracing builds it, passes rewrite it, codegen and
// the CPU evaluator read it. What each op kind *means* lives in the op registry (op_registry.h),
// one entry per kind.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

// f32 for params, activations and gradients; i32 for indices; bool (stored as u32 on the GPU)
// for comparison results consumed by `where`.
enum class Dtype : uint8_t { F32, I32, Bool };
std::string_view dtypeName(Dtype dtype);
// The dtype named "f32", "i32" or "bool"; nullopt for any other text.
std::optional<Dtype> dtypeFromName(std::string_view name);

using Shape = std::vector<int64_t>;
// The element count. Throws ShapeOverflowError (a ShapeError) when a dim is negative or the
// product does not fit in int64_t: shapes come from users and files, and the product is never
// allowed to wrap (signed overflow is undefined behaviour).
int64_t shapeSize(const Shape& shape);
// The largest element count of any tensor: its byte size (elements × 4, every dtype is 4 bytes
// on the device) must fit in int64_t as well.
inline constexpr int64_t kMaxTensorElements = INT64_MAX / 4;
// Empty when `shape` has positive dims whose product is at most kMaxTensorElements; otherwise
// why not, for a message that names the tensor ("shape [..] overflows: ...").
std::string checkTensorShape(const Shape& shape);
std::string showShape(const Shape& shape);

// Where the user called an op; errors raised later (shape rules, autograd, codegen) point here.
struct CallSite {
  std::string opName{};  // user-facing name, e.g. "mean" for a mean_last node
  std::source_location location{};
  // Graphs imported from a bundle: the user's JavaScript stack frames (the location is unused).
  std::vector<std::string> frames{};
};
std::string formatSite(const CallSite& site);

// Every op kind upstream's IR has (src/ir.ts), in the same order.
enum class OpKind : uint8_t {
  ParamInput,
  TensorInput,
  StateInput,
  Add,
  Sub,
  Mul,
  Div,
  Min,
  Max,
  MulScalar,
  AddScalar,
  Sqrt,
  Rsqrt,
  Log,
  Exp,
  Relu,
  Neg,
  Abs,
  Tanh,
  Sigmoid,
  Erf,
  Sin,
  Cos,
  Dropout,
  Randn,
  StopGradient,
  MeanLast,
  SumLast,
  ArgmaxLast,
  Reshape,
  Permute,
  Matmul,
  MatmulBatched,
  OneHot,
  Arange,
  SoftmaxCausalLast,
  LogSoftmaxLast,
  WhereCausal,
  CategoricalLast,
  Less,
  Greater,
  Where,
  AdamUpdateM,
  AdamUpdateV,
  AdamUpdateP,
  SliceRange,
  ScatterAxis,
  Concat,
  BroadcastTo,
  SumToShape,
  ConstScalar,
  ConstFill,
  ReluGrad,
  Conv2d,
  Conv2dInputGrad,
  Conv2dWeightGrad,
  MaxPool2d,
  MaxPool2dGrad,
};
inline constexpr int kOpKindCount = static_cast<int>(OpKind::MaxPool2dGrad) + 1;
// Upstream's name for the kind, e.g. "mean_last".
std::string_view opKindName(OpKind kind);

// Scalar parameters baked into an op at trace time. Each kind uses the fields its registry entry
// lists (by upstream's field names); the rest stay at their defaults.
struct OpAttrs {
  std::string name{};    // param/tensor/state inputs
  double initValue = 0;  // state_input
  double scalar = 0;     // mul_scalar, add_scalar
  double p = 0;          // dropout probability
  int64_t salt = 0;      // dropout, randn, categorical_last
  Shape shape{};         // randn shape, reshape newShape, scatter outShape, broadcast/sum target
  std::vector<int64_t> perm{};           // permute
  int64_t axis = 0, start = 0, end = 0;  // slice_range, scatter_axis, concat (axis)
  int64_t depth = 0;                     // one_hot
  int64_t n = 0;                         // arange
  Dtype dtype = Dtype::F32;              // one_hot, arange, const_scalar, const_fill
  double value = 0;                      // const_scalar, const_fill
  double fillValue = 0;                  // where_causal
  double beta = 0;                       // adam_update_m (beta1) / adam_update_v (beta2)
  double eps = 0;                        // adam_update_p
  double decayShrink = 1;                // adam_update_p (literal form)
  int64_t strideH = 1, strideW = 1, padH = 0, padW = 0, groups = 1;  // conv / pool
  int64_t kH = 0, kW = 0, inH = 0, inW = 0;                          // conv grads / pool
};

struct Op {
  OpKind kind{};
  int out = -1;             // tensor id produced
  std::vector<int> inputs{};  // tensor ids, in the registry's canonical order
  OpAttrs attrs{};
};

struct TensorInfo {
  int id = -1;
  Shape shape{};
  Dtype dtype = Dtype::F32;
  std::optional<int> source{};  // producing op index; leaves (inputs) have one too, as upstream
  std::optional<CallSite> site{};
};

struct Graph {
  std::vector<Op> ops{};            // topological (construction) order
  std::vector<TensorInfo> tensors{};  // indexed by tensor id
  std::vector<int> outputs{};
  std::vector<std::pair<std::string, int>> captures{};  // insertion order kept

  const TensorInfo& tensor(int id) const { return tensors.at(static_cast<size_t>(id)); }
  const Op& producer(int tensorId) const {
    return ops.at(static_cast<size_t>(*tensor(tensorId).source));
  }
};

// Tensor ids an op reads, in canonical order (lhs before rhs, cond before branches, ...).
inline const std::vector<int>& getOpInputs(const Op& op) {
  return op.inputs;
}

}  // namespace tg
