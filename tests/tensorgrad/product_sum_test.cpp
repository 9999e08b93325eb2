// Products added into one K loop (KernelSet::Fast, codegen/fold_product_sum.h) against the CPU
// evaluator, on lavapipe and in Dawn: a sum of products with an epilogue after it, the gradient
// of an input read by three projections (attention's Q, K and V: transposed weights), on the
// tiled and split-K forms, a CPU device's forms and forced tilings; and the sums that must stay
// apart (an op between the product and the add, a product another op reads).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>

#include "../../tensorgrad/src/ops/op_registry.h"
#include "folded_matmul_case.h"
#include "tiling_name.h"

namespace {

constexpr double kRtol = 1e-4, kAtol = 1e-4;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

using Case = tg_test::MatmulCase;

Case withValues(tg::Graph g) { return tg_test::withUniformValues(std::move(g), 31); }

// relu(a·w1 + b·w2 + c·w3 + bias), K parts k1, k2, k3; with `apart`, also relu(a·w1) + b·w2 (an
// op between the first product and the add) and b·w2 + c·w3 with c·w3 captured (another reader).
Case sumCase(int64_t m, int64_t n, int64_t k1, int64_t k2, int64_t k3, bool apart = false) {
  return withValues(tg::traceFn([&] {
    const tg::Tensor a = tg::paramInput("a", {m, k1});
    const tg::Tensor b = tg::paramInput("b", {m, k2});
    const tg::Tensor c = tg::paramInput("c", {m, k3});
    const tg::Tensor w1 = tg::paramInput("w1", {k1, n});
    const tg::Tensor w2 = tg::paramInput("w2", {k2, n});
    const tg::Tensor w3 = tg::paramInput("w3", {k3, n});
    const tg::Tensor bias = tg::paramInput("bias", {n});
    if (apart) {
      const tg::Tensor cw = tg::capture("cw", tg::matmul(c, w3));
      return std::vector<tg::Tensor>{
          tg::capture("relu_first", tg::add(tg::relu(tg::matmul(a, w1)), tg::matmul(b, w2))),
          tg::capture("read_twice", tg::add(tg::matmul(b, w2), cw))};
    }
    const tg::Tensor s = tg::add(tg::add(tg::matmul(a, w1), tg::matmul(b, w2)), tg::matmul(c, w3));
    return std::vector<tg::Tensor>{tg::capture("y", tg::relu(tg::add(s, bias)))};
  }));
}

// x [m, din] read by three projections to dout: loss = Σ q·cq + Σ k·ck + Σ v·cv, every gradient
// captured. x's gradient is dq·Wqᵀ + dk·Wkᵀ + dv·Wvᵀ.
Case projectionsCase(int64_t m, int64_t din, int64_t dout) {
  tg::Graph g = tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {m, din});
    tg::Tensor loss;
    for (const char* name : {"q", "k", "v"}) {
      const tg::Tensor w = tg::paramInput(std::string("w") + name, {din, dout});
      const tg::Tensor c = tg::paramInput(std::string("c") + name, {m, dout});
      const tg::Tensor term = tg::sum(tg::mul(tg::matmul(x, w), c));
      loss = loss ? tg::add(loss, term) : term;
    }
    return std::vector<tg::Tensor>{loss};
  });
  for (const auto& [name, grad] : tg::appendGrad(g).paramGrads)
    g.captures.emplace_back("d" + name, grad);
  return withValues(std::move(g));
}

// The fast matmul kernels that dispatch, and how many products each computes.
std::vector<size_t> productsPerKernel(const tg::Graph& graph, tg::EmitOptions options = kFast) {
  const tg::BufferPlan plan = tg::planBuffers(graph, {}, {}, false, true);
  std::vector<size_t> out;
  for (const tg::KernelSpec& k : tg::emitKernels(graph, plan, options)) {
    if (!k.wgsl.starts_with("// fast matmul")) continue;
    out.push_back(static_cast<size_t>(std::count_if(k.fusedOps.begin(), k.fusedOps.end(), [&](int op) {
      return tg::detail::isMatmul(graph.ops[static_cast<size_t>(op)].kind);
    })));
    if (out.back() == 0) out.back() = 1;  // a product with no folds lists no ops
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expectMatchesCpu(const Case& c, tg::EmitOptions options = kFast,
                      std::optional<tg::detail::GemmTiling> tiling = std::nullopt) {
  tg_test::expectFoldedMatmulsMatchCpu(c, options, kRtol, kAtol, tiling);
}

TEST(ProductSum, ThreeProductsAddedBeforeTheirEpilogueAreOneProduct) {
  // 1024 × 256: tiled 64×32×16 blocks (BK divides every part); 24 × 20: split-K; K parts with
  // no multiple of 4 (one k a step).
  for (const auto& [m, n, k1, k2, k3] :
       {std::array<int64_t, 5>{1024, 256, 16, 48, 32}, {24, 20, 12, 8, 4}, {24, 20, 7, 5, 3}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const Case c = sumCase(m, n, k1, k2, k3);
    EXPECT_EQ(productsPerKernel(c.graph), std::vector<size_t>{3});
    expectMatchesCpu(c);
  }
}

TEST(ProductSum, AnInputReadByThreeProjectionsGetsItsGradientFromOneProduct) {
  // x's gradient (K parts dout, Wᵀ read through folded permutes) as one product beside the three
  // weight gradients: tiled (1024 × 256 over 3 × 32), split-K, and a CPU device's split-K forms.
  for (const auto& [m, din, dout] : {std::array<int64_t, 3>{1024, 256, 32}, {24, 20, 12}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(din));
    const Case c = projectionsCase(m, din, dout);
    for (const bool cpu : {false, true}) {
      tg::EmitOptions options = kFast;
      options.cpuDevice = cpu;
      EXPECT_EQ(productsPerKernel(c.graph, options), (std::vector<size_t>{1, 1, 1, 1, 1, 1, 3}));
      if (cpu || m < 1024) expectMatchesCpu(c, options);
    }
    if (m == 1024) expectMatchesCpu(c);
  }
}

TEST(ProductSum, PartsATiledKTileWouldStraddleStayApart) {
  // K parts of 40 under 64×32×16 tiles: x's gradient stays three products (the third adding the
  // other two in its epilogue).
  const Case c = projectionsCase(1024, 256, 40);
  EXPECT_EQ(productsPerKernel(c.graph), (std::vector<size_t>{1, 1, 1, 1, 1, 1, 1, 1, 1}));
  expectMatchesCpu(c);
}

TEST(ProductSum, AnOpBetweenAProductAndTheAddOrAnotherReaderKeepsProductsApart) {
  const Case c = sumCase(24, 20, 12, 8, 4, true);
  EXPECT_EQ(productsPerKernel(c.graph), (std::vector<size_t>{1, 1, 1, 1}));
  expectMatchesCpu(c);
}

TEST(ProductSum, SumsAddedTwiceCountEachProductTwice) {
  // (a·w1 + b·w2) doubled by one add, and a·w1 + (b·w2 + b·w2): the first sum folds (the K loop
  // adds each product once and the epilogue doubles it), the product added to itself stays a
  // kernel of its own.
  const Case c = withValues(tg::traceFn([&] {
    const tg::Tensor a = tg::paramInput("a", {24, 12});
    const tg::Tensor b = tg::paramInput("b", {24, 8});
    const tg::Tensor w1 = tg::paramInput("w1", {12, 20});
    const tg::Tensor w2 = tg::paramInput("w2", {8, 20});
    const tg::Tensor s = tg::add(tg::matmul(a, w1), tg::matmul(b, w2));
    const tg::Tensor bw = tg::matmul(b, w2);
    return std::vector<tg::Tensor>{tg::capture("doubled", tg::add(s, s)),
                                   tg::capture("self", tg::add(tg::matmul(a, w1), tg::add(bw, bw)))};
  }));
  EXPECT_EQ(productsPerKernel(c.graph), (std::vector<size_t>{1, 1, 2}));
  expectMatchesCpu(c);
}

class ForcedProductSumTiling : public testing::TestWithParam<tg::detail::GemmTiling> {};

TEST_P(ForcedProductSumTiling, MatchesCpu) {
  // Edges: M = 129 and N = 68 are no multiple of any tile; parts multiples of 16 for BK.
  expectMatchesCpu(sumCase(129, 68, 16, 32, 16), kFast, GetParam());
  expectMatchesCpu(projectionsCase(129, 68, 16), kFast, GetParam());
}

// Sliced K (two invocation groups on halves of K): the second half starts inside a part (K 64 =
// 16 + 32 + 16, halves of 32); the projections' K is 3 × 16 (64 forward, 128 their weight gradients)
// (whole tiles of 8 for each half, as sliced K needs).
TEST(ProductSum, SlicedKReadsEachHalfFromItsParts) {
  const tg::detail::GemmTiling sliced{.form = tg::detail::GemmTiling::Form::Tiled,
                                      .bm = 64, .bn = 64, .bk = 8, .tm = 8, .tn = 8, .slices = 2};
  expectMatchesCpu(sumCase(129, 68, 16, 32, 16), kFast, sliced);
  expectMatchesCpu(projectionsCase(128, 64, 16), kFast, sliced);
}

using F = tg::detail::GemmTiling::Form;
INSTANTIATE_TEST_SUITE_P(
    FastMatmul, ForcedProductSumTiling,
    testing::Values(
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 64, .bn = 32, .bk = 16, .tm = 4, .tn = 4},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 16, .bn = 16, .tm = 4, .tn = 4, .slices = 16},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 16, .bn = 16, .tm = 1, .tn = 1, .slices = 1}),
    tilingName);

}  // namespace
