// A matmul's second output (KernelSet::Fast only). A fused element-wise group that reads nothing
// but the value a fast matmul kernel stores, at the element the matmul stores it (the MLP's
// loss gradient, 2·(prediction − target)/N, read from the prediction's difference that the last
// layer's epilogue writes), runs as a kernel of its own one dispatch level later, while the
// matmul's invocations hold that value in registers. So the matmul computes the group too and
// writes it as a second output: the group's kernel and its level go, and the group's readers
// start a level earlier. The stored value keeps its buffer (it has other readers).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "buffer_use.h"

namespace tg::detail {

// By op index: for the op a fast matmul kernel stands at (the matmul itself or the end of its
// epilogue, `epilogueFrom`), the last op of the fused group it writes as its second output, else
// -1. Folds when the matmul's value is f32 and not empty, its kernel is no identity sum
// (`sumOf`) and not permuted; the group is a standing one (no matmul's epilogue, no reduction's
// prologue: `prologueFolded`) of ops that may be fused, reads the stored value only at the
// group's own index and reads nothing else from memory, has an f32 result of the value's size,
// uses no helper function, and no op between the matmul kernel and the group reads or writes
// the group's buffer (a pooled plan may share it), and the kernel stays within 8 storage buffers.
// Where several groups qualify, the one whose result most ops read.
std::vector<int> foldSecondOutputs(const Graph& graph, const BufferUse& use,
                                   const std::vector<std::vector<int>>& groups,
                                   const std::vector<bool>& elsewhere,
                                   const std::vector<int>& epilogueOf,
                                   const std::vector<int>& epilogueFrom,
                                   const std::vector<int>& sumOf,
                                   const std::vector<bool>& prologueFolded,
                                   const std::vector<std::array<int, 2>>& permuteOf);

// Whether `group` (op indices, in order) computes its value at element "o" from `stored`, read
// there, and nothing else: one external buffer, read only at the group's own index, no helper.
bool readsOnlyStoredValue(const Graph& graph, int stored, const std::vector<int>& group);

// WGSL defining `fn second(o : u32, v : f32) -> f32`: `group` (op indices, in order) at element
// o, given the value v of `stored` there.
std::string secondOutputFunction(const Graph& graph, int stored, const std::vector<int>& group);

}  // namespace tg::detail
