// A sum of products as one product (KernelSet::Fast only). A value read by several products has
// for its gradient the sum of their input gradients: attention's normalized input, read by the
// Q, K and V projections, gets dQ·Wqᵀ + dK·Wkᵀ + dV·Wvᵀ. Unfolded that is three products, two
// of them written and read back by the third's epilogue, which adds them: two dispatch levels.
// Products of one output shape and operand layout added element by element are one product
// whose K runs through their operand pairs end to end ([dQ dK dV] · [Wq Wk Wv]ᵀ): the matmul
// whose epilogue adds the others reads their operands in its own K loop, the epilogue's adds of
// them become their other inputs, and their kernels and the level between go.
#pragma once

#include <array>
#include <vector>

#include "buffer_use.h"

namespace tg::detail {

// By op index: for a fast matmul with an epilogue (`epilogueOf`), the other matmuls whose
// products that epilogue adds to its value, in op order (their binding order); else empty. A
// product is summed where it is a leaf, once, of the tree of same-shape adds that starts the
// epilogue's path (the adds before any other op, each reading the running sum once and alone:
// relu(mm + P) may fold P, relu(mm) + P and (mm + P) + (mm + P) may not; inner adds read once);
// it is a fast matmul with no fold of its own (no epilogue, identity sum or second output), of
// the epilogue matmul's output shape, m, n, batches and operand layouts (folded permutes on the
// same operands), read by that add alone and transient; its operands (or their folded permutes'
// sources) are untouched until the epilogue's end; the combined product's tiling takes K in
// parts (kUnsupported); and the kernel stays within 8 storage buffers.
std::vector<std::vector<int>> foldProductSums(const Graph& graph, const BufferUse& use,
                                              const std::vector<std::vector<int>>& groups,
                                              const std::vector<int>& epilogueOf,
                                              const std::vector<int>& secondOf,
                                              const std::vector<std::array<int, 2>>& permuteOf,
                                              const std::vector<int>& sumOf,
                                              int64_t workgroupBytes, bool cpuDevice);

}  // namespace tg::detail
