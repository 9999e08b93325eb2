// Causal attention as one kernel (KernelSet::Fast only, ops/attention_fast.h). A head's scores
// (a batched product and the element-wise scale its kernel stores through), their causal softmax
// and the weighted sum P·V (with the head merge it stores through) run as three kernels in three
// dispatch levels; where t and dv are at most 32 and dk at most 64 they run as one kernel,
// several heads a workgroup, at the weighted sum's place, storing P (the backward reads it) and
// the output.
#pragma once

#include <array>
#include <vector>

#include "buffer_use.h"
#include "placed_folds.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

struct AttentionFold {
  int scores = -1;     // the batched product Q·Kᵀ
  int scoresEnd = -1;  // the end of its epilogue (the scores' op), else `scores`
  int softmax = -1;    // softmax_causal_last of the scores
  int weighted = -1;   // the batched product P·V
  int place = -1;      // the end of its epilogue, else `weighted`: where the kernel stands
};

using AttentionFolds = PlacedFolds<AttentionFold>;

// Folds where a softmax_causal_last (its own kernel: no row kernel, prologue or fused group
// holds it) reads nothing but the scores a MatmulBatched stores, through an epilogue reading no
// buffer, needing no helper function and storing in place, and a MatmulBatched reads its P,
// unpermuted, as its lhs, storing through an epilogue that reads no buffer (a head merge's
// permuted store is fine); the scores are t × t, both products batched alike with sides the
// kernel takes (attentionUnsupported), no other fold holds
// either product (`taken`, by op index: a sum, second output, product sum or outer product), Q,
// K and V are not rewritten before the weighted sum's place, nothing but these ops touches P's
// buffer between the softmax and that place, and the kernel's workgroup memory fits
// `workgroupBytes`.
AttentionFolds foldAttention(const Graph& graph, const BufferUse& use,
                             const std::vector<std::vector<int>>& groups,
                             const std::vector<int>& epilogueOf, const std::vector<int>& epilogueFrom,
                             const std::vector<bool>& elsewhere, const std::vector<bool>& taken,
                             const std::vector<std::array<int, 2>>& permuteOf,
                             int64_t workgroupBytes);

// The kernel of `fold`: bindings Q, K (or Kᵀ), V, then P and the output (written).
KernelSpec attentionKernel(const Graph& graph, const BufferPlan& plan, const AttentionFold& fold,
                           const std::vector<std::vector<int>>& groups,
                           const std::vector<std::array<int, 2>>& permuteOf,
                           int64_t workgroupBytes);

}  // namespace tg::detail
