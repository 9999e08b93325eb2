// The fast kernel set's matmul (KernelSet::Fast). Not upstream's arithmetic (each output's K-sum
// runs in tile or slice order, with the driver free to fuse multiply-adds), so it is tested
// against the CPU evaluator within a tolerance, never against upstream's bits.
//
// Two forms, picked by shape (chooseTiling):
// - Tiled: a workgroup owns a BM×BN output block and walks K through workgroup memory BK at a
//   time, each invocation holding TM×TN accumulators (vec4 rows) in registers. For products
//   with enough output blocks to fill a GPU. With sliced K (slices 2), two groups of
//   invocations walk the two halves of K, each through tiles of its own, and add their partial
//   blocks through workgroup memory before storing: more accumulators an invocation where the
//   blocks are too few for larger ones.
// - SplitK: no operand tiles in workgroup memory; a workgroup owns a small BM×BN block, its
//   invocations split into `slices` groups that each sum every slices-th chunk of K straight
//   from the buffers (through the cache), then add their partial blocks through workgroup
//   memory. For few outputs over a long K (weight gradients) and for tiny batched products
//   (attention), where the tiled form would leave most of a GPU idle.
// - Column: a matrix-vector product whose vector runs along K and whose matrix is contiguous
//   along the outputs (the weight gradients of a 1-wide layer: xᵀ·dh, hᵀ·d) is a weighted
//   column sum; it is read as a column reduction reads, whole 32-byte row segments a warp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../codegen/wgsl.h"

namespace tg::detail {

// Element-wise work the kernel does on each product element before storing it (a fused matmul
// epilogue, codegen/fold_epilogue.h): module-scope WGSL defining
// `fn epilogue(o : u32, mm : f32) -> f32`, the value to store for element o of the product (flat
// in its [batches, m, n] layout) whose sum is mm, and with `permuted`,
// `fn outIndex(o : u32) -> u32`, where that value goes (else at o). It may read `bindings` more
// buffers, declared in `wgsl` at bindings 2, 3, ...; `out` binds after them. With `second`
// (unpermuted only), `wgsl` also defines `fn second(o : u32, v : f32) -> f32`, a second value
// computed from the stored one v and written to element o of `out2`, bound after `out`
// (codegen/fold_second_output.h).
struct MatmulEpilogue {
  std::string wgsl;
  size_t bindings = 0;
  bool permuted = false;
  // With `permuted`: outIndex keeps runs of 4 (elements 4i .. 4i + 3 go to 4j .. 4j + 3), so
  // they may be stored as one vec4.
  bool keepsRunsOf4 = false;
  bool second = false;
  // Unpermuted, where every buffer the epilogue reads is read at the product's own element (an
  // activation's gradient mask, a residual; not a broadcast bias): `wgsl` again with those
  // buffers declared as vec4 arrays and `fn epilogue4(o : u32, mm : vec4<f32>) -> vec4<f32>`,
  // elements o .. o + 3 (o a multiple of 4) from one vec4 load a buffer. A kernel storing vec4s
  // declares this one instead.
  std::string wgsl4{};
};

// A K = 1 product computed after a matrix-vector product (n = 1) by the same kernel
// (codegen/fold_outer_product.h): once the workgroup has stored its rows' values u (the stored
// value, or the second output's), it writes element (r, j) = u[r] · v[j] of an [m, n] product
// through an epilogue of its own. The split-K form only.
struct OuterProduct {
  int64_t n = 0;
  bool fromSecond = false;  // u is the second output's value, else the stored one
  // Module-scope WGSL defining `fn outerEpilogue(o : u32, mm : f32) -> f32` (o flat in the
  // outer product's [m, n]), its buffers at the bindings after `orhs`; with `wgsl4` (its buffers
  // read at o only) also as vec4s, `fn outerEpilogue4(o : u32, mm : vec4<f32>) -> vec4<f32>`.
  // Empty: the product is stored as it is.
  std::string wgsl{}, wgsl4{};
  size_t bindings = 0;  // the epilogue's buffers
  // Where v is read: its own binding `orhs`, or the buffer of this product's lhs or rhs (one
  // the kernel binds already). Of `lhsElement(i)`, `lhsVec4(q)`, `rhsElement(i)` and
  // `rhsVec4(q)` (element i, elements 4q .. 4q + 3 of the operand's buffer), the kernel defines
  // those that this read or the epilogue calls (its reads of those buffers, FusedChain::reuse).
  enum class Source : uint8_t { Own, Lhs, Rhs };
  Source v = Source::Own;
};

// A softmax over each row of the product, or the softmax's gradient, computed by the workgroup
// that holds the whole row (the tiled form with one block across n; codegen/fold_row_softmax.h).
// - causal: out = the softmax of epilogue(mm) over columns j <= i of row i of each [m, n] (m = n)
//   matrix, 0 past the diagonal: a head's scores, their scale and the causal softmax.
// - else the product is the gradient g of a softmax's output y, which the kernel reads at the
//   product's own element from binding `rowY` (after the operands): out = epilogue((g - s)·y),
//   s the row's sum of g·y; the epilogue (e.g. the scores' scale) follows the gradient.
// No K parts, outer product, second output, permuted store or epilogue buffers; n a multiple
// of 4, at most kMaxSoftmaxRow.
struct RowSoftmax {
  bool causal = true;
};
inline constexpr int64_t kMaxSoftmaxRow = 128;

// WebGPU's default maxComputeWorkgroupStorageSize, which every adapter offers.
inline constexpr int64_t kDefaultWorkgroupBytes = 16384;

// out[b] = A[b] · B[b or shared] for b < batches, A [m, k], B [k, n], out row-major [m, n].
// A transposed operand is stored the other way round (A as [k, m], B as [n, k]): what a Permute
// swapping the last two axes read, when the fast set folds that permute into the product.
struct MatmulProblem {
  int64_t batches = 1, m = 0, k = 0, n = 0;
  bool batchedRhs = false;  // B advances per batch; else one B shared by every batch
  bool transA = false, transB = false;
  std::string lhs = "a", rhs = "b";  // binding names
  // K in consecutive parts, each read from its own pair of buffers (a sum of products with one
  // output, codegen/fold_product_sum.h): part 0 from lhs and rhs, part s > 0 from lhs_part<s>
  // and rhs_part<s> at bindings 2s and 2s + 1, which the epilogue's and the output's follow.
  // They sum to k and share m, n and the operand layouts; one batch only. Empty: one part.
  std::vector<int64_t> kParts{};
  std::optional<MatmulEpilogue> epilogue{};
  // Read after the epilogue's buffers (v, then its epilogue's); written last, as `out3`.
  std::optional<OuterProduct> outer{};
  std::optional<RowSoftmax> rowSoftmax{};
  // Workgroup memory a kernel may use: WebGPU's default limit, or what the device was given.
  int64_t workgroupBytes = kDefaultWorkgroupBytes;
  bool cpuDevice = false;  // EmitOptions::cpuDevice: tiles for lavapipe, not a GPU
};

struct GemmTiling {
  enum class Form : uint8_t { Tiled, SplitK, Column };
  Form form = Form::Tiled;
  int64_t bm = 128, bn = 128;
  int64_t bk = 8;          // Tiled: the K depth of a workgroup tile
  int64_t tm = 8, tn = 8;  // accumulators per invocation: Tiled multiples of 4, SplitK 1, 2 or 4
  // SplitK: invocation groups sharing K (a workgroup is positions × slices); Column: the row
  // lanes striding K (a BM×BN block is one row or one column of outputs, 4 an invocation);
  // Tiled: 1, or 2 groups each walking half of K through tiles of their own ("sliced K").
  int64_t slices = 1;
  // Tiled: each 32 consecutive invocations (an NVIDIA warp) own a laneRows × (32 / laneRows)
  // patch of the BM/TM × BN/TN invocation grid; 0 lays the grid out row by row.
  int64_t laneRows = 0;
  int64_t invocations() const {
    return (bm / tm) * (bn / tn) * slices;
  }
  int64_t workgroupBytes() const;  // the worst case over operand layouts
  // Empty when the tiling fits `workgroupBytes` of workgroup memory, WebGPU's other default
  // limits and the form's own rules, else why not.
  std::string invalidReason(int64_t workgroupBytes = kDefaultWorkgroupBytes) const;
  // e.g. "tiled 128x128x8 8x8", "splitk 16x16 4x4 s16", "column 1x8 1x4 s128"
  std::string describe() const;
};

// The tiling the fast set uses for `p`.
GemmTiling chooseTiling(const MatmulProblem& p);

// Why the tiled form cannot compute `p`'s row softmax under `g` (empty when it can): see
// RowSoftmax; `g` one block across n with S = 1, and its tiles plus the rows' partial sums
// within p.workgroupBytes.
std::string rowSoftmaxUnsupported(const MatmulProblem& p, const GemmTiling& g);

// Cross-workgroup split-K for a weight gradient (one Aᵀ·B product of few outputs over a long K):
// into how many slices of K `p` is cut, each slice its own product of a batched matmul whose
// [slices, m, n] partials a column sum then adds (passes.h: splitWeightGradients). 1: not split.
// A split pays a second pass over slices·m·n partials to give every workgroup a short K and
// the GPU enough output tiles. Never on a CPU device.
int64_t chooseKSplits(const MatmulProblem& p);

// Why `g` cannot walk `p`'s K (empty when it can): sliced K where K is no whole number of the
// slices' tiles; or, for K in parts, a column form, a tiled one whose BK does not divide every
// part, or more than one batch.
std::string kUnsupported(const MatmulProblem& p, const GemmTiling& g);

// The kernel for `p` (no zero dimension: empty products are the caller's to avoid) with
// chooseTiling's tiling or `tiling`. Bindings: 0 the lhs, 1 the rhs, then the other K parts'
// pairs, then a row softmax gradient's `rowY`, then the epilogue's, then the outer product's
// inputs, then `out` (and `out2`, `out3`).
KernelSource fastMatmulKernel(const MatmulProblem& p,
                              std::optional<GemmTiling> tiling = std::nullopt);

// A product family: tiled products of one tiling, shape but K and operand layouts, each with its
// own K and epilogue, as one kernel (one pipeline, one binary on the device, so a GPU's
// instruction cache keeps it between the levels that run it; codegen/product_families.h).
// Member j dispatches the family's blocks plus j workgroups (the extra ones return at once),
// which is how the kernel tells its K and its epilogue. Bindings: the lhs, the rhs, then each
// member's epilogue buffers in member order (a member binds any buffer it reads there, e.g. its
// lhs, for the others'), then `out`. familyUnsupported: why `members` cannot be one (of one
// member: why it can join none), empty when they can.
std::string familyUnsupported(const std::vector<MatmulProblem>& members, const GemmTiling& g);
KernelSource fastMatmulFamilyKernel(const std::vector<MatmulProblem>& members, const GemmTiling& g);

// The problem of a Matmul / MatmulBatched op with contiguous row-major operands.
MatmulProblem matmulProblem(const KernelArgs& a, bool batchedRhs);

}  // namespace tg::detail
