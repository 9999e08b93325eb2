// Reduction prologues (KernelSet::Fast only). A value that only a reduction reads (a squared
// deviation summed into a variance, dy·x̂ summed into a layernorm gain's gradient, a masked
// gradient summed into a bias's) is written by its element-wise kernel and read back once by the
// reduction: a kernel, a dispatch level and a round trip through memory for nothing. So the fused
// group that alone produces a fast sum_last, mean_last or sum_to_shape's input is computed inside
// the reduction: the reduction reads the group's inputs, evaluating the group at each element it
// sums, and the group runs no kernel of its own.
#pragma once

#include <map>
#include <vector>

#include "buffer_use.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

struct PrologueFolds {
  std::vector<bool> folded;             // by op index: computed in a reduction's prologue
  std::map<int, KernelSpec> kernels;    // by reduction op index: its kernel, prologue included
};

// The standing fused group (`groups`, by last op) that alone computes reduction op `reduction`'s
// f32 input, every op of it fusable (not `elsewhere`) and no matmul computing it
// (`epilogueFrom`), a lone aliased reshape aside: what a reduction may compute itself. Empty
// where there is none.
std::vector<int> reductionInputGroup(const Graph& graph, const BufferUse& use,
                                     const std::vector<std::vector<int>>& groups,
                                     const std::vector<bool>& elsewhere,
                                     const std::vector<int>& epilogueFrom, int reduction);

// Folds when the reduction is f32 and computed by nobody else (not `elsewhere`, not a matmul's
// identity sum: `sumFrom`), its input is transient and the result of a standing fused group
// (`groups`, by last op) that no matmul computes in its store (`epilogueFrom`), every op of the
// group may be fused, no op between the group and the reduction rewrites a buffer the group
// reads, the kernel stays within 8 storage buffers, and the reduction's fast kernel can read
// through a prologue (its column-sum and row-sum forms; short column sums and copies cannot).
PrologueFolds foldPrologues(const Graph& graph, const BufferUse& use,
                            const std::vector<std::vector<int>>& groups,
                            const std::vector<bool>& elsewhere, const std::vector<int>& epilogueFrom,
                            const std::vector<int>& sumFrom, int64_t workgroupBytes,
                            bool cpuDevice = false);

}  // namespace tg::detail
