// Product families (KernelSet::Fast on a GPU): tiled products that differ only in K and in their
// epilogues, such as a transformer's Q, K, V and output projections and its MLP's down
// projection, become one kernel (ops/matmul_fast.h: fastMatmulFamilyKernel), each keeping its
// dispatch, bindings and results. Why: a GPU runs a product's ~50 KB of unrolled code from an
// instruction cache per SM of about 128 KB, so a step cycling through five such binaries a layer
// fetched each one again at every level (13–18 µs a level on an H200); members of one family
// find it there.
#pragma once

#include <map>
#include <vector>

#include "../ops/matmul_fast.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

// Rewrites the kernels at the indices of `problems` (the product each computes) that fall into
// families of two variants or more (kernels with one WGSL are one variant).
void shareProductKernels(std::vector<KernelSpec>& kernels,
                         const std::map<size_t, MatmulProblem>& problems);

}  // namespace tg::detail
