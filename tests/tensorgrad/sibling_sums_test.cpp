// Column sums read together (KernelSet::Fast, codegen/fold_sibling_sums.h,
// ops/reduce_fast.h: fastColumnSumsKernel) against the CPU evaluator, on lavapipe and in Dawn: a
// layernorm's gain and bias gradients (Σ dy·x̂ and Σ dy over the rows: vec4 loads) as one kernel,
// three sums of one shape sharing buffers two by two (one reading a broadcast: scalar loads),
// leading batch axes kept, row counts past and short of the strided loop's unrolled body;
// matrix-vector products as sums weighted by their vector; one buffer read through a reshape's
// view and as itself; and the sums left alone (no buffer in common, another shape, rows not whole
// vec4s).
#include <gtest/gtest.h>

#include "gpu_oracle.h"
#include "traced_cases.h"

namespace {

constexpr double kRtol = 1e-5, kAtol = 1e-6;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

struct Kernels {
  int siblings = 0;    // column sums kernels
  int sums = 0;        // their sums
  int columnSums = 0;  // column sums left to a kernel each
};

Kernels kernelsOf(const tg::Graph& g) {
  Kernels k;
  for (const tg::KernelSpec& s :
       tg::emitKernels(g, tg::planBuffers(g, {}, {}, false, true), kFast)) {
    if (s.wgsl.starts_with("// fast column sums")) {
      ++k.siblings;
      k.sums += s.outputs;
    }
    k.columnSums += s.wgsl.starts_with("// fast column reduce");
  }
  return k;
}

void expectMatchesCpu(const tg::Graph& g, uint32_t seed) {
  const tg::EvalInputs env = tg_test::uniformParams(g, seed);
  for (const bool pool : {true, false})
    for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
      tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, kRtol, kAtol, kFast, {}, pool);
}

TEST(SiblingSums, ALayerNormsGainAndBiasGradientsAreOneKernel) {
  // Rows of 64 and 512 over 48 rows (the strided loop's tail only) and 600 (its unrolled body).
  for (const auto& [batch, rows, dim] :
       {std::array<int64_t, 3>{3, 16, 64}, {4, 12, 512}, {5, 120, 64}}) {
    SCOPED_TRACE("rows " + std::to_string(batch * rows) + " dim " + std::to_string(dim));
    const tg::Graph g = tg_test::layerNormGraph(batch, rows, dim);
    const Kernels k = kernelsOf(g);
    EXPECT_EQ(k.siblings, 1);
    EXPECT_EQ(k.sums, 2);
    EXPECT_EQ(k.columnSums, 0);
    expectMatchesCpu(g, 5);
  }
}

TEST(SiblingSums, SumsSharingBuffersTwoByTwoAreOneKernel) {
  // [2, 40, 8] → [2, 1, 8] (the batch axis kept): Σ a, Σ a·b, Σ b·v with v [8] broadcast over
  // the rows (read at another index than the element's: four scalar evaluations a vec4); the
  // first two share a, the last two b.
  const tg::Graph g = tg::traceFn([] {
    const tg::Tensor a = tg::paramInput("a", {2, 40, 8});
    const tg::Tensor b = tg::paramInput("b", {2, 40, 8});
    const tg::Tensor v = tg::paramInput("v", {8});
    const tg::Shape to{2, 1, 8};
    return std::vector<tg::Tensor>{tg::sumToShape(a, to), tg::sumToShape(tg::mul(a, b), to),
                                   tg::sumToShape(tg::mul(b, v), to)};
  });
  const Kernels k = kernelsOf(g);
  EXPECT_EQ(k.siblings, 1);
  EXPECT_EQ(k.sums, 3);
  expectMatchesCpu(g, 7);
}

TEST(SiblingSums, SumsWithNothingInCommonOrAnotherShapeStayApart) {
  const tg::Graph g = tg::traceFn([] {
    const tg::Tensor a = tg::paramInput("a", {48, 16});
    const tg::Tensor b = tg::paramInput("b", {48, 16});
    const tg::Tensor c = tg::paramInput("c", {48, 6});
    // Σ a shares nothing with Σ b and Σ b·b (one kernel); Σ c and Σ c·c have rows of 6, no
    // vec4s; Σ over a reshaped to [64, 12] has another shape than Σ a.
    return std::vector<tg::Tensor>{tg::sumToShape(a, {16}),
                                   tg::sumToShape(b, {16}),
                                   tg::sumToShape(tg::mul(b, b), {1, 16}),
                                   tg::sumToShape(c, {6}),
                                   tg::sumToShape(tg::mul(c, c), {6}),
                                   tg::sumToShape(tg::reshape(a, {64, 12}), {12})};
  });
  const Kernels k = kernelsOf(g);
  EXPECT_EQ(k.siblings, 1);
  EXPECT_EQ(k.sums, 2);
  EXPECT_EQ(k.columnSums, 4);
  expectMatchesCpu(g, 9);
}

TEST(SiblingSums, AMatrixVectorProductIsASumWeightedByItsVector) {
  // An MLP's first layer's gradients: Σ dh (its bias) and xᵀ·dh (its weight, x [600, 1] read
  // through its transpose), and u·dh with u [1, 600] through an identity sum (the kernel's place
  // moves to that sum): one kernel of three sums, each row of dh read once. A product of rows of
  // 6 (no vec4s) keeps its own kernel.
  const tg::Graph g = tg::traceFn([] {
    const tg::Tensor dh = tg::paramInput("dh", {600, 64});
    const tg::Tensor x = tg::paramInput("x", {600, 1});
    const tg::Tensor u = tg::paramInput("u", {1, 600});
    const tg::Tensor c = tg::paramInput("c", {600, 6});
    return std::vector<tg::Tensor>{tg::sumToShape(dh, {64}),
                                   tg::matmul(tg::swapAxes(x, -1, -2), dh),
                                   tg::sumToShape(tg::matmul(u, dh), {1, 64}),
                                   tg::matmul(u, c)};
  });
  const Kernels k = kernelsOf(g);
  EXPECT_EQ(k.siblings, 1);
  EXPECT_EQ(k.sums, 3);
  size_t products = 0;
  for (const tg::KernelSpec& s :
       tg::emitKernels(g, tg::planBuffers(g, {}, {}, false, true), kFast))
    products += s.kind == tg::OpKind::Matmul && !s.wgsl.empty();
  EXPECT_EQ(products, 1u);  // u·c
  expectMatchesCpu(g, 11);
}

TEST(SiblingSums, SumsReadingOneBufferThroughAReshapeReadItInCommon) {
  // Σ over dh viewed as [2, 300, 64] (a reshape planned into dh's buffer) and xᵀ·dh: one buffer.
  const tg::Graph g = tg::traceFn([] {
    const tg::Tensor dh = tg::paramInput("dh", {600, 64});
    const tg::Tensor x = tg::paramInput("x", {600, 1});
    return std::vector<tg::Tensor>{tg::sumToShape(tg::reshape(dh, {2, 300, 64}), {64}),
                                   tg::matmul(tg::swapAxes(x, -1, -2), dh)};
  });
  const Kernels k = kernelsOf(g);
  EXPECT_EQ(k.siblings, 1);
  EXPECT_EQ(k.sums, 2);
  expectMatchesCpu(g, 13);
}

}  // namespace
