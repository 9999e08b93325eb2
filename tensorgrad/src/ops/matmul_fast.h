// The fast kernel set's matmul (KernelSet::Fast): a register-blocked, workgroup-tiled GEMM.
// Not upstream's arithmetic (each output's K-sum runs in tile order, with the driver free to
// fuse multiply-adds), so it is tested against the CPU evaluator within a tolerance, never
// against upstream's bits.
#pragma once

#include <optional>

#include "../codegen/wgsl.h"

namespace tg::detail {

// The tile shape one workgroup computes: a BM×BN output block, K consumed BK at a time, each of
// the (BM/TM)·(BN/TN) invocations holding a TM×TN block of accumulators in registers.
struct GemmTiling {
  int64_t bm = 64, bn = 64, bk = 16;
  int64_t tm = 4, tn = 4;
  int64_t invocations() const { return (bm / tm) * (bn / tn); }
  int64_t workgroupBytes() const { return (bm + bn) * bk * 4; }
};

// 64×64 blocks with 4×4 per invocation; 32×32 blocks with 2×2 when the larger blocks would give
// fewer than 128 workgroups (a small product would otherwise leave most of a GPU idle).
GemmTiling chooseTiling(int64_t batches, int64_t m, int64_t n);

// out[b] = a[b] · rhs[b or shared], row-major contiguous operands: `batches` products of
// [m, k] · [k, n]. A shared rhs (`batchedRhs` false) with batches > 1 is folded into one product
// of batches·m rows.
// `tiling` unset: chooseTiling's. Empty products (a zero dimension) are the caller's to avoid.
KernelSource fastMatmulKernel(const KernelArgs& a, bool batchedRhs,
                              std::optional<GemmTiling> tiling = std::nullopt);

}  // namespace tg::detail
