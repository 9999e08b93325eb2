// What the fast matmul's tiling choice (matmul_tiling.cpp) and its kernels (matmul_fast.cpp,
// matmul_row_softmax.cpp) both ask of a problem.
#pragma once

#include "matmul_fast.h"

namespace tg::detail {

// The invocations a layout groups together (an NVIDIA warp; any other width is still correct).
inline constexpr int64_t kLanes = 32;

// The problem after folding a shared rhs's batches into rows (possible unless A is transposed:
// then each batch's rows are columns of its own [k, m] block).
MatmulProblem normalized(MatmulProblem p);

// The BM×BN output blocks of `p`, over every batch.
int64_t blocks(const MatmulProblem& p, int64_t bm, int64_t bn);

// Whether `p` is a matrix-vector product the column form takes: out [1, W] = v · M with M [K, W]
// (B untransposed), or out [W, 1] = Mᵀ · v with M stored [K, W] (A transposed); W a multiple of 4.
bool columnShape(const MatmulProblem& p);

}  // namespace tg::detail
