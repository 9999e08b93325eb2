// Cross-workgroup split-K of weight gradients (passes.h: splitWeightGradients, the fast set's
// chooseKSplits). Oracles: the CPU evaluator of the graph before the rewrite (the same sum in
// another order, so within fp32 rounding), on the CPU and on lavapipe and in Dawn.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "../../tensorgrad/src/ops/matmul_fast.h"
#include "gpu_oracle.h"

namespace {

// sum(x·w ⊙ v) and its gradients; dw = xᵀ·dy is a weight gradient over K = rows.
tg::Graph layerGraph(int64_t rows) {
  tg::Graph g = tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {rows, 24});
    const tg::Tensor w = tg::paramInput("w", {24, 40});
    const tg::Tensor v = tg::paramInput("v", {rows, 40});
    return std::vector<tg::Tensor>{tg::sum(tg::mul(tg::matmul(x, w), v))};
  });
  const tg::GradResult grads = tg::appendGrad(g);
  for (const auto& [name, t] : grads.paramGrads) g.captures.emplace_back("d" + name, t);
  return g;
}

size_t count(const tg::Graph& g, tg::OpKind kind) {
  return static_cast<size_t>(std::count_if(g.ops.begin(), g.ops.end(),
                                           [&](const tg::Op& op) { return op.kind == kind; }));
}

TEST(SplitWeightGradients, ChoosesSlicesByShape) {
  using tg::detail::chooseKSplits;
  constexpr int64_t kH100 = 49152;  // the H100's maxComputeWorkgroupStorageSize
  // 128×64 tiles over K/16 = 256 for [256, 256]; 128×128 tiles for the larger outputs.
  EXPECT_EQ(chooseKSplits({.m = 256, .k = 4096, .n = 256, .transA = true, .workgroupBytes = kH100}), 16);
  EXPECT_EQ(chooseKSplits({.m = 512, .k = 4096, .n = 512, .transA = true, .workgroupBytes = kH100}), 8);
  EXPECT_EQ(chooseKSplits({.m = 1024, .k = 4096, .n = 1024, .transA = true, .workgroupBytes = kH100}), 2);
  // WebGPU's default 16 KiB: 128×128 tiles need 192 blocks to be taken, so more slices.
  EXPECT_EQ(chooseKSplits({.m = 1024, .k = 4096, .n = 1024, .transA = true}), 4);
  // Not split: a short K, an output that already fills the GPU, a forward product, one that no
  // split gives 128×64 tiles, a K that halves into odd slices.
  EXPECT_EQ(chooseKSplits({.m = 256, .k = 1024, .n = 1024, .transA = true, .workgroupBytes = kH100}), 1);
  EXPECT_EQ(chooseKSplits({.m = 4096, .k = 4096, .n = 4096, .transA = true, .workgroupBytes = kH100}), 1);
  EXPECT_EQ(chooseKSplits({.m = 256, .k = 4096, .n = 256, .workgroupBytes = kH100}), 1);
  EXPECT_EQ(chooseKSplits({.m = 64, .k = 4096, .n = 64, .transA = true, .workgroupBytes = kH100}), 1);
  EXPECT_EQ(chooseKSplits({.m = 256, .k = 4098, .n = 256, .transA = true, .workgroupBytes = kH100}), 1);
  // Nor on a CPU device, where the GPU would take 16 slices.
  EXPECT_EQ(chooseKSplits({.m = 256, .k = 4096, .n = 256, .transA = true, .workgroupBytes = kH100,
                           .cpuDevice = true}), 1);
}

TEST(SplitWeightGradients, RewritesTheProductIntoSlicesAndASum) {
  const tg::Graph before = layerGraph(96);
  const tg::EvalInputs env = tg_test::uniformParams(before, 5);
  tg::Graph after = before;
  tg::splitWeightGradients(after, 0, 4);
  EXPECT_EQ(count(after, tg::OpKind::Matmul), count(before, tg::OpKind::Matmul) - 1);  // dx stays
  EXPECT_EQ(count(after, tg::OpKind::MatmulBatched), 1u);
  const auto dw = std::find_if(before.captures.begin(), before.captures.end(),
                               [](const auto& c) { return c.first == "dw"; });
  ASSERT_NE(dw, before.captures.end());
  // dw reads the same tensor as before, upstream's identity sum_to_shape, which now sums the
  // [4, 24, 40] partials itself: the product it read is gone.
  // Two reshapes and the partials in, the product out.
  EXPECT_EQ(after.ops.size(), before.ops.size() + 2);
  const tg::Op& slices = after.producer(dw->second);
  ASSERT_EQ(slices.kind, tg::OpKind::SumToShape);
  const tg::Op& partials = after.producer(slices.inputs[0]);
  ASSERT_EQ(partials.kind, tg::OpKind::MatmulBatched);
  EXPECT_EQ(after.tensor(partials.out).shape, (tg::Shape{4, 24, 40}));
  for (size_t i = 0; i < after.ops.size(); ++i) {  // still topological, sources renumbered
    EXPECT_EQ(after.tensor(after.ops[i].out).source, static_cast<int>(i));
    for (int in : after.ops[i].inputs) EXPECT_LT(*after.tensor(in).source, static_cast<int>(i));
  }
  const auto values = [&](const tg::Graph& g, int t) { return tg::evaluate(g, env).at(static_cast<size_t>(t)).f; };
  for (const auto& [name, t] : before.captures) {
    const std::vector<float> a = values(before, t), b = values(after, t);
    ASSERT_EQ(a.size(), b.size()) << name;
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5 * (1 + std::abs(a[i]))) << name << "[" << i << "]";
  }
  // A product read elsewhere too (here captured) keeps its tensor: a sum of the slices writes it,
  // and the identity sum_to_shape still reads it.
  tg::Graph kept = before;
  kept.captures.emplace_back("product", before.producer(dw->second).inputs[0]);
  const tg::Graph keptBefore = kept;
  tg::splitWeightGradients(kept, 0, 4);
  const tg::Op& identity = kept.producer(dw->second);
  ASSERT_EQ(identity.kind, tg::OpKind::SumToShape);
  EXPECT_EQ(identity.inputs[0], kept.captures.back().second);
  EXPECT_EQ(kept.producer(identity.inputs[0]).kind, tg::OpKind::SumToShape);
  for (const auto& [name, t] : keptBefore.captures) {
    const std::vector<float> a = values(keptBefore, t), b = values(kept, t);
    ASSERT_EQ(a.size(), b.size()) << name;
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(a[i], b[i], 1e-5 * (1 + std::abs(a[i]))) << name << "[" << i << "]";
  }
  // A count that does not divide K leaves the product whole; a negative one is refused.
  tg::Graph odd = before;
  tg::splitWeightGradients(odd, 0, 5);
  EXPECT_EQ(count(odd, tg::OpKind::MatmulBatched), 0u);
  EXPECT_THROW(tg::splitWeightGradients(odd, 0, -2), std::invalid_argument);
  // A forced count splits on a CPU device too.
  tg::Graph onCpu = before;
  tg::splitWeightGradients(onCpu, 0, 4, true);
  EXPECT_EQ(count(onCpu, tg::OpKind::MatmulBatched), 1u);
}

TEST(SplitWeightGradients, MatchesTheCpuOnTheDevice) {
  tg::Graph g = layerGraph(96);
  tg::splitWeightGradients(g, 0, 4);
  const tg::EmitOptions fast{.kernels = tg::KernelSet::Fast};
  // The permute of each slice folds into the batched product: no kernel transposes x.
  const tg::BufferPlan plan = tg::planBuffers(g, {}, {}, false, true);
  for (const tg::KernelSpec& k : tg::emitKernels(g, plan, fast))
    if (!k.wgsl.empty()) {
      EXPECT_NE(g.ops[static_cast<size_t>(k.opIndex)].kind, tg::OpKind::Permute);
    }
  const tg::EvalInputs env = tg_test::uniformParams(g, 5);
  for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
    tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 1e-4, 1e-4, fast, {}, false);
}

}  // namespace
