#include <algorithm>
#include <bit>

#include "matmul_fast.h"
#include "matmul_problem.h"
#include "matmul_row_softmax.h"

namespace tg::detail {

int64_t GemmTiling::workgroupBytes() const {
  // Tiled: padded rows (a k-contiguous source) are the worst case.
  if (form == Form::Tiled) return slices * (bm / 4 + 1 + bn / 4 + 1) * bk * 16;
  if (form == Form::Column) return invocations() * 16;
  return slices > 1 ? slices * bm * bn * 4 : 0;
}

std::string GemmTiling::invalidReason(int64_t workgroupBytesLimit) const {
  const auto pow2 = [](int64_t v) {
    return v > 0 && std::has_single_bit(static_cast<uint64_t>(v));
  };
  if (workgroupBytes() > workgroupBytesLimit)
    return "more than " + n(workgroupBytesLimit) + " bytes of workgroup memory";
  if (bm <= 0 || bn <= 0 || tm <= 0 || tn <= 0 || bm % tm || bn % tn)
    return "TM, TN must divide BM, BN";
  if (invocations() > kWorkgroupSize) return "more than 256 invocations a workgroup";
  if (form == Form::Tiled) {
    if (tm % 4 || tn % 4) return "tiled TM, TN must be multiples of 4";
    if (bk <= 0 || bk % 4) return "BK must be a multiple of 4";
    if (slices != 1 && slices != 2) return "tiled K slices must be 1 or 2";
    if (slices == 2 && tm % 8) return "sliced K needs TM a multiple of 8 (a half for each slice)";
    // Sliced K swaps partials through the A tiles: at least one vec4 an invocation.
    if (slices == 2 && slices * (bm / 4) * bk < invocations())
      return "sliced K needs A tiles of at least one vec4 an invocation";
    const int64_t inv = invocations() / slices;  // the invocations loading a slice's tiles
    if ((bm * bk / 4) % inv || (bn * bk / 4) % inv) return "tile loads must split evenly";
    if (laneRows && (laneRows < 0 || laneRows > kLanes || kLanes % laneRows || inv % kLanes ||
                     (bm / tm) % laneRows || (bn / tn) % (kLanes / laneRows)))
      return "lane rows must tile the invocation grid by patches of 32";
  } else if (form == Form::SplitK) {
    if (tm > 4 || tn > 4) return "split-K TM, TN at most 4";
    if (!pow2(slices)) return "slices must be a power of two";
  } else {
    if (!((bm == 1 && tm == 1 && tn == 4) || (bn == 1 && tn == 1 && tm == 4)))
      return "a column block is one row of 1×4 or one column of 4×1";
    if (!pow2(slices) || !pow2(bm * bn / 4)) return "lanes and slices must be powers of two";
  }
  return "";
}

std::string GemmTiling::describe() const {
  if (form == Form::Tiled)
    return "tiled " + n(bm) + "x" + n(bn) + "x" + n(bk) + " " + n(tm) + "x" + n(tn) +
           (laneRows ? " lanes " + n(laneRows) + "x" + n(kLanes / laneRows) : "") +
           (slices > 1 ? " s" + n(slices) : "");
  return std::string(form == Form::SplitK ? "splitk " : "column ") + n(bm) + "x" + n(bn) + " " +
         n(tm) + "x" + n(tn) + " s" + n(slices);
}

// From an H100 sweep of every tiling over the bench's shapes (bench/RESULTS.md): the largest
// tiled block that still gives about 128 to 200 workgroups wins once products reach ~256×1024
// outputs (128×128 at 4096×1024 and up: 34 vs 31 TFLOP/s for 128×64; 128×64 at 1024²; 64×32
// for 256×1024, where it runs 14 TFLOP/s to 128×64's 7); below that, split-K, 16×16 blocks
// while there are 132 of them (256³: 3.2 TFLOP/s vs 2.5 for the best tiled), else 8×8 ones
// with up to 64 slices (the D64 weight gradients: 64×64 over K = 1024 in 10 µs where 16×16
// blocks take 27). Sums of at most 64 products run in k order, one output an invocation (16×16
// blocks, 8×8 for products at most 8 wide such as per-head attention): slicing them gained
// nothing measurable (1024×64×64: 1.09 to 1.19 TFLOP/s for every form tried), and in-order sums
// are what upstream's kernels compute for short K, which the README MLP's training needs to track
// upstream within 1e-3 for 200 steps (late in training Adam normalises near-zero gradients, so a
// different summation order there moved its loss by 0.5%). Products with fewer than 4 rows or
// columns (the weight gradients of a 1-wide layer) give each workgroup 4 outputs or 1 and up to
// 256 slices: [1, 64] and [64, 1] over K = 4096 in 7.8 µs where 8×8 blocks took 20 (H100,
// 2026-11-26, bench/RESULTS.md).
// chooseKSplits splits only a K this long, into at most this many slices (their partials are
// read once more by the sum).
constexpr int64_t kMinSplitK = 2048;
constexpr int64_t kMaxKSplits = 32;

namespace {

// A CPU device: llvmpipe runs a workgroup 8 invocations to a SIMD register, but loads any value
// whose address differs between lanes (from a buffer or from workgroup memory) one lane at a
// time, ~7 ns each on a 2-vCPU AMD EPYC VM, while its multiply-adds are 8 wide. So each
// invocation sums a 4×4 block straight from the buffers (8 loads for 16 multiply-adds where one
// output an invocation takes 2 for 1), in one slice: no workgroup memory and no barrier, each sum
// in k order. On that VM (2026-11-28, RESULTS) the transformer sample's step took 1.13 s against
// 2.24 with the GPU's forms (upstream's kernels: 4.72 and 5.25 s in the same runs). Larger blocks
// run faster but compile slower (llvmpipe compiles a kernel when its pipeline is created): 64×64
// tiles of 8×8 outputs an invocation gave 0.90 s a step but a cold start of 31.5 s against 19.7,
// 16×16 of them 0.59 s and about 2 s of compiling a kernel.
GemmTiling cpuTiling(const MatmulProblem& p) {
  const int64_t tm = p.m >= 4 ? 4 : 1, tn = p.n >= 4 ? 4 : 1;
  const auto block = [](int64_t x) { return x >= 16 ? 16 : x >= 4 ? 8 : 1; };
  return {.form = GemmTiling::Form::SplitK,
          .bm = block(p.m),
          .bn = block(p.n),
          .bk = 0,
          .tm = tm,
          .tn = tn,
          .slices = 1};
}

}  // namespace

GemmTiling chooseTiling(const MatmulProblem& raw) {
  const MatmulProblem p = normalized(raw);
  using F = GemmTiling::Form;
  if (p.rowSoftmax) return rowSoftmaxTiling(p);
  if (p.cpuDevice) return cpuTiling(p);
  // Tiled blocks only where a product fills them (many tiny batched products do not).
  const auto tiled = [&](int64_t bm, int64_t bn, int64_t enough) {
    return p.m >= bm && p.n >= bn && blocks(p, bm, bn) >= enough;
  };
  // Deeper K tiles where the device gave the workgroup memory (past WebGPU's 16 KiB default; H100
  // sweep, 2026-11-26, bench/RESULTS.md): 128×128×32 (33 KiB) beats 128×128×8 by 4–7% and, at
  // 128 blocks, 128×64×16 by 16% (4096×2048×512: 37.9 against 32.8 TFLOP/s); 128×64×32 beats
  // 128×64×16 by 6–11% from K = 256; 64×32×32 (13 KiB, within the default) beats 64×32×16 by
  // 10–13% on weight gradients (Aᵀ·B, K ≥ 1024), by 16–17% on 1024×1024×256 and 256×1024×1024
  // and by 8% on 1024×256×256 (A·B), but loses 7% at K = 64.
  const auto fits = [&](const GemmTiling& g) { return g.workgroupBytes() <= p.workgroupBytes; };
  // Tall patches of 32 invocations (16 × 2 of the invocation grid; 8 × 4 for 128×64 blocks)
  // beat laying the grid out row by row (2 × 16; 4 × 8 for 64×32) by 0–5% for 128×128 blocks,
  // 4–11% for 128×64 and 4–12% for 64×32 (forced layouts on an H100, 2026-11-26, RESULTS).
  // 128×256 blocks take 4 × 8: 0.5–3% faster than 16 × 2 on the 4096×1024×1024 and
  // 4096×512×2048 products, either rhs layout, in two runs (H100, 2026-11-28); the same or 1–2%
  // in one run before.
  const auto tile = [](int64_t bm, int64_t bn, int64_t bk, int64_t tm, int64_t tn) {
    return GemmTiling{.form = F::Tiled,
                      .bm = bm,
                      .bn = bn,
                      .bk = bk,
                      .tm = tm,
                      .tn = tn,
                      .laneRows = bm == 128 && bn == 64    ? 8
                                  : bm == 128 && bn == 256 ? 4
                                                           : 16};
  };
  // An outer product (K = 1: an MLP's first layer, its last layer's input gradient) is all
  // stores: from 2²⁰ outputs, 16×64 blocks of one vec4 an invocation, thousands of them, instead
  // of a tiled form's one wave. H100 (2026-11-28, RESULTS): 4096×1×1024 13.3 → 10.0 µs, with the rhs transposed
  // 15.0 → 9.4, 4096×1×256 8.0 → 6.0; MLP H1024 and H256 at batch 4096 pipelined 0.737–0.758 →
  // 0.698–0.707 and 0.129–0.132 → 0.110–0.113 ms a step.
  // A short K (2 to 16: a one-hot input's product with an embedding, the tied embedding's input
  // gradient) in the same blocks from 2¹⁸ outputs, each invocation walking K itself, where a
  // tiled form would run one K tile of 16 or 32 unrolled steps for a few of them. H200
  // (2026-11-29, RESULTS): D512's [4096, 12] · [12, 512] 12.0 → 8.5 µs alone and 27.2 → 9.9 µs
  // inside the step; D256's [1024, 12] · [12, 256] (2¹⁸ outputs) 7.7 → 5.2 µs inside the step.
  const int64_t fewestOutputs = p.k == 1 ? int64_t{1} << 20 : int64_t{1} << 18;
  if (p.k >= 1 && p.k <= 16 && p.m >= 16 && p.n >= 64 && p.batches * p.m * p.n >= fewestOutputs)
    return {.form = F::SplitK, .bm = 16, .bn = 64, .bk = 0, .tm = 1, .tn = 4, .slices = 1};
  // 128×256 blocks of 8×16 accumulators, where they come in whole waves of 128 (an H100 or H200
  // has 132 SMs): 6–8% faster than 128×128×32 on 4096×1024×1024 (128 blocks), 4096×512×2048 and
  // its transposed-rhs form (256); slower at 192 blocks and at 64 (H200, 2026-11-26, RESULTS).
  if (const GemmTiling wide = tile(128, 256, 16, 8, 16);
      fits(wide) && tiled(128, 256, 128) && blocks(p, 128, 256) % 128 == 0)
    return wide;
  // Where 128×128 blocks come in one wave or a few, two K slices of 8×16 accumulators each (the
  // 128×256 form's rows an invocation, 33 KiB, 512 invocations' worth of sums on 256): on an H200
  // (2026-11-29, bench/RESULTS.md) 4096×512×512 58.5–59.5 → 54.4–54.5 µs, its transposed-rhs
  // form 58.3–58.5 → 56.6–57.3, 4096×2048×512 210–211 → 196–197, transposed 214 → 205–206,
  // 4096×512×1536 164–166 → 155–156; 4096×1024×1024 198–200 against its 128×256 blocks' 197–198.
  // D512's step 17.6 → 17.5 ms pipelined; of the sweep's other models only MLP H1024 B4096 has
  // such a product (its weight gradient's two K slices): 0.673–0.674 → 0.670–0.671 ms.
  if (const GemmTiling deep = tile(128, 128, 32, 8, 8); fits(deep) && tiled(128, 128, 128)) {
    GemmTiling sliced = tile(128, 128, 16, 8, 16);
    sliced.laneRows = 4;
    sliced.slices = 2;
    return fits(sliced) && kUnsupported(p, sliced).empty() ? sliced : deep;
  }
  if (tiled(128, 128, 192)) return tile(128, 128, 8, 8, 8);
  if (tiled(128, 64, 128)) {
    const GemmTiling deep = tile(128, 64, 32, 8, 4);
    return fits(deep) && p.k >= 256 ? deep : tile(128, 64, 16, 8, 4);
  }
  if (tiled(64, 32, 128)) {
    const GemmTiling deep = tile(64, 32, 32, 4, 4);
    return fits(deep) && p.k >= 256 ? deep : tile(64, 32, 16, 4, 4);
  }
  const int64_t chunks = p.k % 4 == 0 ? p.k / 4 : p.k;
  const auto split = [&](int64_t bm, int64_t bn, int64_t tm, int64_t tn) {
    GemmTiling g{.form = F::SplitK, .bm = bm, .bn = bn, .bk = 0, .tm = tm, .tn = tn, .slices = 1};
    const int64_t positions = (bm / tm) * (bn / tn);
    while (g.slices * 2 * positions <= kWorkgroupSize && g.slices * 2 <= chunks &&
           g.slices * 2 * bm * bn * 4 <= kDefaultWorkgroupBytes)
      g.slices *= 2;
    return g;
  };
  const int64_t narrow = p.m <= 8 || p.n <= 8 ? 8 : 16;  // a block the product fills
  if (p.k <= 64)
    return {.form = F::SplitK, .bm = narrow, .bn = narrow, .bk = 0, .tm = 1, .tn = 1, .slices = 1};
  // The column form where two vec4 lanes a row (32 bytes) give 128 workgroups or more: on an
  // H200 (2026-11-28, bench/RESULTS.md) [1, 4096]ᵀ · [4096, 1024] and its [1024, 1] twin took
  // 11.3 µs against 12.5–12.7 in 1 × 4 blocks, and MLP H1024 B4096's pipelined step 0.688 →
  // 0.676 ms; at 256 outputs (32 workgroups) they took 8.6–9.2 µs against 8.1–8.7.
  if (const int64_t units = (p.m == 1 ? p.n : p.m) / 4;
      columnShape(p) && p.batches * ceilDiv(units, 2) >= 128) {
    // Wider while the row lanes outnumber K or while half as many workgroups would still be 264
    // (two an SM) or more.
    int64_t lanes = std::min<int64_t>(2, std::bit_ceil(static_cast<uint64_t>(units)));
    while (lanes < units && lanes < kWorkgroupSize &&
           (kWorkgroupSize / lanes > p.k || p.batches * ceilDiv(units, 2 * lanes) >= 264))
      lanes *= 2;
    const int64_t bx = 4 * lanes;
    return {.form = F::Column,
            .bm = p.m == 1 ? 1 : bx,
            .bn = p.m == 1 ? bx : 1,
            .bk = 0,
            .tm = p.m == 1 ? 1 : 4,
            .tn = p.m == 1 ? 4 : 1,
            .slices = kWorkgroupSize / lanes};
  }
  if (p.m < 4 || p.n < 4) {  // a matrix-vector product: a whole workgroup on 4 outputs or 1
    const int64_t bm = p.m < 4 ? 1 : 4, bn = p.n < 4 ? 1 : 4;
    return split(bm, bn, bm, bn);
  }
  if (narrow == 8) return split(8, 8, 2, 2);
  if (blocks(p, 16, 16) >= 132) return split(16, 16, 4, 4);
  return split(8, 8, 4, 4);
}

int64_t chooseKSplits(const MatmulProblem& p) {
  // From a forced-split sweep on the H100 (bench/RESULTS.md): at K = 1024 no split gained; at
  // K = 4096, 128×128 tiles over slices of K ≥ 512 gained most (512×4096×512ᵀ 93 → 67 µs at 8
  // slices, 1024×4096×1024ᵀ 243 → 219 µs at 2), then 128×64 tiles over K ≥ 256 (256×4096×256ᵀ
  // 35 → 30 µs at 16).
  // On a CPU device every workgroup is already busy: a split would only add the partials' sum.
  if (p.cpuDevice || p.batches != 1 || !p.transA || p.k < kMinSplitK) return 1;
  const GemmTiling whole = chooseTiling(p);
  if (whole.form == GemmTiling::Form::Tiled && whole.bm * whole.bn >= 128 * 128) return 1;
  // The fewest slices whose batched product takes ≥ 128 tiles of bm×bn, each slice ≥ minK deep.
  const auto fewest = [&](int64_t bm, int64_t bn, int64_t minK) -> int64_t {
    for (int64_t s = 2; s <= kMaxKSplits && p.k % s == 0 && p.k / s >= minK; s *= 2) {
      MatmulProblem q = p;
      q.batches = s;
      q.k = p.k / s;
      q.batchedRhs = true;
      const GemmTiling t = chooseTiling(q);
      if (t.form == GemmTiling::Form::Tiled && t.bm == bm && t.bn == bn) return s;
    }
    return 1;
  };
  if (const int64_t s = fewest(128, 128, 512); s > 1) return s;
  return fewest(128, 64, 256);
}

std::string kUnsupported(const MatmulProblem& raw, const GemmTiling& g) {
  const MatmulProblem p = normalized(raw);
  if (g.form == GemmTiling::Form::Tiled && g.slices > 1 && p.k % (g.slices * g.bk))
    return "sliced K needs K a multiple of the slices' tiles";
  if (p.kParts.empty()) return "";
  int64_t sum = 0;
  for (int64_t k : p.kParts) {
    if (k <= 0) return "an empty K part";
    sum += k;
    if (g.form == GemmTiling::Form::Tiled && k % g.bk) return "BK does not divide every K part";
  }
  if (sum != p.k) return "the K parts do not sum to K";
  if (p.batches != 1) return "K parts with more than one batch";
  if (g.form == GemmTiling::Form::Column) return "the column form reads one pair of operands";
  return "";
}

}  // namespace tg::detail
