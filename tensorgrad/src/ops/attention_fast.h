// Causal attention over short sequences as one kernel (KernelSet::Fast, codegen/fold_attention.h).
// Per head, attention is three dispatches: the scores Q·Kᵀ (with their scale), the causal
// softmax of each row, and the weighted sum P·V, each a dispatch level of its own for a few
// microseconds of work (an 8-token head's scores are 256 bytes). Here t4 × max(t4, dv4)
// invocations own a head (4 rows and 4 columns each, t4 = ⌈t/4⌉), several heads a workgroup:
// they load Q and Kᵀ into workgroup memory as vec4s, compute the t × t scores in registers, take
// each row's max and sum through workgroup memory, store P (the backward reads it), keep Pᵀ in
// workgroup memory in place of Q, load V in place of Kᵀ, and store P·V through the product's
// epilogue.
// Not upstream's arithmetic (the row sums run in another order): tested against the CPU
// evaluator within a tolerance.
#pragma once

#include <optional>
#include <string>

#include "matmul_fast.h"

namespace tg::detail {

// out[b] = softmaxCausal(scoreEpilogue(Q[b] · Kᵀ[b])) · V[b] for b < batches, with P[b] (the
// softmax) stored too. Q is [t, dk] (stored [dk, t] with transQ), the scores' rhs Kᵀ is [dk, t]
// (stored [t, dk], as K, with transK), V is [t, dv] (stored [dv, t] with transV).
struct AttentionProblem {
  int64_t batches = 1, t = 0, dk = 0, dv = 0;
  bool transQ = false, transK = false, transV = false;
  // Module-scope WGSL defining `fn scoreEpilogue(o : u32, mm : f32) -> f32` (o flat in the
  // scores' [batches, t, t]) and nothing else, reading no buffer; empty: the scores as summed.
  std::string scoreEpilogue{};
  // The weighted sum's epilogue (MatmulEpilogue: `epilogue`, and `outIndex` where permuted),
  // reading no buffer and writing no second output; none: stored as summed.
  std::optional<MatmulEpilogue> epilogue{};
  int64_t workgroupBytes = kDefaultWorkgroupBytes;
};

// The largest t and dv the kernel takes (an invocation owns 4 rows and 4 columns: a head takes
// at most 64 invocations), and the largest dk. At t = dk = dv = 64 (256 invocations a head, 92
// registers) the kernel took 43–69 µs for 512 heads on an H200 where the three kernels it
// replaces take 35 (bench/RESULTS.md): it is not offered there.
inline constexpr int64_t kMaxAttentionRows = 32;
inline constexpr int64_t kMaxAttentionDepth = 64;

// Workgroup memory the kernel declares.
int64_t attentionWorkgroupBytes(const AttentionProblem& p);

// Empty when the kernel computes `p`, else why not.
std::string attentionUnsupported(const AttentionProblem& p);

// The kernel: bindings q, k, v (read), p, out (written); a workgroup of 256 a batch. Throws
// std::logic_error where attentionUnsupported says why.
KernelSource fastAttentionKernel(const AttentionProblem& p);

}  // namespace tg::detail
