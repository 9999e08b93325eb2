// The fast kernel set's reductions (KernelSet::Fast): row sums/means (sum_last, mean_last),
// sum_to_shape, and the row-wise softmaxes (log_softmax_last, softmax_causal_last). Upstream gives
// every output one thread (or one workgroup) walking its reduction serially, which for a bias
// gradient means reads strided by a whole row. These kernels read along the contiguous axis,
// several invocations per output, and finish with a tree in workgroup memory. Each is one pass over
// the op's own input and output (no scratch buffers), so the number of workgroups is bounded by the
// number of outputs; the summation order is not upstream's, so they are tested against the CPU
// evaluator within a tolerance, never bit-exact.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>

#include "../codegen/wgsl.h"

namespace tg::detail {

// How `rows` contiguous rows of `length` f32 are split: each row gets `lanes` invocations (a
// power of two; 1 is a plain thread per row), a 256-invocation workgroup covering 256 / lanes
// rows. `vec4` when rows are whole vec4s (length % 4 == 0): loads are vec4<f32>.
struct RowReduceGeometry {
  int64_t lanes = 1;
  bool vec4 = false;
  int64_t rowsPerWorkgroup() const { return kWorkgroupSize / lanes; }
};
// `vec4` only when `allowVec4` (the softmax kernels load scalars).
RowReduceGeometry chooseRowGeometry(int64_t rows, int64_t length, bool allowVec4 = true);

// How [outer, rows, cols] → [outer, cols] is split: a workgroup covers `colLanes` adjacent
// columns (vec4 groups of columns when `vec4`) of one outer index, with 256 / colLanes
// invocations striding the rows of each; a tree in workgroup memory sums those row-lanes.
struct ColumnReduceGeometry {
  int64_t colLanes = 1;
  bool vec4 = false;
  int64_t rowLanes() const { return kWorkgroupSize / colLanes; }
};
ColumnReduceGeometry chooseColumnGeometry(int64_t outer, int64_t rows, int64_t cols);

// `rows` rows of `length` contiguous f32 → out[row] = Σ row (÷ length when `mean`).
KernelSource fastRowReduceKernel(const KernelArgs& a, int64_t rows, int64_t length, bool mean);
// Σ over the middle axis of [outer, rows, cols] (row-major, contiguous) → [outer, cols].
KernelSource fastColumnReduceKernel(const KernelArgs& a, int64_t outer, int64_t rows, int64_t cols);

// Several column sums of one [outer, rows, cols] shape (cols a multiple of 4) in one pass
// (codegen/fold_sibling_sums.h). `buffers` declares the `bindings` buffers read, from binding
// 0; `element(q, indent)` gives the statements defining p0, p1, ...: sum r's input at elements
// 4q .. 4q + 3 as a vec4 (q a vec4 index expression). out0, out1, ... bind after the buffers.
struct ColumnSums {
  int64_t outer = 1, rows = 0, cols = 0;
  size_t outputs = 0;  // 1 to 4
  std::string buffers{};
  size_t bindings = 0;
  std::function<std::string(const std::string& q, const std::string& indent)> element{};
};
KernelSource fastColumnSumsKernel(const ColumnSums& c);

// [outer, rows, cols] where sum_to_shape `src` → `dst` is a column sum the fast set computes as
// one (rows at least 32, cols more than 1), else nullopt.
std::optional<std::array<int64_t, 3>> columnSumOf(const Shape& src, const Shape& dst);

// The op-level entry points. sum_to_shape is reduced to one of the two shapes above (or to a
// copy when nothing is summed); an empty KernelSource (upstream's kernel serves) for i32, empty
// tensors, reductions over more than one run of axes (e.g. [a, b, c] → [1, b, 1]), and column
// sums over fewer than 32 rows.
KernelSource fastSumLastKernel(const KernelArgs& a);
KernelSource fastMeanLastKernel(const KernelArgs& a);
KernelSource fastSumToShapeKernel(const KernelArgs& a);

// Row-wise softmax kernels on the same lanes-per-row split (scalar loads): the row's max and
// Σ exp(x − max) are each a tree over the row's lanes, then every lane writes its own columns.
// log_softmax_last: x − (max + log Σ). softmax_causal_last: row r of each square sees columns
// 0..r, exp(x − max) / Σ there and 0 past it (exp is recomputed, not stored and reread).
KernelSource fastLogSoftmaxKernel(const KernelArgs& a);
KernelSource fastSoftmaxCausalKernel(const KernelArgs& a);

}  // namespace tg::detail
