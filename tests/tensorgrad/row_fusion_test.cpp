// Row kernels (codegen/fuse_rows.h): element-wise ops and the row reductions between them, one
// workgroup a row, writing every value read outside the chain. Oracles: the CPU evaluator (every
// written buffer, within fp32 rounding, on lavapipe and in Dawn) and the kernel list.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu_oracle.h"
#include "traced_cases.h"

namespace {

using tg_test::layerNormGraph;

constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

struct Emitted {
  std::vector<tg::KernelSpec> run;  // the kernels that dispatch
  size_t rowKernels = 0;
};

Emitted emit(const tg::Graph& graph) {
  const tg::BufferPlan plan = tg::planBuffers(graph, {}, {}, false, true);
  Emitted e;
  for (tg::KernelSpec& k : tg::emitKernels(graph, plan, kFast)) {
    if (k.wgsl.empty()) continue;
    e.rowKernels += k.wgsl.find("// row kernel:") != std::string::npos;
    e.run.push_back(std::move(k));
  }
  return e;
}


TEST(RowFusion, ALayerNormAndItsGradientRunAsRowKernels) {
  // Rows of 8 (an invocation a row), of 40 (16 lanes of 3 or 2 elements), of 64 (16 lanes of 4;
  // 32 rows, two whole workgroups of 16 rows) and of 300 (64 lanes, 4 rows a workgroup). 15 rows
  // leave the last workgroup part empty.
  for (const auto& [dim, batch] : {std::pair<int64_t, int64_t>{8, 3}, {40, 3}, {64, 4}, {300, 3}}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    const tg::Graph g = layerNormGraph(batch, batch == 4 ? 8 : 5, dim);
    const Emitted e = emit(g);
    // The forward (mean, deviation, variance, eps, sqrt, division, gain, bias) is one kernel that
    // writes what the backward reads; the backward's row sums are one more.
    EXPECT_GE(e.rowKernels, 2u);
    const auto forward = std::find_if(e.run.begin(), e.run.end(), [&](const tg::KernelSpec& k) {
      return std::count_if(k.fusedOps.begin(), k.fusedOps.end(), [&](int op) {
               return g.ops[static_cast<size_t>(op)].kind == tg::OpKind::MeanLast;
             }) == 2;
    });
    ASSERT_NE(forward, e.run.end()) << "no kernel computes both means";
    EXPECT_GE(forward->fusedOps.size(), 8u);
    EXPECT_GE(forward->outputs, 2);
    // Whole elements a lane (rows of 8 on one lane, of 64 on 16) are written out element by
    // element; rows of 40 and 300 loop.
    EXPECT_EQ(forward->wgsl.find("for (var c") == std::string::npos, dim == 8 || dim == 64);
    const tg::EvalInputs env = tg_test::uniformParams(g, 7);
    for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
      tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 1e-4, 1e-5, kFast, {}, false);
  }
}

// A softmax's gradient, as its adjoint writes it: the row sums of dP · P, reshaped to [..., 1] and
// broadcast back over the row, then P · (dP − sums). One row kernel (the broadcast row sum is a
// per-row value), not a reduction with a prologue and an element-wise kernel after it; causal
// and plain, rows of 8 (an invocation a row) and of 64 (16 lanes).
TEST(RowFusion, ASoftmaxGradientBroadcastingItsRowSumsIsOneRowKernel) {
  for (const int64_t t : {8, 64}) {
    for (const bool causal : {true, false}) {
      SCOPED_TRACE(std::to_string(t) + (causal ? " causal" : " plain"));
      tg::Graph g = tg::traceFn([&] {
        const tg::Tensor x = tg::paramInput("x", {3, 2, t, t});
        const tg::Tensor w = tg::paramInput("w", {3, 2, t, t});
        const tg::Tensor p = causal ? tg::softmaxCausal(x) : tg::softmax(x);
        return std::vector<tg::Tensor>{tg::sum(tg::mul(tg::mul(p, 0.5), w))};
      });
      for (const auto& [name, grad] : tg::appendGrad(g).paramGrads)
        g.captures.emplace_back("d" + name, grad);
      const Emitted e = emit(g);
      const auto gradient = std::find_if(e.run.begin(), e.run.end(), [&](const tg::KernelSpec& k) {
        const auto has = [&](tg::OpKind kind) {
          return std::any_of(k.fusedOps.begin(), k.fusedOps.end(), [&](int op) {
            return g.ops[static_cast<size_t>(op)].kind == kind;
          });
        };
        return k.wgsl.find("// row kernel:") != std::string::npos && has(tg::OpKind::SumLast) &&
               has(tg::OpKind::BroadcastTo);
      });
      ASSERT_NE(gradient, e.run.end()) << "no row kernel computes the softmax gradient";
      // The gradient's row sums have no kernel of their own (the loss's total sum does).
      EXPECT_EQ(std::count_if(e.run.begin(), e.run.end(),
                              [&](const tg::KernelSpec& k) {
                                const tg::Op& op = g.ops[static_cast<size_t>(k.opIndex)];
                                return k.kind == tg::OpKind::SumLast &&
                                       g.tensor(op.out).shape == tg::Shape{3, 2, t};
                              }),
                0);
      const tg::EvalInputs env = tg_test::uniformParams(g, 5);
      for (const bool pool : {false, true})
        for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
          tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 1e-4, 1e-5, kFast, {}, pool);
    }
  }
}

TEST(RowFusion, PooledBuffersStayCorrect) {
  // Upstream's pooled plan reuses buffers as soon as values die: a row kernel must not write a
  // buffer it reads, nor a value before its readers outside the kernel are done.
  const tg::Graph g = layerNormGraph(2, 9, 48);
  const tg::EvalInputs env = tg_test::uniformParams(g, 11);
  for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
    tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 1e-4, 1e-5, kFast, {}, true);
}

TEST(RowFusion, AReductionWhoseResultNoOpOfItsGroupReadsIsLeftToItsPrologue) {
  // sum(exp(y)) over rows and a column sum: no op reads a row sum inside a group, so the row sum
  // keeps its prologue form and the column sum its own kernel.
  const tg::Graph g = tg::traceFn([&] {
    const tg::Tensor y = tg::paramInput("y", {64, 24});
    return std::vector<tg::Tensor>{tg::capture("rows", tg::sum(tg::exp(y), -1)),
                                   tg::capture("cols", tg::sumToShape(tg::mul(y, y), {24}))};
  });
  const Emitted e = emit(g);
  EXPECT_EQ(e.rowKernels, 0u);
  EXPECT_EQ(std::count_if(e.run.begin(), e.run.end(),
                          [](const tg::KernelSpec& k) {
                            return k.wgsl.find("fn prologue(") != std::string::npos;
                          }),
            2);
}

}  // namespace
