// Row fusion (KernelSet::Fast only). A layernorm traced from primitives is seven ops: the mean,
// the deviation, the variance (a mean of squares), + eps, its square root, the division, then gain
// and bias. Element-wise fusion cannot join them across the two row reductions, so they ran as
// six or seven kernels, each a dispatch level that moves a few hundred KiB: the step paid their
// launches and barriers, not their bytes. A row kernel computes such a chain in one dispatch: the
// element-wise ops over the rows [P..., D] and over per-row values ([P..., 1] or [P...]), and the
// row reductions between them (sum_last, mean_last, a sum_to_shape onto [P..., 1]), each lane of
// a row summing its share and the lanes meeting through workgroup memory after one barrier. It
// writes every value that an op outside the chain reads; the others stay in registers. A
// layernorm's backward (row sums of element-wise terms, then element-wise ops using them) fuses
// the same way.
#pragma once

#include <map>
#include <vector>

#include "buffer_use.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

struct RowFusion {
  std::vector<bool> folded;           // by op index: computed by a row kernel
  std::map<int, KernelSpec> kernels;  // by the index of each row kernel's last op
};

// A group grows from each f32 row reduction over rows of kMinRowLength to kMaxRowLength
// elements. An op joins when it is not `excluded` (computed elsewhere, or left to a matmul's
// epilogue) and it is an element-wise op over the same rows or per-row values (not a permute; an
// aliased reshape only where the group alone reads it), or another reduction of the same rows; and
// when then every op outside the group that reads one of its values comes after the group's last op
// (where the kernel runs), every outside value the group reads is still in its buffer there, and
// the kernel stays within 8 storage buffers and 8 reductions. A group is kept only where one of its
// ops reads a reduction's result: a reduction of element-wise values alone is already one kernel
// (fold_prologue.h). Rows of up to 32 run an invocation a row; longer ones take about 4 elements
// a lane (up to 64 lanes), several rows to a workgroup of 256.
inline constexpr int64_t kMinRowLength = 2;
inline constexpr int64_t kMaxRowLength = 16384;
RowFusion fuseRows(const Graph& graph, const BufferUse& use, const std::vector<bool>& excluded);

}  // namespace tg::detail
