// An outer product computed by the matrix-vector product it multiplies (KernelSet::Fast only).
// The MLP's last layer is out = h·w + b (h [M, K], w [K, 1]), its loss gradient g [M, 1] a
// second output of that product's kernel, and h's gradient g·wᵀ masked by h > 0: a K = 1
// product of M × K stores. The second kernel waits a dispatch level for g and reads h again
// (the mask). But a split-K matrix-vector workgroup ends holding g for its rows, so it can write
// those rows of g·wᵀ itself: the outer product's kernel and its level go, and each invocation
// reads h's mask at the elements it has just read for the product.
#pragma once

#include <array>
#include <vector>

#include "buffer_use.h"

namespace tg::detail {

struct OuterFolds {
  // By op index: for the place a fast matmul kernel stands at (the matmul, or its epilogue's
  // end), the K = 1 matmul op it also computes, else -1.
  std::vector<int> outerOf;
  // By op index: the folded outer products and the ends of their epilogues (their kernels'
  // places), which emit nothing of their own.
  std::vector<bool> folded;
};

// Folds outer product Q (a Matmul op, K = 1, one batch; its operands'
// folded permutes change no element's place) into the kernel of matrix-vector product P at `place`
// when P is a Matmul of n = 1 whose chosen tiling is split-K, its lhs unpermuted, not summed into
// or summing other products, not an identity sum, its epilogue unpermuted; Q's lhs is the value
// that kernel stores, or its second output, of M elements; Q has no second output, no sums, an
// unpermuted epilogue (`epilogueOf`) with no helper functions; what Q reads besides that value is
// none of the kernel's outputs and is not rewritten between `place` and Q's place, and nothing
// but Q's own ops touches Q's output buffer between P's first op and Q's place (a pooled plan may
// share it); and the kernel stays within 8 storage buffers.
OuterFolds foldOuterProducts(
    const Graph& graph, const BufferUse& use, const std::vector<std::vector<int>>& groups,
    const std::vector<int>& epilogueOf, const std::vector<int>& epilogueFrom,
    const std::vector<int>& secondOf, const std::vector<int>& sumOf,
    const std::vector<std::vector<int>>& summedInto, const std::vector<int>& summedBy,
    const std::vector<std::array<int, 2>>& permuteOf, int64_t workgroupBytes, bool cpuDevice);

}  // namespace tg::detail
