// Identity sum_to_shape folding (KernelSet::Fast only). The Matmul adjoint ends every weight
// gradient with sum_to_shape(xᵀ·dy, W's shape), which is an identity copy (upstream emits it too,
// so graphs compare op for op): a dispatch and a full read and write for nothing. Under the fast
// set the matmul runs in the copy's place and writes the copy's buffer itself.
#pragma once

#include <array>
#include <vector>

#include "buffer_use.h"

namespace tg::detail {

// By op index: for a fast matmul, the identity SumToShape op it computes instead (else -1).
// `permuteOf` gives the transposes folded into each matmul (fold_transpose.h), whose sources the
// matmul then reads at the copy's position too. Folds when the matmul's value is transient (the
// copy its only reader), the product is not empty, no op between the matmul and the copy
// rewrites a buffer the matmul reads, and the copy's buffer is none of those (no in-place read).
std::vector<int> foldIdentitySums(const Graph& graph, const BufferUse& use,
                                  const std::vector<std::array<int, 2>>& permuteOf);

}  // namespace tg::detail
