// A softmax over a product's rows computed by the product (KernelSet::Fast only,
// ops/matmul_row_softmax.h). Attention's scores (a batched product and the scale its kernel
// stores through) and their causal softmax run as two kernels in two dispatch levels, as do
// the backward's dP = dO·Vᵀ and the row kernel of the softmax's gradient, (dP − Σ dP·P)·P and
// the scale's gradient; where a workgroup can hold whole rows (up to kMaxSoftmaxRow wide) the
// product's kernel computes the softmax, or the gradient, before it stores, and stands at the
// softmax's (the row kernel's) place.
#pragma once

#include <array>
#include <vector>

#include "buffer_use.h"
#include "fuse_rows.h"
#include "placed_folds.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

struct RowSoftmaxFold {
  bool causal = true;
  int product = -1;       // the product (batched or not)
  std::vector<int> pre;   // causal: the group its kernel stored through (the scale), else empty
  std::vector<int> ops;   // causal: the softmax; else the row kernel's ops, in op order
  std::vector<int> tail;  // the gradient's element-wise ops after (g − s)·y (the scale's)
  int gradientEnd = -1;   // the gradient: the op computing (g − s)·y
  int y = -1;             // the gradient: the softmax's output it reads
  int place = -1;         // the softmax, or the row kernel's last op: where the kernel stands
};

using RowSoftmaxFolds = PlacedFolds<RowSoftmaxFold>;

// Causal: a softmax_causal_last with a kernel of its own reading nothing but the scores a matmul
// stores, itself or through an epilogue reading no buffer and storing in place.
// Gradient: a row kernel (`rows`) computing exactly y·g summed over the row (sum_last, the
// reshape to [..., 1] and broadcast back), g minus that, times y, then element-wise ops reading
// no buffer, writing only its last op's value, where g is the product of a matmul that nothing
// else reads. Either way the product is taken by no other fold (`taken`, by op index),
// its operands are not rewritten before the place, and rowSoftmaxUnsupported accepts it. Not on
// a CPU device (whose matmul forms read straight from the buffers).
RowSoftmaxFolds foldRowSoftmaxes(const Graph& graph, const BufferUse& use,
                                 const std::vector<std::vector<int>>& groups, const RowFusion& rows,
                                 const std::vector<int>& epilogueOf,
                                 const std::vector<int>& epilogueFrom,
                                 const std::vector<bool>& elsewhere, const std::vector<bool>& taken,
                                 const std::vector<std::array<int, 2>>& permuteOf,
                                 int64_t workgroupBytes, bool cpuDevice);

// The kernel of `fold`: bindings the operands, y (the gradient), then the place's output.
KernelSpec rowSoftmaxKernel(const Graph& graph, const BufferPlan& plan, const RowSoftmaxFold& fold,
                            const std::vector<std::array<int, 2>>& permuteOf,
                            int64_t workgroupBytes);

}  // namespace tg::detail
