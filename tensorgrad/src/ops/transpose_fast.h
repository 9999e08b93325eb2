// The fast kernel set's transpose (KernelSet::Fast): a permute swapping the last two axes of a
// [batches, rows, cols] tensor. Upstream gives every output element a thread reading its input
// element, so consecutive threads read a column: each load touches its own memory sector. Here a
// workgroup moves a 32 × 32 tile through workgroup memory, reading rows and writing rows. It
// moves values without arithmetic (FastTranspose.* compares it with the CPU evaluator exactly);
// on an H200 a 1024 × 1024 copy took 3.7 µs against upstream's kernel's 9.2 (bench/RESULTS.md).
// Product families make such permutes kernels (a weight's transposed copy,
// codegen/product_families.h).
#pragma once

#include "../codegen/wgsl.h"

namespace tg::detail {

// Whether permutation `perm` swaps the last two axes and keeps the others in place.
bool swapsLastTwo(const std::vector<int64_t>& perm);

// The kernel for permute op `a` when it swaps the last two axes of at least 32 × 32 elements;
// else no kernel (upstream's takes it).
KernelSource fastTransposeKernel(const KernelArgs& a);

}  // namespace tg::detail
