// WGSL codegen: one compute kernel per op, shapes baked in as constants, workgroup size 256,
// inputs bound first (read) and the output last (read_write), a 1-D thread count split over a
// 2-D grid past 65535 workgroups. The WGSL text is the artifact: dumpable and browser-valid.
// The default kernels compute what upstream's codegen.ts computes, form for form: one invocation
// per output element; a workgroup per output summing through workgroup memory (row sums and
// means, sum_to_shape, the conv weight gradient and long-K matmuls, under upstream's
// thresholds); 16×16 shared-memory tiles for tile-aligned matmuls; one invocation for a scalar
// constant. tests/parity checks each against upstream in Dawn, bit for bit. EmitOptions::kernels
// = KernelSet::Fast swaps in our own faster kernels where an op has one (see KernelSet).
#pragma once

#include <array>

#include "tensorgrad/passes.h"

namespace tg {

inline constexpr int kWorkgroupSize = 256;
inline constexpr uint32_t kMaxWorkgroupsPerDim = 65535;
inline constexpr size_t kMaxStorageBuffersPerKernel = 8;  // WebGPU's default limit

struct KernelSpec {
  int opIndex = -1;
  OpKind kind{};
  std::string wgsl{};         // empty for ops that need no dispatch (graph inputs)
  std::vector<int> bindings{};  // buffer ids for @group(0) @binding(0..n)
  int outputs = 1;              // the last `outputs` bindings are written; the rest are read
  // Views a kernel reaches through an arena it binds (the fused optimizer, fold_optimizer.h):
  // they order it after their writers and readers like bindings do.
  std::vector<int> viewsRead{}, viewsWritten{};
  int64_t threads = 0;
  int workgroupSize = kWorkgroupSize;
  std::vector<int> fusedOps{};  // with fusion: every op this kernel computes, in order (else empty)
  // The longest loop one thread runs (a matmul's inner dimension, a reduction's length; 1 for
  // element-wise kernels): what the dispatch scheduler uses to find the slow kernels.
  int64_t loopLength = 1;
  // Workgroups to dispatch: x up to 65535, the rest in y.
  std::array<uint32_t, 2> dispatch() const;
};

// Which kernels codegen emits. Upstream: upstream's arithmetic, order and dispatch geometry, bit
// for bit (the parity tests hold it to that). Fast: our own kernels where an op has one (today:
// both matmul kinds, as register-blocked workgroup tiles for large products and in-workgroup
// split-K for small or long-K ones; the reductions and softmaxes along an axis, as workgroup
// trees), upstream's elsewhere; element-wise chains fused (broadcasts, reshapes and permutes
// joining them as indexing, so a permute read only by element-wise ops or another permute runs
// no kernel), reshapes planned into their input's buffer, a Permute swapping the last two axes
// folded into the matmul that alone reads it (no kernel of its own), as is an identity
// sum_to_shape after a matmul (the matmul writes the copy's buffer), and so is the fused
// element-wise group that alone reads a matmul's product (a matmul epilogue: bias, activation,
// residual, a head split's reshape and permute as a permuted store), and a group reading nothing
// but the value a matmul stores, at its own element, as that matmul's second output (the MLP's
// loss gradient); element-wise ops and the
// row reductions between them (a layernorm, forward and backward) run as one kernel, a few
// lanes a row, writing every value other kernels read (fuse_rows.h); a causal attention's
// scores, softmax and weighted sum of heads up to 32 wide run as one kernel (fold_attention.h);
// a softmax over a product's rows up to 128 wide, or its gradient, is computed by the product
// (fold_row_softmax.h); column sums reading a buffer in common run as one (fold_sibling_sums.h);
// tiled products that differ only in K and their epilogues run one kernel, each its own dispatch
// (product_families.h: one binary in a GPU's instruction cache instead of several); element-wise
// kernels
// reading every input at the output's own index, f32 and a multiple of 4 in size, take a vec4
// an invocation; the optimizer's per-parameter updates run as one in-place dispatch over
// arenas (fold_optimizer.h); still valid WebGPU WGSL,
// results equal within fp32 rounding (sums run in another order).
enum class KernelSet : uint8_t { Upstream, Fast };

struct EmitOptions {
  // Compute element-wise ops in one kernel when the values between them are read only by ops
  // of that kernel and live in no buffer anything else needs (a value may have several readers
  // there; a single-element value may be broadcast); broadcasts, reshapes and permutes join as
  // indexing (upstream emits one kernel per op;
  // off by default so kernel lists compare with upstream's; always on under KernelSet::Fast).
  bool fuseElementwise = false;
  KernelSet kernels = KernelSet::Upstream;
  // Workgroup memory a KernelSet::Fast kernel may use, in bytes. 0: WebGPU's default
  // maxComputeWorkgroupStorageSize (16384) when compiling without a device; the runtime sets the
  // device's limit (it requests the adapter's), clamping a larger value to it. Deeper matmul
  // tiles need more than the default.
  int64_t workgroupStorageBytes = 0;
  // KernelSet::Fast: shape matmuls for a CPU device (lavapipe) rather than a GPU: 4×4 outputs
  // an invocation read straight from the buffers, since llvmpipe pays per load and per lane where
  // a GPU pays for idle cores, and weight gradients not split across workgroups. The runtime sets
  // it from the adapter's type.
  bool cpuDevice = false;
  // KernelSet::Fast: into how many slices of K each weight gradient is split across workgroups
  // (passes.h, splitWeightGradients). 0: chosen by shape; N ≥ 1: N wherever N divides K.
  int64_t weightGradientSplits = 0;
};

// One KernelSpec per op, in op order; ops without a dispatch (graph inputs, ops fused into a
// later kernel) have empty WGSL.
std::vector<KernelSpec> emitKernels(const Graph& graph, const BufferPlan& plan,
                                    EmitOptions options = {});

}  // namespace tg
