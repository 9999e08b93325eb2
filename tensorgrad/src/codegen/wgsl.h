// Shared pieces of WGSL text for the per-op kernel templates in src/ops/*.cpp.
#pragma once

#include <string>

#include "tensorgrad/codegen.h"
#include "tensorgrad/ir.h"

namespace tg::detail {

struct OpDef;

// A fast reduction's input computed in its own kernel instead of read from a buffer
// (codegen/fold_prologue.h): module-scope WGSL declaring `bindings` buffers from binding 0 and
// `fn prologue(i : u32) -> f32`, the input's element at flat index i. `out` binds after them.
struct ReducePrologue {
  std::string wgsl;
  size_t bindings = 0;
};

// What a kernel template sees: the op, its tensors, and the names its bindings got.
struct KernelArgs {
  const Op& op;
  const Graph& graph;
  const OpDef& def;
  int64_t workgroupBytes = 16384;  // what a fast kernel may use (EmitOptions::workgroupStorageBytes)
  // Set for a fast sum_last, mean_last or sum_to_shape whose input a prologue computes; a fast
  // template that cannot read through it returns no kernel.
  const ReducePrologue* prologue = nullptr;
  bool cpuDevice = false;  // EmitOptions::cpuDevice
  const TensorInfo& in(size_t i) const { return graph.tensor(op.inputs.at(i)); }
  const TensorInfo& out() const { return graph.tensor(op.out); }
  std::string inName(size_t i) const;  // the WGSL variable bound to input i
  // The @group(0) @binding(k) declarations: inputs (read), then `out` (read_write).
  std::string bindings() const;
};

struct KernelSource {
  std::string wgsl;
  int64_t threads = 0;
  int workgroupSize = kWorkgroupSize;
};

std::string wgslType(Dtype dtype);  // bool is stored as u32
// A literal of `dtype` with WGSL's suffix; f32 values print exactly (shortest round trip).
std::string literal(double value, Dtype dtype);
std::string u(int64_t value);  // "123u"
std::string n(int64_t value);  // "123": an abstract-int literal, or a number in a comment
std::string lane(int64_t j);    // a vec4's component j: "x", "y", "z" or "w"
inline int64_t ceilDiv(int64_t a, int64_t b) {  // ⌈a / b⌉ for a ≥ 0, b > 0
  return (a + b - 1) / b;
}

// The standard one-thread-per-element kernel: `body` runs with `i` (u32) < threads.
KernelSource elementwise(const KernelArgs& a, int64_t threads, const std::string& body,
                         const std::string& preamble = "");
// Flat index `var` of `srcShape` for output element `i` of `outShape` (right-aligned broadcast).
std::string broadcastIndex(const std::string& var, const Shape& outShape, const Shape& srcShape);
// `let <prefix>_k = ...;` for each axis of `shape`, decomposing the flat index `flat`.
std::string decompose(const std::string& flat, const Shape& shape, const std::string& prefix);
// Upstream's switch to a workgroup per output (reductions, long-K matmuls): fewer outputs than
// this and a reduced length of at least kWorkgroupSize.
inline constexpr int64_t kTreeMaxOutputs = 32768;
inline bool treeReduces(int64_t outputs, int64_t reducedLength) {
  return outputs < kTreeMaxOutputs && reducedLength >= kWorkgroupSize;
}
// Tree reduction of `acc` across a workgroup into `<array>[0]` (lid = local index).
std::string workgroupReduce(const std::string& array, const std::string& acc);
// Kernel with one workgroup per output element (`i` = the workgroup's flat id).
KernelSource perWorkgroup(const KernelArgs& a, int64_t outputs, const std::string& body,
                          const std::string& preamble = "");

// PCG-style hash used by dropout/randn/categorical (u32 wraparound is the point).
std::string pcgHashFn();
std::string saltConstant(int64_t salt);

}  // namespace tg::detail
