// The fast kernel set's matmul (KernelSet::Fast) against the CPU evaluator, on lavapipe through
// our stack and in Dawn for Node, and the two GPUs against each other. Shapes hit every tile
// edge: 1, tile − 1, tile, tile + 1 along M and N for both tilings (32×32 for small products,
// 64×64 once there are 128 blocks), K below, at and past the 16-deep k-tile, odd K and N (scalar
// loads) and multiples of 4 (vec4 loads), lhs batch axes folded into rows, batched rhs.
//
// Tolerance: the GPU sums each output's K products in fp32 in tile order (the driver may fuse
// multiply-adds), the evaluator in double. With inputs in [-1, 1] and K ≤ 70 the rounding error
// is at most K·2⁻²⁴·Σ|aᵢbᵢ| ≈ 2e-5; we allow 1e-4 absolute plus 1e-4 relative.
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "gpu_oracle.h"

namespace {

constexpr double kRtol = 1e-4, kAtol = 1e-4;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

struct Product {
  tg::Shape a, b;  // a rank-2 rhs is a matmul, a higher rank one a matmul_batched
};

std::vector<float> randomValues(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(rng);
  return v;
}

struct Case {
  tg::Graph graph;
  tg::EvalInputs env;
};

// One graph computing every product, each captured so it keeps its own buffer.
Case productsCase(const std::vector<Product>& products) {
  Case c;
  c.graph = tg::traceFn([&] {
    std::vector<tg::Tensor> outs;
    for (size_t i = 0; i < products.size(); ++i) {
      const Product& p = products[i];
      const tg::Tensor a = tg::paramInput("a" + std::to_string(i), p.a);
      const tg::Tensor b = tg::paramInput("b" + std::to_string(i), p.b);
      outs.push_back(tg::capture("out" + std::to_string(i), tg::matmul(a, b)));
    }
    return outs;
  });
  for (size_t i = 0; i < products.size(); ++i) {
    const Product& p = products[i];
    const auto seed = static_cast<uint32_t>(2 * i);
    c.env.params["a" + std::to_string(i)] =
        tg::HostTensor::f32(p.a, randomValues(tg::shapeSize(p.a), seed));
    c.env.params["b" + std::to_string(i)] =
        tg::HostTensor::f32(p.b, randomValues(tg::shapeSize(p.b), seed + 1));
  }
  return c;
}

// Small products: 32×32 tiles, 2×2 per invocation.
std::vector<Product> smallProducts() {
  return {
      {{1, 1}, {1, 1}},
      {{31, 17}, {17, 33}},
      {{32, 16}, {16, 32}},
      {{33, 15}, {15, 31}},
      {{33, 20}, {20, 36}},            // K and N multiples of 4: vec4 loads, edges in M and N
      {{2, 3, 5}, {5, 7}},             // lhs batch axes folded into rows
      {{3, 33, 17}, {17, 31}},
      {{2, 33, 17}, {2, 17, 31}},
      {{3, 1, 32}, {3, 32, 1}},
      {{2, 2, 9, 5}, {2, 2, 5, 3}},
      {{2, 40, 64}, {2, 64, 12}},  // vec4 loads, K a multiple of the k-tile
  };
}

// Products with at least 128 blocks of 64×64: 64×64 tiles, 4×4 per invocation.
std::vector<Product> largeProducts() {
  return {
      {{4097, 19}, {19, 129}},           // M and N one past a tile multiple, odd K: scalar loads
      {{63 * 64 + 63, 20}, {20, 127}},   // M and N one short of a tile multiple
      {{4096, 32}, {32, 128}},           // every dimension a tile multiple: no bounds checks
      {{128, 65, 17}, {128, 17, 63}},
      {{130, 64, 70}, {130, 70, 64}},
  };
}

size_t fastMatmulKernels(const tg::Graph& graph) {
  const tg::BufferPlan plan = tg::planBuffers(graph, {}, {});
  size_t n = 0;
  for (const tg::KernelSpec& k : tg::emitKernels(graph, plan, kFast))
    n += k.wgsl.starts_with("// fast matmul");
  return n;
}

// Runs the fast kernels in Dawn and on lavapipe and compares every f32 buffer.
void expectDawnMatchesShim(const Case& c) {
  const tg::BufferPlan plan = tg::planBuffers(c.graph, {}, {});
  const auto kernels = tg::emitKernels(c.graph, plan, kFast);
  const tg_test::GpuRun dawn = tg_test::runOnDawn(plan, kernels, c.env);
  const tg_test::GpuRun shim = tg_test::runOnShim(plan, kernels, c.env);
  for (const auto& e : dawn.errors) ADD_FAILURE() << "dawn: " << e;
  for (const auto& e : shim.errors) ADD_FAILURE() << "shim: " << e;
  if (!dawn.errors.empty() || !shim.errors.empty()) return;
  for (const tg::BufferSpec& b : plan.buffers) {
    const auto& d = dawn.buffers[static_cast<size_t>(b.id)];
    const auto& s = shim.buffers[static_cast<size_t>(b.id)];
    ASSERT_EQ(d.size(), s.size()) << "buffer " << b.id;
    int reported = 0;
    for (size_t i = 0; i < d.size() && reported < 5; ++i) {
      const double x = std::bit_cast<float>(d[i]), y = std::bit_cast<float>(s[i]);
      if (!(std::abs(x - y) <= kAtol + kRtol * std::abs(y))) {
        ADD_FAILURE() << "buffer " << b.id << " (" << b.name << ") element " << i << ": dawn " << x
                      << " vs shim " << y;
        ++reported;
      }
    }
  }
}

TEST(FastMatmul, EveryProductUsesTheFastKernel) {
  const auto small = smallProducts(), large = largeProducts();
  EXPECT_EQ(fastMatmulKernels(productsCase(small).graph), small.size());
  EXPECT_EQ(fastMatmulKernels(productsCase(large).graph), large.size());
  // The default set stays upstream's.
  const tg::Graph g = productsCase(small).graph;
  for (const tg::KernelSpec& k : tg::emitKernels(g, tg::planBuffers(g, {}, {})))
    EXPECT_FALSE(k.wgsl.starts_with("// fast matmul"));
}

TEST(FastMatmul, SmallTilesMatchCpuOnLavapipe) {
  const Case c = productsCase(smallProducts());
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}
TEST(FastMatmul, LargeTilesMatchCpuOnLavapipe) {
  const Case c = productsCase(largeProducts());
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}
TEST(FastMatmul, SmallTilesMatchCpuInDawn) {
  const Case c = productsCase(smallProducts());
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}
TEST(FastMatmul, LargeTilesMatchCpuInDawn) {
  const Case c = productsCase(largeProducts());
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}
TEST(FastMatmul, DawnMatchesLavapipe) {
  expectDawnMatchesShim(productsCase(smallProducts()));
  expectDawnMatchesShim(productsCase(largeProducts()));
}

}  // namespace
