// Product families (KernelSet::Fast on a GPU): tiled products that differ only in K and in their
// epilogues, such as a transformer's Q, K, V and output projections and its MLP's down
// projection, become one kernel (ops/matmul_fast.h: fastMatmulFamilyKernel), each keeping its
// dispatch, bindings and results. Why: on an H200 a product level took 13–18 µs longer inside
// D512's step than alone when more than about 128 KB of other code had run since its binary
// last did (47–62 KB each; an instruction cache of that size per SM would behave so, which NVIDIA
// does not document), and a layer cycled through four such binaries forward and four backward.
// Members of one family find their code still there (bench/RESULTS.md, 2026-11-29).
#pragma once

#include <map>
#include <set>
#include <vector>

#include "../ops/matmul_fast.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

// The permutes (op indices) to compute as kernels of their own: where a product reads its rhs
// through a folded permute (`rhsPermutes`, by kernel index) and, reading a transposed copy of it
// as stored instead, would join a family with a product reading its rhs as stored. An MLP's
// input gradient dY·Wᵀ then shares the forward product's binary for a copy of W transposed
// (4 MB for a 1024 × 1024 weight, read and written once a step).
std::set<int> transposesJoiningFamilies(const std::vector<KernelSpec>& kernels,
                                        const std::map<size_t, MatmulProblem>& problems,
                                        const std::map<size_t, int>& rhsPermutes);

// Rewrites the kernels at the indices of `problems` (the product each computes) that fall into
// families of two variants or more (kernels with one WGSL are one variant).
void shareProductKernels(std::vector<KernelSpec>& kernels,
                         const std::map<size_t, MatmulProblem>& problems);

}  // namespace tg::detail
