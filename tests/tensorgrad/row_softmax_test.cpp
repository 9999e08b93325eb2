// A softmax over a product's rows computed by the product (KernelSet::Fast,
// codegen/fold_row_softmax.h, ops/matmul_row_softmax.h) against the CPU evaluator, on lavapipe
// and in Dawn, pooled and with own buffers: attention's scaled scores with their causal softmax,
// and the backward's dP = dO·Vᵀ with the softmax's gradient and the scale's, at the D512
// transformer's head shape and at shapes whose blocks leave rows past t, take no lane patches or
// hold 16 rows; operands stored transposed; and the cases left to two kernels.
#include <gtest/gtest.h>

#include <stdexcept>

#include "../../tensorgrad/src/ops/matmul_fast.h"
#include "folded_matmul_case.h"
#include "traced_cases.h"

namespace {

// At t = 64 an element of wq's gradient sums products over 128 rows and cancels to about 1e-2:
// the fast set without these folds (the CPU device's forms) is 2.1e-5 off the CPU evaluator
// there, these kernels 1.3e-5; fast_attention_test's 1e-5 holds at its t ≤ 32.
constexpr double kRtol = 1e-4, kAtol = 3e-5;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};
const tg::EmitOptions kRoomy{.kernels = tg::KernelSet::Fast, .workgroupStorageBytes = 49152};

using Case = tg_test::MatmulCase;

using tg_test::attentionCase;

struct Kinds {
  int causal = 0, gradient = 0, attention = 0;
};

Kinds kindsOf(const tg::Graph& graph, const tg::EmitOptions& options = kFast) {
  Kinds k;
  for (const tg::KernelSpec& s :
       tg::emitKernels(graph, tg::planBuffers(graph, {}, {}, false, true), options)) {
    k.causal += s.wgsl.starts_with("// fast causal softmax of a matmul's rows");
    k.gradient += s.wgsl.starts_with("// fast softmax gradient through a matmul's rows");
    k.attention += s.wgsl.starts_with("// fast attention");
    if (s.wgsl.starts_with("// fast softmax gradient")) {
      EXPECT_EQ(s.bindings.size(), 4u);                         // dO, V, P, dS
      EXPECT_NE(s.wgsl.find("epilogue4("), std::string::npos);  // the scale's gradient
    }
  }
  return k;
}

TEST(RowSoftmax, ScoresWithTheirSoftmaxAndDPWithTheGradientAreOneKernelEach) {
  // (t, d, heads): (64, 64, 2) the D512 step's head (32x64 blocks, lanes 2 × 16); (48, 64, 4)
  // rows past t in the last block (32x48); (40, 32, 1) 10 × 10 invocations, no lane patches,
  // K tiles 20 deep; (96, 64, 2) 16 rows a block.
  for (const auto& [t, d, heads] :
       {std::array<int64_t, 3>{64, 64, 2}, {48, 64, 4}, {40, 32, 1}, {96, 64, 2}}) {
    SCOPED_TRACE("t " + std::to_string(t) + " d " + std::to_string(d));
    const Case c = attentionCase(2, t, d, heads);
    const Kinds k = kindsOf(c.graph);
    EXPECT_EQ(k.causal, 1);
    EXPECT_EQ(k.gradient, 1);
    tg_test::expectFoldedMatmulsMatchCpu(c, kFast, kRtol, kAtol);
  }
}

TEST(RowSoftmax, TheGradientFoldsWhereTheAttentionKernelTakesTheForward) {
  const Case c = attentionCase(2, 16, 32, 2);
  const Kinds k = kindsOf(c.graph);
  EXPECT_EQ(k.attention, 1);
  EXPECT_EQ(k.causal, 0);
  EXPECT_EQ(k.gradient, 1);
  tg_test::expectFoldedMatmulsMatchCpu(c, kFast, kRtol, kAtol);
}

TEST(RowSoftmax, OperandsStoredTransposedWithoutAnEpilogue) {
  // Q stored [dk, t] and K [t, dk] (the scores' rhs Kᵀ read transposed), no scale.
  const Case c = tg_test::withUniformValues(
      tg::traceFn([] {
        const tg::Tensor qt = tg::paramInput("qt", {3, 8, 44});
        const tg::Tensor k = tg::paramInput("k", {3, 44, 8});
        const tg::Tensor scores = tg::matmul(tg::swapAxes(qt, -1, -2), tg::swapAxes(k, -1, -2));
        return std::vector<tg::Tensor>{tg::softmaxCausal(scores)};
      }),
      43);
  ASSERT_EQ(kindsOf(c.graph).causal, 1);
  for (const tg::KernelSpec& s :
       tg::emitKernels(c.graph, tg::planBuffers(c.graph, {}, {}, false, true), kFast))
    if (s.wgsl.starts_with("// fast causal")) {
      EXPECT_EQ(s.wgsl.find("epilogue"), std::string::npos);
      EXPECT_NE(s.wgsl.find("[44, 8]ᵀ · [8, 44]ᵀ"), std::string::npos) << s.wgsl.substr(0, 120);
    }
  tg_test::expectFoldedMatmulsMatchCpu(c, kFast, kRtol, kAtol);
}

TEST(RowSoftmax, ScoresReadElsewhereAndRowsTheKernelCannotHoldKeepTwoKernels) {
  // The scores an output: their softmax stays a kernel of its own (the gradient still folds).
  const Case seen = attentionCase(1, 48, 32, 2, true);
  const Kinds k = kindsOf(seen.graph);
  EXPECT_EQ(k.causal, 0);
  EXPECT_EQ(k.gradient, 1);
  tg_test::expectFoldedMatmulsMatchCpu(seen, kFast, kRtol, kAtol);
  // Rows no multiple of 4, rows past kMaxSoftmaxRow.
  for (const int64_t t : {45, 132}) {
    const Kinds none = kindsOf(attentionCase(1, t, 16, 1).graph, kRoomy);
    EXPECT_EQ(none.causal + none.gradient, 0) << t;
  }
  // t = 128 takes 19,456 bytes of tiles and 2,048 of row sums: past WebGPU's default 16 KiB.
  const tg::Graph wide = attentionCase(1, 128, 16, 1).graph;
  EXPECT_EQ(kindsOf(wide).causal + kindsOf(wide).gradient, 0);
  EXPECT_EQ(kindsOf(wide, kRoomy).causal + kindsOf(wide, kRoomy).gradient, 2);
}

TEST(RowSoftmax, TheKernelRefusesWhatItCannotCompute) {
  using tg::detail::MatmulProblem;
  MatmulProblem p{.batches = 2, .m = 64, .k = 32, .n = 64, .batchedRhs = true, .transB = true};
  p.rowSoftmax = tg::detail::RowSoftmax{.causal = true};
  EXPECT_EQ(tg::detail::rowSoftmaxUnsupported(p, tg::detail::chooseTiling(p)), "");
  MatmulProblem oblong = p;
  oblong.m = 32;
  EXPECT_NE(tg::detail::rowSoftmaxUnsupported(oblong, tg::detail::chooseTiling(oblong)), "");
  EXPECT_THROW(tg::detail::fastMatmulKernel(oblong), std::logic_error);
  oblong.rowSoftmax->causal = false;  // a gradient's rows need not be square
  EXPECT_EQ(tg::detail::rowSoftmaxUnsupported(oblong, tg::detail::chooseTiling(oblong)), "");
  MatmulProblem sliced = p;
  tg::detail::GemmTiling g = tg::detail::chooseTiling(p);
  g.bn = 32;  // two blocks across a row
  EXPECT_NE(tg::detail::rowSoftmaxUnsupported(sliced, g), "");
  MatmulProblem shared = p;  // a shared rhs folds batches into rows: not square any more
  shared.batchedRhs = false;
  EXPECT_NE(tg::detail::rowSoftmaxUnsupported(shared, tg::detail::chooseTiling(shared)), "");
}

}  // namespace
