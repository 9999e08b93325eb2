// Outer products computed by the matrix-vector product they multiply (KernelSet::Fast,
// codegen/fold_outer_product.h) against the CPU evaluator, on lavapipe and in Dawn: the MLP's
// loss head (h's gradient g·wᵀ masked by h > 0, g the loss gradient the last layer's kernel
// stores second), with the mask read from h (the product's own lhs: no binding of its own) or
// from the pre-activation, on the split-K forms chooseTiling picks (vec4 and scalar loads, rows
// that are no multiple of the block), a CPU device's forms and forced tilings (a tree, slices
// summed in order, one slice); a product of the stored value itself, without epilogues; and the
// products that must stay kernels of their own (an operand computed later); MLP H1024 B4096's outer product too (4096 × 1024).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>

#include "../../tensorgrad/src/ops/op_registry.h"
#include "folded_matmul_case.h"
#include "tiling_name.h"

namespace {

constexpr double kRtol = 1e-4, kAtol = 1e-5;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

using Case = tg_test::MatmulCase;

using F = tg::detail::GemmTiling::Form;

Case withValues(tg::Graph g) {
  return tg_test::withUniformValues(std::move(g), 47);
}

// The MLP's last two layers and loss: h = relu(x·W + b1) [m, k], out = h·w + b [m, 1],
// loss = mean((out − y)²), every parameter's gradient captured. `fromOutputs` rewrites the
// ReLU's gradient to read h (as the runtime does), else it reads the pre-activation.
Case lossHeadCase(int64_t m, int64_t din, int64_t k, bool fromOutputs = true) {
  tg::Graph g = tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {m, din});
    const tg::Tensor w1 = tg::paramInput("w1", {din, k});
    const tg::Tensor b1 = tg::paramInput("b1", {k});
    const tg::Tensor w = tg::paramInput("w", {k, 1});
    const tg::Tensor b = tg::paramInput("b", {1});
    const tg::Tensor y = tg::paramInput("y", {m, 1});
    const tg::Tensor h = tg::relu(tg::add(tg::matmul(x, w1), b1));
    const tg::Tensor d = tg::sub(tg::add(tg::matmul(h, w), b), y);
    return std::vector<tg::Tensor>{tg::mean(tg::mul(d, d))};
  });
  for (const auto& [name, grad] : tg::appendGrad(g).paramGrads)
    g.captures.emplace_back("d" + name, grad);
  if (fromOutputs) tg::readReluGradsFromOutputs(g);
  return withValues(std::move(g));
}

// p = h·w [m, 1] captured, and q = p·v [m, n] (K = 1, no epilogues). With `late`, v = exp(c) is
// computed after p: the product cannot read it where p's kernel stands. With `scaled` (n = k),
// q's epilogue (q + h)·s reads p's lhs at q's element and s [n] through a broadcast, so it runs
// element by element (no vec4 form), reading h through lhsElement.
Case plainCase(int64_t m, int64_t k, int64_t n, bool late, bool scaled = false) {
  return withValues(tg::traceFn([&] {
    const tg::Tensor h = tg::paramInput("h", {m, k});
    const tg::Tensor w = tg::paramInput("w", {k, 1});
    const tg::Tensor c = tg::paramInput("c", {1, n});
    const tg::Tensor sc = tg::paramInput("s", {n});
    const tg::Tensor early = late ? tg::Tensor{} : tg::exp(c);
    const tg::Tensor p = tg::matmul(h, w);
    const tg::Tensor v = late ? tg::exp(c) : early;
    const tg::Tensor q = tg::matmul(p, v);
    return std::vector<tg::Tensor>{tg::capture("p", p),
                                   tg::capture("q", scaled ? tg::mul(tg::add(q, h), sc) : q)};
  }));
}

// The buffer plan the tests emit under: a buffer each.
tg::BufferPlan ownBuffers(const tg::Graph& graph) {
  return tg::planBuffers(graph, {}, {}, false, true);
}

// Fast matmul kernels that compute an outer product after their own.
std::vector<tg::KernelSpec> outerKernelSpecs(const tg::Graph& graph, tg::EmitOptions options = kFast) {
  std::vector<tg::KernelSpec> out;
  for (tg::KernelSpec& k : tg::emitKernels(graph, ownBuffers(graph), options))
    if (k.wgsl.starts_with("// fast matmul") && k.wgsl.find("out3") != std::string::npos)
      out.push_back(std::move(k));
  return out;
}

size_t outerKernels(const tg::Graph& graph, tg::EmitOptions options = kFast) {
  return outerKernelSpecs(graph, options).size();
}

void expectMatchesCpu(const Case& c, tg::EmitOptions options = kFast,
                      std::optional<tg::detail::GemmTiling> tiling = std::nullopt) {
  tg_test::expectFoldedMatmulsMatchCpu(c, options, kRtol, kAtol, tiling);
}

TEST(OuterProduct, TheLossHeadWritesTheHiddenGradient) {
  // K = 300: 4 rows a workgroup, 256 slices, a tree (37 rows: the last block past the edge);
  // K = 301: scalar loads and stores; K = 48: 8×8 blocks of one slice (narrow K); K = 1024
  // (MLP H1024's): a row's 256 vec4s one an invocation.
  for (const auto& [m, k] :
       {std::array<int64_t, 2>{37, 300}, {37, 301}, {64, 48}, {37, 1024}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k));
    for (const bool fromOutputs : {true, false}) {
      const Case c = lossHeadCase(m, 5, k, fromOutputs);
      for (const bool cpu : {false, true}) {
        tg::EmitOptions options = kFast;
        options.cpuDevice = cpu;
        EXPECT_EQ(outerKernels(c.graph, options), 1u);
        expectMatchesCpu(c, options);
      }
    }
  }
}

TEST(OuterProduct, TheMaskReadFromTheProductsLhsBindsNothingMore) {
  // Read from h, the mask is a read of the product's lhs through lhsVec4: 6 bindings of the
  // matrix-vector product (h, w, b, y, out, the gradient) and the outer product's output.
  const Case c = lossHeadCase(37, 5, 300);
  const std::vector<tg::KernelSpec> folded = outerKernelSpecs(c.graph);
  ASSERT_EQ(folded.size(), 1u);
  const tg::KernelSpec& k = folded.front();
  EXPECT_EQ(k.bindings.size(), 7u);
  EXPECT_EQ(k.outputs, 3);
  EXPECT_NE(k.wgsl.find("lhsVec4(q)"), std::string::npos) << k.wgsl;
  EXPECT_NE(k.wgsl.find("rhsVec4(j / 4u)"), std::string::npos) << k.wgsl;
}

TEST(OuterProduct, AProductOfTheStoredValueWithoutEpilogues) {
  const Case c = plainCase(37, 300, 20, false);
  EXPECT_EQ(outerKernels(c.graph), 1u);
  expectMatchesCpu(c);
  const Case odd = plainCase(37, 300, 21, false);  // scalar stores
  EXPECT_EQ(outerKernels(odd.graph), 1u);
  expectMatchesCpu(odd);
}

TEST(OuterProduct, AnEpilogueWithABroadcastReadsTheLhsElementByElement) {
  // K = 300: h bound as vec4s, read one element at a time; K = 301: h bound as f32s.
  for (const int64_t k : {300, 301}) {
    SCOPED_TRACE(k);
    const Case c = plainCase(37, k, k, false, true);
    EXPECT_EQ(outerKernels(c.graph), 1u);
    expectMatchesCpu(c);
  }
}

TEST(OuterProduct, ProductsOfEverySizeFold) {
  // 4096 × 1024 (MLP H1024 B4096's) was once kept apart: slower folded on an H200 until product
  // families (bench/RESULTS.md, thirty-fifth session).
  EXPECT_EQ(outerKernels(lossHeadCase(4096, 1, 256).graph), 1u);
  EXPECT_EQ(outerKernels(lossHeadCase(4096, 1, 1024).graph), 1u);
  EXPECT_EQ(outerKernels(lossHeadCase(2048, 1, 1024).graph), 1u);
}

TEST(OuterProduct, AnEpilogueReadingTheProductsOwnOutputKeepsItsKernel) {
  // q + p reads p through a broadcast: the kernel stores p, but only the invocation storing a
  // row may read it back before the kernel ends.
  const Case c = withValues(tg::traceFn([&] {
    const tg::Tensor h = tg::paramInput("h", {37, 300});
    const tg::Tensor w = tg::paramInput("w", {300, 1});
    const tg::Tensor v = tg::paramInput("v", {1, 20});
    const tg::Tensor p = tg::matmul(h, w);
    return std::vector<tg::Tensor>{tg::capture("p", p),
                                   tg::capture("q", tg::add(tg::matmul(p, v), p))};
  }));
  EXPECT_EQ(outerKernels(c.graph), 0u);
  expectMatchesCpu(c);
}

TEST(OuterProduct, AnOperandComputedAfterTheProductKeepsItsKernel) {
  const Case c = plainCase(37, 300, 20, true);
  EXPECT_EQ(outerKernels(c.graph), 0u);
  expectMatchesCpu(c);
}

TEST(OuterProduct, OnlyASplitKFormWithRoomForTheRowValuesTakesIt) {
  // The row values need BM floats of workgroup memory beside the slices' partials: 16×16 blocks
  // of 16 slices fill WebGPU's 16 KiB alone. A tiled form has no such pass.
  const Case c = lossHeadCase(37, 5, 300);
  const std::vector<tg::KernelSpec> folded = outerKernelSpecs(c.graph);
  ASSERT_EQ(folded.size(), 1u);
  const auto [matmul, folds] = tg::detail::foldsOf(c.graph, folded.front());
  ASSERT_GE(folds.outer, 0);
  for (const tg::detail::GemmTiling& g :
       {tg::detail::GemmTiling{
            .form = F::SplitK, .bm = 16, .bn = 16, .tm = 4, .tn = 4, .slices = 16},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 64, .bn = 32, .bk = 16, .tm = 4, .tn = 4}})
    EXPECT_THROW(
        tg::detail::foldedMatmulKernel(c.graph, ownBuffers(c.graph), matmul, folds, g),
        std::logic_error);
}

class ForcedOuterProductTiling : public testing::TestWithParam<tg::detail::GemmTiling> {};

TEST_P(ForcedOuterProductTiling, MatchesCpu) {
  // Every fast matmul re-emitted under the tiling, the folds read back from its kernel.
  expectMatchesCpu(lossHeadCase(37, 5, 300), kFast, GetParam());
  expectMatchesCpu(lossHeadCase(37, 5, 301, false), kFast, GetParam());
  expectMatchesCpu(plainCase(37, 300, 21, false), kFast, GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    FastMatmul, ForcedOuterProductTiling,
    testing::Values(
        // A tree over 256 slices; slices summed in order (256 outputs, 256 invocations); one slice.
        tg::detail::GemmTiling{
            .form = F::SplitK, .bm = 4, .bn = 1, .tm = 4, .tn = 1, .slices = 256},
        tg::detail::GemmTiling{
            .form = F::SplitK, .bm = 16, .bn = 16, .tm = 4, .tn = 4, .slices = 8},
        tg::detail::GemmTiling{
            .form = F::SplitK, .bm = 16, .bn = 16, .tm = 1, .tn = 1, .slices = 1}),
    tilingName);

}  // namespace
