// The fast set's transpose (ops/transpose_fast.h): a permute swapping the last two axes, moved
// in 32 × 32 tiles through workgroup memory. It moves values, so the oracle is exact: the CPU
// evaluator, on lavapipe through our stack and in Dawn for Node.
#include <gtest/gtest.h>

#include <string>

#include "gpu_oracle.h"

namespace {

constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

// Captured transposes (so none folds into a product): tiles cut at both edges over batches, a
// square of whole tiles, integers, and shapes under a tile or permuting other axes, which keep
// upstream's kernel.
tg::Graph transposesGraph() {
  return tg::traceFn([] {
    return std::vector<tg::Tensor>{
        tg::capture("edges", tg::swapAxes(tg::paramInput("a", {3, 37, 70}), -1, -2)),
        tg::capture("square", tg::swapAxes(tg::paramInput("b", {64, 64}), -1, -2)),
        tg::capture("ints",
                    tg::swapAxes(tg::paramInput("c", {2, 1, 40, 33}, tg::Dtype::I32), -1, -2)),
        tg::capture("thin", tg::swapAxes(tg::paramInput("d", {5, 200}), -1, -2)),
        tg::capture("outer", tg::permute(tg::paramInput("e", {40, 36, 2}), {1, 0, 2})),
    };
  });
}

TEST(FastTranspose, TakesSwapsOfTheLastTwoAxesOfATileOrMore) {
  const tg::Graph g = transposesGraph();
  const tg::BufferPlan plan = tg::planBuffers(g, {}, {}, false, true);
  std::vector<std::string> tiled;
  size_t permutes = 0;
  for (const tg::KernelSpec& k : tg::emitKernels(g, plan, kFast)) {
    if (k.kind != tg::OpKind::Permute) continue;
    ++permutes;
    if (k.wgsl.starts_with("// fast transpose"))
      tiled.push_back(k.wgsl.substr(0, k.wgsl.find('\n')));
  }
  EXPECT_EQ(permutes, 5u);
  EXPECT_EQ(
      tiled,
      (std::vector<std::string>{
          "// fast transpose: [3, 37, 70] to its last two axes swapped, a 32x32 tile a workgroup",
          "// fast transpose: [1, 64, 64] to its last two axes swapped, a 32x32 tile a workgroup",
          "// fast transpose: [2, 40, 33] to its last two axes swapped, a 32x32 tile a "
          "workgroup"}));
}

TEST(FastTranspose, MatchesCpuExactlyOnLavapipeAndInDawn) {
  const tg::Graph g = transposesGraph();
  tg::EvalInputs env = tg_test::uniformParams(g, 11);
  std::vector<int32_t> ints(2 * 40 * 33);
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int32_t>(i * 2654435761u);
  env.params["c"] = tg::HostTensor::i32({2, 1, 40, 33}, std::move(ints));
  for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
    tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 0.0, 0.0, kFast);
}

}  // namespace
