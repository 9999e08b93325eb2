// Fused matmul epilogues (KernelSet::Fast, codegen/fold_epilogue.h) against the CPU evaluator, on
// lavapipe and in Dawn: a linear layer's bias and activation, a residual add, attention's head
// split (reshape + permute: a permuted store) and merge, a folded transposed operand, under the
// tiling chooseTiling picks and under every form forced, on extents that are no tile multiple
// (odd M, N and K, N a multiple of 4 for the vec4 stores). And where the fold must not happen:
// the product has another reader. A matmul's second output (codegen/fold_second_output.h) the
// same way, and the readers that must stay kernels of their own.
#include <gtest/gtest.h>

#include <optional>

#include "folded_matmul_case.h"
#include "tiling_name.h"

namespace {

constexpr double kRtol = 1e-4, kAtol = 1e-4;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

using Case = tg_test::MatmulCase;

Case withValues(tg::Graph g) { return tg_test::withUniformValues(std::move(g), 60); }

// m rows, k inner, n columns; b, t, h, dh: the attention shapes.
Case epilogueCase(int64_t m, int64_t k, int64_t n, bool captureProduct = false) {
  return withValues(tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {m, k});
    const tg::Tensor w = tg::paramInput("w", {k, n});
    const tg::Tensor wt = tg::paramInput("wt", {n, k});
    const tg::Tensor bias = tg::paramInput("bias", {n});
    const tg::Tensor res = tg::paramInput("res", {m, n});
    std::vector<tg::Tensor> outs;
    const tg::Tensor p = tg::matmul(x, w);
    if (captureProduct) outs.push_back(tg::capture("p", p));
    outs.push_back(tg::capture("act", tg::relu(tg::add(p, bias))));          // bias, activation
    outs.push_back(tg::capture("res", tg::add(res, tg::matmul(x, w))));     // residual
    outs.push_back(tg::capture("tr", tg::tanh(tg::matmul(x, tg::swapAxes(wt, -1, -2)))));
    // Two products summed: one folds the sum, which reads the other from its buffer.
    outs.push_back(tg::capture("two", tg::add(tg::matmul(x, w), tg::mul(tg::matmul(x, w), 0.5))));
    return outs;
  }));
}

// The MLP's loss head: the last layer's epilogue (bias, minus the target) stores the difference d,
// which two groups read: the loss gradient 2·d/N (read by the most ops) and the squared error.
// And a product with no epilogue (captured) that element-wise groups read; `blocked` adds the
// readers that must not fold: d read through a transpose, d with another buffer. Without the
// bias the epilogue reads only y, at the product's element: its vec4 form stores both outputs.
Case secondOutputCase(int64_t m, int64_t k, int64_t n, bool blocked = false,
                      bool withBias = true) {
  return withValues(tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {m, k});
    const tg::Tensor w = tg::paramInput("w", {k, n});
    const tg::Tensor bias = tg::paramInput("bias", {n});
    const tg::Tensor y = tg::paramInput("y", {m, n});
    const tg::Tensor res = tg::paramInput("res", {m, n});
    const tg::Tensor xw = tg::matmul(x, w);
    const tg::Tensor d = tg::sub(withBias ? tg::add(xw, bias) : xw, y);
    std::vector<tg::Tensor> outs;
    if (blocked) {
      outs.push_back(tg::capture("dt", tg::mul(tg::swapAxes(d, -1, -2), 3.0)));
      outs.push_back(tg::capture("dres", tg::mul(tg::add(d, res), 0.5)));
      return outs;
    }
    const tg::Tensor grad = tg::mul(tg::mul(d, 2.0), 1.0 / static_cast<double>(m * n));
    outs.push_back(tg::capture("sq", tg::mul(d, d)));
    outs.push_back(tg::capture("g0", tg::neg(grad)));
    outs.push_back(tg::capture("g1", tg::exp(grad)));
    const tg::Tensor p = tg::capture("p", tg::matmul(y, tg::swapAxes(w, -1, -2)));
    outs.push_back(p);
    outs.push_back(tg::capture("tp", tg::tanh(p)));
    return outs;
  }));
}

// Attention's head split after a projection, and merge after the per-head product.
Case headsCase(int64_t b, int64_t t, int64_t h, int64_t dh) {
  return withValues(tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {b, t, h * dh});
    const tg::Tensor w = tg::paramInput("w", {h * dh, h * dh});
    const tg::Tensor att = tg::paramInput("att", {b, h, t, t});
    const tg::Tensor v = tg::paramInput("v", {b, h, t, dh});
    const auto split = [&](const tg::Tensor& y) {
      return tg::permute(tg::reshape(y, {b, t, h, dh}), {0, 2, 1, 3});
    };
    const tg::Tensor q = split(tg::matmul(x, w));
    const tg::Tensor merged =
        tg::reshape(tg::permute(tg::matmul(att, v), {0, 2, 1, 3}), {b, t, h * dh});
    // kᵀ as attention takes it (a permute of the split), scaled.
    const tg::Tensor kt = tg::mul(tg::swapAxes(split(tg::matmul(x, w)), -1, -2), 0.5);
    return std::vector<tg::Tensor>{tg::capture("q", q), tg::capture("merged", merged),
                                   tg::capture("kt", kt)};
  }));
}

struct Count {
  size_t matmuls = 0, epilogues = 0, seconds = 0, others = 0;  // fast matmul kernels, and folds
};

Count count(const tg::Graph& graph) {
  Count c;
  // Own buffers (the runtime's default on a GPU); a pooled plan may forbid some folds.
  const tg::BufferPlan plan = tg::planBuffers(graph, {}, {}, false, true);
  for (const tg::KernelSpec& k : tg::emitKernels(graph, plan, kFast)) {
    if (k.wgsl.empty()) continue;
    if (!k.wgsl.starts_with("// fast matmul")) {
      ++c.others;
      continue;
    }
    ++c.matmuls;
    c.seconds += k.wgsl.find("fn second") != std::string::npos;
    // A second output alone stores the product through an identity epilogue.
    c.epilogues += k.wgsl.find("fn epilogue") != std::string::npos &&
                   k.wgsl.find("mm : f32) -> f32 {\n  return mm;") == std::string::npos;
  }
  return c;
}

void expectMatchesCpu(const Case& c, std::optional<tg::detail::GemmTiling> tiling = std::nullopt) {
  tg_test::expectFoldedMatmulsMatchCpu(c, kFast, kRtol, kAtol, tiling);
}

TEST(MatmulEpilogue, LinearLayersFoldTheirElementwiseReaders) {
  const Case c = epilogueCase(37, 21, 44);
  const Count n = count(c.graph);
  EXPECT_EQ(n.matmuls, 5u);
  EXPECT_EQ(n.epilogues, 4u);  // bias + relu, residual, tanh, the sum of two
  EXPECT_EQ(n.others, 0u);
  expectMatchesCpu(c);
}

TEST(MatmulEpilogue, HeadSplitAndMergeStorePermuted) {
  const Case c = headsCase(3, 5, 2, 6);
  const Count n = count(c.graph);
  EXPECT_EQ(n.epilogues, 3u);
  EXPECT_EQ(n.others, 0u);  // no permute, reshape or scale kernel
  expectMatchesCpu(c);
}

// The tiled form, whose invocations store 4 neighbours as one vec4 where they may.
constexpr tg::detail::GemmTiling kTiled{
    .form = tg::detail::GemmTiling::Form::Tiled, .bm = 64, .bn = 32, .bk = 16, .tm = 4, .tn = 4};

// The WGSL of every fast matmul kernel of `c`, re-emitted with its folds under kTiled.
std::vector<std::string> tiledMatmuls(const Case& c) {
  std::vector<std::string> wgsl;
  const tg::BufferPlan plan = tg::planBuffers(c.graph, {}, {}, false, true);
  for (const tg::KernelSpec& k : tg::emitKernels(c.graph, plan, kFast)) {
    if (!k.wgsl.starts_with("// fast matmul")) continue;
    const auto [matmul, folds] = tg::detail::foldsOf(c.graph, k);
    wgsl.push_back(tg::detail::foldedMatmulKernel(c.graph, plan, matmul, folds, kTiled).wgsl);
  }
  return wgsl;
}

// Heads 8 wide: the split and the merge keep the head's axis last, so 4 neighbours of a row stay
// neighbours and go out as one vec4 (from the tiled form, whose invocations own 4 neighbours);
// kᵀ moves that axis and stores each element at its place. ForcedEpilogueTiling runs the case
// against the CPU under every form.
TEST(MatmulEpilogue, PermutesThatKeepRunsOf4StoreVec4s) {
  const Case c = headsCase(2, 9, 4, 8);
  size_t vec4s = 0, scalars = 0;
  for (const std::string& w : tiledMatmuls(c)) {
    const size_t store = w.find("out[outIndex(");
    if (store == std::string::npos) continue;
    const std::string line = w.substr(store, w.find('\n', store) - store);
    (line.find(" / 4u] = vec4<f32>(") != std::string::npos ? vec4s : scalars) += 1;
  }
  EXPECT_EQ(vec4s, 2u);    // q, merged
  EXPECT_EQ(scalars, 1u);  // kᵀ
  expectMatchesCpu(c, kTiled);
}

// The backward's dK = (Qᵀ·dS)ᵀ with the head merge: a product stored through a swap of its last
// two axes first is computed transposed (dSᵀ·Q), so 4 neighbours of a row go out as one vec4
// through the merge alone; where the product's rows are no multiple of 4 (dk 6) it stays as it
// was, each element stored at its place.
TEST(MatmulEpilogue, AProductStoredTransposedIsComputedTransposed) {
  for (const int64_t dk : {8, 6}) {
    SCOPED_TRACE(dk);
    const Case c = withValues(tg::traceFn([&] {
      const tg::Tensor q = tg::paramInput("q", {2, 3, 12, dk});
      const tg::Tensor ds = tg::paramInput("ds", {2, 3, 12, 12});
      const tg::Tensor product = tg::matmul(tg::swapAxes(q, -1, -2), ds);  // [2, 3, dk, 12]
      return std::vector<tg::Tensor>{tg::mergeHeads(tg::swapAxes(product, -1, -2))};
    }));
    const std::vector<std::string> w = tiledMatmuls(c);
    ASSERT_EQ(w.size(), 1u);
    const size_t store = w.front().find("out[outIndex(");
    ASSERT_NE(store, std::string::npos);
    const std::string line = w.front().substr(store, w.front().find('\n', store) - store);
    EXPECT_EQ(line.find(" / 4u] = vec4<f32>(") != std::string::npos, dk == 8) << line;
    expectMatchesCpu(c);
    expectMatchesCpu(c, kTiled);
  }
}

// An epilogue whose buffers are all read at the product's own element (the residual, the other
// product of a sum) loads each a vec4 at a time where the kernel stores vec4s (the tiled form);
// one reading a broadcast bias keeps scalar loads.
TEST(MatmulEpilogue, SameIndexReadsLoadVec4s) {
  const Case c = epilogueCase(37, 21, 44);
  size_t vec4s = 0, scalars = 0;
  for (const std::string& w : tiledMatmuls(c)) {
    if (w.find("in2 : array<vec4<f32>>") != std::string::npos) {
      ++vec4s;
      EXPECT_NE(w.find("= epilogue4("), std::string::npos) << w;
    }
    scalars += w.find("in2 : array<f32>") != std::string::npos;
  }
  EXPECT_EQ(vec4s, 2u);    // the residual, the sum of two products
  EXPECT_EQ(scalars, 1u);  // the bias
  expectMatchesCpu(c, kTiled);
}

TEST(MatmulEpilogue, AProductWithAnotherReaderIsNotFolded) {
  const Case c = epilogueCase(37, 21, 44, true);  // the first product is captured
  const Count n = count(c.graph);
  EXPECT_EQ(n.epilogues, 3u);
  EXPECT_EQ(n.others, 1u);  // bias + relu in a fused kernel of their own
  expectMatchesCpu(c);
}

TEST(MatmulSecondOutput, TheLossGradientIsStoredWithTheDifference) {
  const Case c = secondOutputCase(37, 21, 44);
  const Count n = count(c.graph);
  EXPECT_EQ(n.matmuls, 2u);
  EXPECT_EQ(n.epilogues, 1u);  // the difference; the captured product stores itself
  EXPECT_EQ(n.seconds, 2u);    // the gradient (the most-read group), and tanh of the product
  EXPECT_EQ(n.others, 3u);     // the squared error, and the gradient's two readers
  expectMatchesCpu(c);
}

// The difference without a bias: the epilogue's vec4 form (one vec4 of y) computes the stored
// vec4, and the second output is written from it as a vec4 too.
TEST(MatmulSecondOutput, AVec4EpilogueStoresBothOutputsAsVec4s) {
  const Case c = secondOutputCase(37, 21, 44, false, false);
  size_t both = 0;
  for (const std::string& w : tiledMatmuls(c))
    both += w.find("{ let ev = epilogue4(") != std::string::npos &&
            w.find("out2 : array<vec4<f32>>") != std::string::npos;
  EXPECT_EQ(both, 1u);  // the difference and the loss gradient
  expectMatchesCpu(c, kTiled);
}

TEST(MatmulSecondOutput, ReadersAtAnotherIndexOrOfAnotherBufferStayKernels) {
  const Case c = secondOutputCase(37, 21, 44, true);
  const Count n = count(c.graph);
  EXPECT_EQ(n.seconds, 0u);
  EXPECT_EQ(n.others, 2u);
  expectMatchesCpu(c);
}

class ForcedEpilogueTiling : public testing::TestWithParam<tg::detail::GemmTiling> {};

TEST_P(ForcedEpilogueTiling, MatchesCpu) {
  // Edges: M = 129 and N = 68 / 30 are no multiple of any tile; K = 21 odd.
  for (const Case& c : {epilogueCase(129, 21, 68), epilogueCase(33, 20, 30), headsCase(2, 9, 4, 8),
                        secondOutputCase(129, 21, 68), secondOutputCase(33, 20, 30)})
    expectMatchesCpu(c, GetParam());
}

using F = tg::detail::GemmTiling::Form;
INSTANTIATE_TEST_SUITE_P(
    FastMatmul, ForcedEpilogueTiling,
    testing::Values(
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 64, .bk = 16, .tm = 8, .tn = 4},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 64, .bn = 32, .bk = 16, .tm = 4, .tn = 4},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 16, .bn = 16, .tm = 4, .tn = 4, .slices = 16},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 8, .bn = 8, .tm = 2, .tn = 2, .slices = 1},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 16, .bn = 16, .tm = 1, .tn = 1, .slices = 1}),
    tilingName);

}  // namespace
