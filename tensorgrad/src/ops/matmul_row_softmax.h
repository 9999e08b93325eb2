// The tiled matmul's store stage for a product with a row softmax (MatmulProblem::rowSoftmax):
// a workgroup holds whole rows, each invocation 4 columns of TM rows, and a row's invocations
// meet through workgroup memory twice (the causal softmax's max, then its sum; the gradient's
// sum of g·y once).
#pragma once

#include <string>

#include "matmul_fast.h"

namespace tg::detail {

// chooseTiling's tiling for a row softmax: 4×4 accumulators an invocation, one block across n,
// up to 128 invocations (as many rows of 4 as then fit, at most m's), the warp's 32 invocations
// on whole rows where n allows.
GemmTiling rowSoftmaxTiling(const MatmulProblem& p);

// Bytes of the rows' partial sums (`rS`) beside the tiles.
int64_t rowSoftmaxBytes(const GemmTiling& g);

// The stores after the K loop: the accumulators c<r>_<h> hold the product's sums, `row0`,
// `oBase`, `ty` and `tx` are the tiled kernel's.
std::string rowSoftmaxStores(const MatmulProblem& p, const GemmTiling& g);

}  // namespace tg::detail
