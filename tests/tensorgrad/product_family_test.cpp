// Product families (codegen/product_families.h): tiled products that differ only in K and in
// their epilogues run as one kernel, each member telling its K and epilogue by the workgroups
// its dispatch adds. Oracles: the CPU evaluator, on lavapipe through our stack and in Dawn for
// Node; and the kernels themselves (one WGSL a family, a dispatch of its own a member).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gpu_oracle.h"

namespace {

constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

// Two families of 1024 × 256 products in 64×32 blocks (128 of them): four with the rhs as it
// is, K 64 or 128, stored through a bias and ReLU, a residual (vec4 reads), nothing, and a head
// split (a permuted store); and two with the rhs transposed, one adding a residual.
tg::Graph familiesGraph() {
  return tg::traceFn([] {
    const tg::Tensor x1 = tg::paramInput("x1", {1024, 64});
    const tg::Tensor x2 = tg::paramInput("x2", {1024, 128});
    const tg::Tensor w1 = tg::paramInput("w1", {64, 256});
    const tg::Tensor w2 = tg::paramInput("w2", {128, 256});
    const tg::Tensor w3 = tg::paramInput("w3", {64, 256});
    const tg::Tensor w4 = tg::paramInput("w4", {128, 256});
    const tg::Tensor v1 = tg::paramInput("v1", {256, 64});
    const tg::Tensor v2 = tg::paramInput("v2", {256, 128});
    const tg::Tensor b = tg::paramInput("b", {256});
    const tg::Tensor r = tg::paramInput("r", {1024, 256});
    const tg::Tensor heads =
        tg::permute(tg::reshape(tg::matmul(x2, w4), {16, 64, 4, 64}), {0, 2, 1, 3});
    return std::vector<tg::Tensor>{
        tg::capture("relu", tg::relu(tg::add(tg::matmul(x1, w1), b))),
        tg::capture("residual", tg::add(tg::matmul(x2, w2), r)),
        tg::capture("plain", tg::matmul(x1, w3)),
        tg::capture("heads", heads),
        tg::capture("t_plain", tg::matmul(x1, tg::swapAxes(v1, -1, -2))),
        tg::capture("t_residual", tg::add(tg::matmul(x2, tg::swapAxes(v2, -1, -2)), r)),
    };
  });
}

TEST(ProductFamily, ProductsDifferingInKAndEpilogueShareOneKernel) {
  const tg::Graph g = familiesGraph();
  const tg::BufferPlan plan = tg::planBuffers(g, {}, {}, false, true);
  std::set<std::string> wgsl;
  std::set<int64_t> threads;
  size_t members = 0;
  for (const tg::KernelSpec& k : tg::emitKernels(g, plan, kFast)) {
    if (!k.wgsl.starts_with("// fast matmul family")) continue;
    ++members;
    wgsl.insert(k.wgsl);
    threads.insert(k.threads);
    EXPECT_NE(k.wgsl.find("tiled 64x32x16"), std::string::npos);
  }
  EXPECT_EQ(members, 6u);
  EXPECT_EQ(wgsl.size(), 2u);  // one kernel a family: products this short read no copies
  // 128 blocks of 128 invocations, and a workgroup more for each member after the first.
  EXPECT_EQ(threads, (std::set<int64_t>{128 * 128, 129 * 128, 130 * 128, 131 * 128}));
  // A CPU device's forms are not tiled: no family.
  for (const tg::KernelSpec& k :
       tg::emitKernels(g, plan, {.kernels = tg::KernelSet::Fast, .cpuDevice = true}))
    EXPECT_FALSE(k.wgsl.starts_with("// fast matmul family"));
}

TEST(ProductFamily, EveryMemberMatchesCpuOnLavapipeAndInDawn) {
  const tg::Graph g = familiesGraph();
  const tg::EvalInputs env = tg_test::uniformParams(g, 5);
  for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
    for (const bool pool : {true, false})
      tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 1e-4, 1e-4, kFast, {}, pool);
}

// A layer's forward product X·W and its input gradient dY·Wᵀ, 2^30 multiply-adds ×2 each: the
// gradient reads a transposed copy of W (a permute kernel of its own) and joins the forward's
// family.
tg::Graph layerGraph() {
  return tg::traceFn([] {
    const tg::Tensor x = tg::paramInput("x", {2048, 512});
    const tg::Tensor dy = tg::paramInput("dy", {2048, 512});
    const tg::Tensor w = tg::paramInput("w", {512, 512});
    const tg::Tensor b = tg::paramInput("b", {512});
    return std::vector<tg::Tensor>{
        tg::capture("forward", tg::relu(tg::add(tg::matmul(x, w), b))),
        tg::capture("input_grad", tg::matmul(dy, tg::swapAxes(w, -1, -2))),
    };
  });
}

TEST(ProductFamily, LongProductReadingAWeightTransposedReadsACopy) {
  const tg::Graph g = layerGraph();
  const tg::BufferPlan plan = tg::planBuffers(g, {}, {}, false, true);
  std::vector<std::string> kinds;
  std::set<std::string> wgsl;
  for (const tg::KernelSpec& k : tg::emitKernels(g, plan, kFast)) {
    if (k.wgsl.empty()) continue;  // leaves and ops computed in another kernel
    kinds.push_back(k.wgsl.substr(0, k.wgsl.find(':')));
    if (k.wgsl.starts_with("// fast matmul family")) wgsl.insert(k.wgsl);
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"// fast matmul family", "// fast transpose",
                                              "// fast matmul family"}));
  EXPECT_EQ(wgsl.size(), 1u);
  for (const tg::KernelSpec& k :
       tg::emitKernels(g, plan, {.kernels = tg::KernelSet::Fast, .cpuDevice = true}))
    EXPECT_FALSE(k.kind == tg::OpKind::Permute && !k.wgsl.empty());  // no family, so no copy
}

TEST(ProductFamily, ProductReadingACopyMatchesCpuOnLavapipeAndInDawn) {
  const tg::Graph g = layerGraph();
  const tg::EvalInputs env = tg_test::uniformParams(g, 7);
  for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
    tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 1e-4, 1e-4, kFast, {}, false);
}

}  // namespace
