// The fast kernel set's matmul (KernelSet::Fast) against the CPU evaluator, on lavapipe through
// our stack and in Dawn for Node, and the two GPUs against each other: the tilings chooseTiling
// picks for each product, then every tiling forced on one set of products (tiled 128×128, 128×64,
// 64×64, 64×32; split-K with 1 to 64 slices and 1×1 to 4×4 outputs an invocation), sliced K
// (two invocation groups on halves of K), then transpose folding. Shapes hit every tile edge (1,
// tile − 1, tile, tile + 1 along M and N, K below, at and past the k-tile), odd K, M and N
// (scalar loads) and multiples of 4 (vec4 loads), transposed lhs and rhs, lhs batch axes folded
// into rows, batched rhs.
//
// Tolerance: the GPU sums each output's K products in fp32 in tile or slice order (the driver
// may fuse multiply-adds), the evaluator in double. With inputs in [-1, 1] and K ≤ 70 the
// rounding error is at most K·2⁻²⁴·Σ|aᵢbᵢ| ≈ 2e-5; we allow 1e-4 absolute plus 1e-4 relative.
// For K up to 1100 that bound (≈ 2e-2) would hide an indexing error, so the long-K products use
// 3e-4 absolute plus 1e-4 relative: about ten times the random-walk estimate
// √K·2⁻²⁴·|partial sum| ≈ 2e-5 (the largest error seen on lavapipe and Dawn: see kLongAtol).
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "../../tensorgrad/src/ops/matmul_fast.h"
#include "default_device.h"
#include "gpu_oracle.h"
#include "random_values.h"
#include "tiling_name.h"

namespace {

constexpr double kRtol = 1e-4, kAtol = 1e-4;
constexpr double kLongAtol = 3e-4;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};
// The forms chosen for a CPU device (lavapipe): 4×4 outputs an invocation (1×4, 4×1 or 1×1 for
// products under 4 wide) in split blocks of one slice.
constexpr tg::EmitOptions kFastOnCpu{.kernels = tg::KernelSet::Fast, .cpuDevice = true};

struct Product {
  tg::Shape a, b;  // a rank-2 rhs is a matmul, a higher rank one a matmul_batched
  // The operand is stored with its last two axes swapped and multiplied through swapAxes (which
  // the fast set folds into the product).
  bool transA = false, transB = false;
};

tg::Shape swapLast(tg::Shape s) {
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
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
      const tg::Tensor a = tg::paramInput("a" + std::to_string(i), p.transA ? swapLast(p.a) : p.a);
      const tg::Tensor b = tg::paramInput("b" + std::to_string(i), p.transB ? swapLast(p.b) : p.b);
      outs.push_back(tg::capture("out" + std::to_string(i),
                                 tg::matmul(p.transA ? tg::swapAxes(a, -1, -2) : a,
                                            p.transB ? tg::swapAxes(b, -1, -2) : b)));
    }
    return outs;
  });
  for (size_t i = 0; i < products.size(); ++i) {
    const Product& p = products[i];
    const auto seed = static_cast<uint32_t>(2 * i);
    c.env.params["a" + std::to_string(i)] = tg::HostTensor::f32(
        p.transA ? swapLast(p.a) : p.a, test_support::uniformValues(tg::shapeSize(p.a), seed));
    c.env.params["b" + std::to_string(i)] = tg::HostTensor::f32(
        p.transB ? swapLast(p.b) : p.b, test_support::uniformValues(tg::shapeSize(p.b), seed + 1));
  }
  return c;
}

// Small products, as chooseTiling takes them: split-K blocks of 8×8 or 16×16, of 1×4, 4×1 or 1×1
// for matrix-vector products, and the column form for those whose vector runs along K.
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
      {{30, 517}, {517, 2}},       // a matrix-vector product (N < 4): 4×1 blocks, odd K: scalar loads
      {{1, 300}, {300, 36}},       // too few outputs for the column form: 1×4 blocks
      // The column form (v·M, Mᵀ·v, 1024 outputs or more): 2 vec4 lanes of 128 row lanes; an
      // edge in N, K short of one unrolled stride (300 < 4·128) and past it (1000); batched with a
      // batched rhs; K under 128 row lanes (wider blocks).
      {{1, 300}, {300, 1028}},
      {{1024, 1000}, {1000, 1}, true},
      {{2, 1, 130}, {2, 130, 512}},
      {{1, 100}, {100, 1024}},
  };
}

// Larger products, as chooseTiling takes them: split-K 16×16 blocks, tiled 128×64 and 128×128,
// outer products and products of K ≤ 16 in 16×64 blocks.
std::vector<Product> largeProducts() {
  return {
      {{4096, 1}, {1, 256}},             // an MLP's first layer
      {{4095, 1}, {1, 260}, false, true},  // its last layer's input gradient; edges in M and N
      {{2200, 20}, {20, 2050}},          // ≥ 264 blocks of 128×128: tiled 128×128
      {{1100, 20}, {20, 1998}},          // ≥ 264 blocks of 128×64: tiled 128×64
      {{4100, 12}, {12, 516}},           // K ≤ 16: 16×64 blocks, vec4 loads along K, edges
      {{1030, 6}, {6, 262}, false, true},  // the same, K not a multiple of 4, the rhs transposed
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
TEST(FastMatmul, CpuDeviceTilesMatchCpuOnLavapipeAndInDawn) {
  for (const auto& products : {smallProducts(), largeProducts()}) {
    const Case c = productsCase(products);
    for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
      tg_test::expectGpuMatchesCpu(backend, c.graph, {}, {}, c.env, kRtol, kAtol, kFastOnCpu);
  }
}
TEST(FastMatmul, DawnMatchesLavapipe) {
  expectDawnMatchesShim(productsCase(smallProducts()));
  expectDawnMatchesShim(productsCase(largeProducts()));
}

TEST(FastMatmul, ChooseTilingPicksEachForm) {
  using F = tg::detail::GemmTiling::Form;
  const auto pick = [](int64_t batches, int64_t m, int64_t k, int64_t n) {
    return tg::detail::chooseTiling({.batches = batches, .m = m, .k = k, .n = n, .batchedRhs = true});
  };
  EXPECT_EQ(pick(1, 4096, 4096, 4096).describe(), "tiled 128x128x8 8x8 lanes 16x2");
  EXPECT_EQ(pick(1, 1024, 256, 1024).describe(), "tiled 128x64x16 8x4 lanes 8x4");
  EXPECT_EQ(pick(1, 256, 1024, 1024).describe(), "tiled 64x32x32 4x4 lanes 16x2");  // 13 KiB: the default
  EXPECT_EQ(pick(1, 256, 256, 256).describe(), "splitk 16x16 4x4 s16");
  EXPECT_EQ(pick(1, 64, 1024, 64).describe(), "splitk 8x8 4x4 s64");  // a D64 weight gradient
  EXPECT_EQ(pick(512, 8, 16, 8).describe(), "splitk 8x8 1x1 s1");     // attention scores
  EXPECT_EQ(pick(1, 1024, 64, 64).describe(), "splitk 16x16 1x1 s1");  // short K: k order
  EXPECT_EQ(pick(512, 8, 100, 8).describe(), "splitk 8x8 2x2 s16");
  // The weight gradients of a 1-wide layer, contiguous along their outputs: the column form, two
  // vec4 lanes of 128 row lanes, wider where K is short.
  const auto column = [](int64_t m, int64_t k, int64_t n, bool transA, bool transB) {
    return tg::detail::chooseTiling(
        {.m = m, .k = k, .n = n, .transA = transA, .transB = transB});
  };
  EXPECT_EQ(column(1, 4096, 1024, true, false).describe(), "column 1x8 1x4 s128");
  EXPECT_EQ(column(1024, 4096, 1, true, false).describe(), "column 8x1 4x1 s128");
  EXPECT_EQ(column(1024, 4096, 1, true, true).describe(), "column 8x1 4x1 s128");
  EXPECT_EQ(column(1, 100, 1024, false, false).describe(), "column 1x16 1x4 s64");
  EXPECT_EQ(pick(2, 1, 4096, 512).describe(), "column 1x8 1x4 s128");  // 2 × 64 workgroups
  // Not contiguous along the outputs, not 4 wide, or under 128 workgroups: a workgroup on 4
  // outputs or 1.
  EXPECT_EQ(column(1, 4096, 1024, false, true).describe(), "splitk 1x4 1x4 s256");
  EXPECT_EQ(column(1024, 4096, 1, false, false).describe(), "splitk 4x1 4x1 s256");
  EXPECT_EQ(pick(1, 1, 4096, 1026).describe(), "splitk 1x4 1x4 s256");
  EXPECT_EQ(pick(1, 1, 4096, 64).describe(), "splitk 1x4 1x4 s256");
  EXPECT_EQ(column(256, 4096, 1, true, false).describe(), "splitk 4x1 4x1 s256");
  EXPECT_EQ(pick(1, 1, 256, 1).describe(), "splitk 1x1 1x1 s64");
  EXPECT_EQ(pick(1, 1, 1, 1).form, F::SplitK);
  // Outer products of at least 2²⁰ outputs: 16×64 blocks storing a vec4 an invocation.
  EXPECT_EQ(pick(1, 4096, 1, 1024).describe(), "splitk 16x64 1x4 s1");
  EXPECT_EQ(pick(1, 4096, 1, 256).describe(), "splitk 16x64 1x4 s1");
  EXPECT_NE(pick(1, 4096, 1, 64).describe(), "splitk 16x64 1x4 s1");
  // K of 2 to 16 the same way from 2¹⁸ outputs (an embedding's product with a one-hot input).
  EXPECT_EQ(pick(1, 4096, 12, 512).describe(), "splitk 16x64 1x4 s1");
  EXPECT_EQ(pick(1, 1024, 2, 256).describe(), "splitk 16x64 1x4 s1");
  EXPECT_EQ(pick(1, 4096, 16, 1024).describe(), "splitk 16x64 1x4 s1");
  EXPECT_NE(pick(1, 4096, 17, 1024).describe(), "splitk 16x64 1x4 s1");
  EXPECT_NE(pick(1, 1024, 12, 128).describe(), "splitk 16x64 1x4 s1");
  for (const auto& p : {pick(1, 4096, 4096, 4096), pick(1, 64, 1024, 64), pick(512, 8, 16, 8),
                        pick(1, 256, 256, 256), pick(1, 1, 1, 1), pick(1, 1, 4096, 64),
                        column(1, 100, 1024, false, false)})
    EXPECT_EQ(p.invalidReason(), "") << p.describe();
  // A lane layout must cut the invocation grid (16 × 8 for 64×32 blocks of 4×4) into patches
  // of 32.
  tg::detail::GemmTiling t{.form = F::Tiled, .bm = 64, .bn = 32, .bk = 16, .tm = 4, .tn = 4};
  for (const int64_t rows : {1, 2, 3, 64, -4}) {
    t.laneRows = rows;
    EXPECT_EQ(t.invalidReason(), "lane rows must tile the invocation grid by patches of 32") << rows;
  }
  for (const int64_t rows : {0, 4, 8, 16}) {
    t.laneRows = rows;
    EXPECT_EQ(t.invalidReason(), "") << rows;
  }
}

TEST(FastMatmul, ChooseTilingOnACpuDeviceTakesBlocksOf4x4InOneSlice) {
  const auto pick = [](int64_t batches, int64_t m, int64_t k, int64_t n) {
    return tg::detail::chooseTiling(
        {.batches = batches, .m = m, .k = k, .n = n, .batchedRhs = true, .cpuDevice = true});
  };
  // Whatever the depth: short K (a GPU's one output an invocation), long K (a GPU's slices),
  // outer products (a GPU's 16×64 blocks), products big enough for a GPU's 128×128 tiles.
  for (const int64_t k : {1, 64, 1024, 4096})
    EXPECT_EQ(pick(1, 1024, k, 1024).describe(), "splitk 16x16 4x4 s1") << k;
  EXPECT_EQ(pick(1, 64, 1024, 64).describe(), "splitk 16x16 4x4 s1");
  // Narrower products (per-head attention, a 1-wide layer): smaller blocks, still one slice, so
  // each output's sum stays in k order.
  EXPECT_EQ(pick(512, 8, 16, 8).describe(), "splitk 8x8 4x4 s1");
  EXPECT_EQ(pick(512, 8, 100, 8).describe(), "splitk 8x8 4x4 s1");
  EXPECT_EQ(pick(1, 15, 64, 4096).describe(), "splitk 8x16 4x4 s1");
  EXPECT_EQ(pick(1, 1, 4096, 64).describe(), "splitk 1x16 1x4 s1");
  EXPECT_EQ(pick(1, 64, 4096, 3).describe(), "splitk 16x1 4x1 s1");
  EXPECT_EQ(pick(1, 1, 1, 1).describe(), "splitk 1x1 1x1 s1");
  for (const auto& p : {pick(1, 1024, 64, 1024), pick(512, 8, 16, 8), pick(1, 1, 4096, 64),
                        pick(1, 1, 1, 1)})
    EXPECT_EQ(p.invalidReason(), "") << p.describe();
}

TEST(FastMatmul, ChooseTilingTakesADeeperKTileWhereTheDeviceHasTheRoom) {
  const auto pick = [](int64_t m, int64_t k, int64_t n, int64_t workgroupBytes, bool transA = false) {
    return tg::detail::chooseTiling(
        {.batches = 1, .m = m, .k = k, .n = n, .transA = transA, .workgroupBytes = workgroupBytes});
  };
  EXPECT_EQ(pick(4096, 1024, 1024, 16384).describe(), "tiled 128x128x8 8x8 lanes 16x2");  // WebGPU's default
  // 32 KiB (what lavapipe offers, though the runtime takes the CPU forms there) and an H100's
  // 48 KiB: 128 blocks of 128×256 (25 KiB).
  EXPECT_EQ(pick(4096, 1024, 1024, 32768).describe(), "tiled 128x256x16 8x16 lanes 4x8");
  EXPECT_EQ(pick(4096, 1024, 1024, 49152).describe(), "tiled 128x256x16 8x16 lanes 4x8");
  // 128×256 only in whole waves of 128 blocks: not 192 (4096 × 1536), not 64 (4096 × 512).
  EXPECT_EQ(pick(4096, 512, 2048, 49152).describe(), "tiled 128x256x16 8x16 lanes 4x8");
  // Fewer blocks of 128²: two K slices of 8×16 accumulators where K is a whole number of their
  // tiles (33 KiB), else K tiles of 32 (the same 33 KiB) for one slice of 8×8.
  EXPECT_EQ(pick(4096, 512, 1536, 49152).describe(), "tiled 128x128x16 8x16 lanes 4x8 s2");
  EXPECT_EQ(pick(4096, 520, 1536, 49152).describe(), "tiled 128x128x32 8x8 lanes 16x2");
  // 128 blocks of 128²: 128×64 under the default, 128×128 with the room.
  EXPECT_EQ(pick(4096, 2048, 512, 16384).describe(), "tiled 128x64x16 8x4 lanes 8x4");
  EXPECT_EQ(pick(4096, 2048, 512, 49152).describe(), "tiled 128x128x16 8x16 lanes 4x8 s2");
  EXPECT_EQ(pick(1024, 256, 1024, 32768).describe(), "tiled 128x64x32 8x4 lanes 8x4");
  EXPECT_EQ(pick(1024, 128, 1024, 32768).describe(), "tiled 128x64x16 8x4 lanes 8x4");   // short K
  EXPECT_EQ(pick(512, 1024, 512, 32768, true).describe(), "tiled 64x32x32 4x4 lanes 16x2");  // xᵀ·dy
  EXPECT_EQ(pick(512, 1024, 512, 32768).describe(), "tiled 64x32x32 4x4 lanes 16x2");
  EXPECT_EQ(pick(1024, 256, 256, 16384).describe(), "tiled 64x32x32 4x4 lanes 16x2");
  EXPECT_EQ(pick(1024, 64, 256, 49152).describe(), "tiled 64x32x16 4x4 lanes 16x2");      // short K
  for (const int64_t room : {16384, 32768, 49152}) {
    for (const auto& t : {pick(4096, 1024, 1024, room), pick(4096, 2048, 512, room),
                          pick(1024, 256, 1024, room), pick(512, 1024, 512, room, true)}) {
      EXPECT_EQ(t.invalidReason(room), "") << t.describe();
      if (room == 16384) {  // WebGPU's default
        EXPECT_EQ(t.invalidReason(), "") << t.describe();
      }
    }
  }
}

// Every tiling forced on products hitting its edges: tiles of 8 to 128 along M and N, K below,
// at and past BK, odd and vec4-aligned extents, both operands transposed or not, batches.
std::vector<Product> edgeProducts() {
  return {
      {{1, 1}, {1, 1}},
      {{129, 20}, {20, 127}},                  // M one past 128, N one short (scalar B and out)
      {{128, 16}, {16, 128}},                  // every extent a multiple of the largest tile
      {{65, 9}, {9, 63}, true},                // transposed lhs, M % 4 = 1: scalar loads
      {{64, 36}, {36, 64}, true, true},        // both transposed, vec4-aligned
      {{33, 17}, {17, 16}, false, true},       // transposed rhs, odd K
      {{2, 65, 12}, {2, 12, 63}, true, true},  // batched, both transposed
      {{3, 40, 12}, {12, 20}, true},           // transposed lhs with a shared rhs: no row folding
      {{2, 31, 8}, {8, 129}},                  // shared rhs: 62 rows folded
      {{132, 24}, {24, 68}, true},             // transposed lhs, vec4, edges past 128 and 64
  };
}

// Long K (weight-gradient-like and odd): what split-K exists for.
std::vector<Product> longKProducts() {
  return {
      {{16, 1100}, {1100, 24}, true},
      {{8, 1027}, {1027, 8}, true},
      {{24, 515}, {515, 16}},
      {{20, 600}, {600, 36}, false, true},
      {{2, 9, 300}, {2, 300, 5}},
  };
}

// Replaces each product's chosen kernel with `tiling`'s (which may use `workgroupBytes`); the
// i-th matmul kernel is product i's.
std::function<void(std::vector<tg::KernelSpec>&)> forceTiling(
    const std::vector<Product>& products, tg::detail::GemmTiling tiling,
    int64_t workgroupBytes = tg::detail::kDefaultWorkgroupBytes) {
  return [products, tiling, workgroupBytes](std::vector<tg::KernelSpec>& kernels) {
    size_t i = 0;
    for (tg::KernelSpec& k : kernels) {
      if (k.kind != tg::OpKind::Matmul && k.kind != tg::OpKind::MatmulBatched) continue;
      const Product& p = products.at(i++);
      // Folded permutes: the kernel computes them too.
      EXPECT_EQ(k.fusedOps.size(), p.transA || p.transB ? 1u + p.transA + p.transB : 0u);
      tg::detail::MatmulProblem mp{.batches = tg::shapeSize(p.a) / (p.a[p.a.size() - 2] * p.a.back()),
                                   .m = p.a[p.a.size() - 2],
                                   .k = p.a.back(),
                                   .n = p.b.back(),
                                   .batchedRhs = p.b.size() > 2,
                                   .transA = p.transA,
                                   .transB = p.transB,
                                   .workgroupBytes = workgroupBytes};
      const tg::detail::KernelSource src = tg::detail::fastMatmulKernel(mp, tiling);
      k.wgsl = src.wgsl;
      k.threads = src.threads;
      k.workgroupSize = src.workgroupSize;
    }
    EXPECT_EQ(i, products.size());
  };
}

class ForcedTiling : public testing::TestWithParam<tg::detail::GemmTiling> {};

}  // namespace

namespace tg::detail {
void PrintTo(const GemmTiling& t, std::ostream* os) {
  *os << t.describe();
}
}  // namespace tg::detail

namespace {

TEST_P(ForcedTiling, MatchesCpuOnLavapipe) {
  for (const auto& [products, atol] : {std::pair{edgeProducts(), kAtol}, {longKProducts(), kLongAtol}}) {
    const Case c = productsCase(products);
    tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kRtol, atol, kFast,
                                 forceTiling(products, GetParam()));
  }
}
TEST_P(ForcedTiling, MatchesCpuInDawn) {
  for (const auto& [products, atol] : {std::pair{edgeProducts(), kAtol}, {longKProducts(), kLongAtol}}) {
    const Case c = productsCase(products);
    tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, {}, {}, c.env, kRtol, atol, kFast,
                                 forceTiling(products, GetParam()));
  }
}

// The workgroup memory the shim's default device offers (maxComputeWorkgroupStorageSize); 0,
// with the device's error, without one.
int64_t shimWorkgroupRoom() {
  std::vector<std::string> errors;
  const test_support::DefaultDevice gpu = test_support::openDefaultDevice(errors);
  if (!gpu.device) {
    ADD_FAILURE() << (errors.empty() ? "no device" : errors.front());
    return 0;
  }
  wgpu::Limits limits;
  gpu.device.GetLimits(&limits);
  return limits.maxComputeWorkgroupStorageSize;
}

// K tiles of 32, chooseTiling's picks where the device has the workgroup memory: 128×64×32
// (25 KiB) and 64×32×32 within lavapipe's 32 KiB, 128×128×32 (33 KiB) on an H100 (it ran there,
// bench/RESULTS.md), and 128×128×16 (16.5 KiB); also 128×256×16 blocks of 8×16 (25 KiB); each run
// on the shim's device where its limit has the room.
TEST(FastMatmul, DeepKTilesMatchCpuOnTheDevice) {
  const int64_t room = shimWorkgroupRoom();
  ASSERT_GT(room, 0);
  ASSERT_GE(room, 16896);  // every Vulkan device the suite runs on (lavapipe, SwiftShader: 32 KiB)
  using F = tg::detail::GemmTiling::Form;
  for (const tg::detail::GemmTiling& t :
       {tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 128, .bk = 16, .tm = 8, .tn = 8},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 128, .bk = 32, .tm = 8, .tn = 8},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 64, .bk = 32, .tm = 8, .tn = 4},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 64, .bn = 32, .bk = 32, .tm = 4, .tn = 4},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 256, .bk = 16, .tm = 8, .tn = 16, .laneRows = 4}}) {
    if (t.workgroupBytes() > room) continue;
    for (const auto& [products, atol] : {std::pair{edgeProducts(), kAtol}, {longKProducts(), kLongAtol}}) {
      const Case c = productsCase(products);
      tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kRtol, atol,
                                   kFast, forceTiling(products, t, room));
    }
  }
}

// Sliced K: two groups of invocations each walk half of K through their own tiles and swap the
// partial sums of the rows the other stores. K a multiple of both halves' tiles (64, 96, 512 for
// BK 16; also 32 for BK 8), edges in M and N, both operand layouts, batches with a shared rhs
// (rows folded, and not, under a transposed lhs) and a batched one; on the shim's device (8×16
// accumulators as chooseTiling's 128×256 blocks have, and 8×8) and in Dawn (within WebGPU's
// default 16 KiB).
std::vector<Product> slicedKProducts() {
  return {
      {{129, 32}, {32, 127}},                  // M one past 128, N one short; K one tile a half
      {{128, 64}, {64, 128}},                  // every extent a tile multiple
      {{65, 96}, {96, 63}, true},              // transposed lhs, M % 4 = 1: scalar loads
      {{64, 64}, {64, 64}, true, true},        // both transposed, vec4-aligned
      {{2, 65, 64}, {2, 64, 63}, false, true}, // batched rhs, transposed
      {{3, 40, 64}, {64, 20}, true},           // transposed lhs with a shared rhs
      {{2, 31, 64}, {64, 129}},                // shared rhs: 62 rows folded
      {{132, 512}, {512, 68}, true},           // long K
  };
}

TEST(FastMatmul, SlicedKMatchesCpu) {
  const int64_t room = shimWorkgroupRoom();
  ASSERT_GT(room, 0);
  using F = tg::detail::GemmTiling::Form;
  const std::vector<Product> products = slicedKProducts();
  const Case c = productsCase(products);
  int ran = 0;
  for (const tg::detail::GemmTiling& t :
       {tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 16, .slices = 2, .laneRows = 4},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 128, .bk = 16, .tm = 8, .tn = 16, .slices = 2, .laneRows = 4},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 64, .bn = 64, .bk = 16, .tm = 8, .tn = 8, .slices = 2}}) {
    ASSERT_EQ(t.invalidReason(INT64_MAX), "") << t.describe();
    if (t.workgroupBytes() > room) continue;
    ++ran;
    tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kRtol, kLongAtol,
                                 kFast, forceTiling(products, t, room));
  }
  EXPECT_GE(ran, 2);
  const tg::detail::GemmTiling small{
      .form = F::Tiled, .bm = 64, .bn = 64, .bk = 8, .tm = 8, .tn = 8, .slices = 2};
  ASSERT_LE(small.workgroupBytes(), tg::detail::kDefaultWorkgroupBytes);
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, {}, {}, c.env, kRtol, kLongAtol,
                               kFast, forceTiling(products, small));
}

TEST(FastMatmul, SlicedKNeedsTwoSlicesHalvesOfRowsAndWholeTilesOfK) {
  using F = tg::detail::GemmTiling::Form;
  tg::detail::GemmTiling t{.form = F::Tiled, .bm = 64, .bn = 64, .bk = 8, .tm = 8, .tn = 8, .slices = 4};
  EXPECT_EQ(t.invalidReason(INT64_MAX), "tiled K slices must be 1 or 2");
  t = {.form = F::Tiled, .bm = 64, .bn = 64, .bk = 8, .tm = 4, .tn = 8, .slices = 2};
  EXPECT_EQ(t.invalidReason(), "sliced K needs TM a multiple of 8 (a half for each slice)");
  t = {.form = F::Tiled, .bm = 64, .bn = 64, .bk = 8, .tm = 8, .tn = 8, .slices = 2};
  EXPECT_EQ(t.invalidReason(), "");
  EXPECT_EQ(t.invocations(), 128);
  EXPECT_EQ(t.describe(), "tiled 64x64x8 8x8 s2");
  // K = 24 is not a whole tile of 8 for each half.
  EXPECT_EQ(tg::detail::kUnsupported({.m = 64, .k = 24, .n = 64}, t),
            "sliced K needs K a multiple of the slices' tiles");
  EXPECT_EQ(tg::detail::kUnsupported({.m = 64, .k = 32, .n = 64}, t), "");
  EXPECT_THROW(tg::detail::fastMatmulKernel({.m = 64, .k = 24, .n = 64}, t), std::logic_error);
  EXPECT_NO_THROW(tg::detail::fastMatmulKernel({.m = 64, .k = 32, .n = 64}, t));
}

using F = tg::detail::GemmTiling::Form;
INSTANTIATE_TEST_SUITE_P(
    FastMatmul, ForcedTiling,
    testing::Values(
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 8},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 64, .bk = 16, .tm = 8, .tn = 4},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 64, .bn = 64, .bk = 16, .tm = 4, .tn = 4},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 64, .bn = 32, .bk = 16, .tm = 4, .tn = 4},
        // Other patches of 32 invocations than chooseTiling's (4 × 8, 8 × 4).
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 8, .laneRows = 4},
        tg::detail::GemmTiling{.form = F::Tiled, .bm = 64, .bn = 64, .bk = 16, .tm = 4, .tn = 4, .laneRows = 8},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 16, .bn = 16, .tm = 4, .tn = 4, .slices = 16},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 16, .bn = 16, .tm = 2, .tn = 2, .slices = 4},
        // Blocks of one row, one column or one output: a whole workgroup on K.
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 1, .bn = 4, .tm = 1, .tn = 4, .slices = 256},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 4, .bn = 1, .tm = 4, .tn = 1, .slices = 256},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 1, .bn = 1, .tm = 1, .tn = 1, .slices = 256},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 8, .bn = 8, .tm = 4, .tn = 4, .slices = 64},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 8, .bn = 8, .tm = 2, .tn = 2, .slices = 16},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 32, .bn = 32, .tm = 4, .tn = 4, .slices = 4},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 64, .bn = 64, .tm = 4, .tn = 4, .slices = 1},
        tg::detail::GemmTiling{.form = F::SplitK, .bm = 16, .bn = 16, .tm = 1, .tn = 1, .slices = 1}),
    tilingName);

// Transpose folding: the permutes autograd writes for weight gradients (xᵀ·dy), input gradients
// (dy·Wᵀ) and attention (q·kᵀ) emit no kernel under the fast set; the products read the
// permutes' inputs transposed and still match the evaluator.
struct FoldCase {
  tg::Graph graph;
  tg::EvalInputs env;
};

FoldCase foldCase(bool captureTransposed) {
  FoldCase c;
  c.graph = tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {40, 12});
    const tg::Tensor w = tg::paramInput("w", {12, 20});
    const tg::Tensor dy = tg::paramInput("dy", {40, 20});
    const tg::Tensor q = tg::paramInput("q", {2, 3, 8, 5});
    const tg::Tensor k = tg::paramInput("k", {2, 3, 8, 5});
    const tg::Tensor xt = tg::swapAxes(tg::relu(x), -1, -2);  // an intermediate's transpose
    std::vector<tg::Tensor> outs{tg::capture("gw", tg::matmul(xt, dy)),
                                 tg::capture("gx", tg::matmul(dy, tg::swapAxes(w, -1, -2))),
                                 tg::capture("att", tg::matmul(q, tg::swapAxes(k, -1, -2)))};
    if (captureTransposed) outs.push_back(tg::capture("xt", xt));
    return outs;
  });
  const std::vector<std::pair<std::string, tg::Shape>> leaves = {
      {"x", {40, 12}}, {"w", {12, 20}}, {"dy", {40, 20}}, {"q", {2, 3, 8, 5}}, {"k", {2, 3, 8, 5}}};
  uint32_t seed = 20;
  for (const auto& [name, shape] : leaves)
    c.env.params[name] = tg::HostTensor::f32(shape, test_support::uniformValues(tg::shapeSize(shape), seed++));
  return c;
}

size_t permuteKernels(const tg::Graph& graph, tg::EmitOptions options) {
  size_t n = 0;
  for (const tg::KernelSpec& k : tg::emitKernels(graph, tg::planBuffers(graph, {}, {}), options))
    n += k.kind == tg::OpKind::Permute && !k.wgsl.empty();
  return n;
}

TEST(FastMatmul, FoldedTransposesEmitNoPermuteKernel) {
  const FoldCase c = foldCase(false);
  EXPECT_EQ(permuteKernels(c.graph, {}), 3u);  // upstream's set keeps every permute
  EXPECT_EQ(permuteKernels(c.graph, kFast), 0u);
  const tg::BufferPlan plan = tg::planBuffers(c.graph, {}, {});
  size_t folded = 0;
  for (const tg::KernelSpec& k : tg::emitKernels(c.graph, plan, kFast)) {
    if (k.kind != tg::OpKind::Matmul && k.kind != tg::OpKind::MatmulBatched) continue;
    ASSERT_EQ(k.fusedOps.size(), 2u);  // the permute, then the product
    const tg::Op& permute = c.graph.ops[static_cast<size_t>(k.fusedOps[0])];
    EXPECT_EQ(permute.kind, tg::OpKind::Permute);
    // The product binds the permute's input, not its (never written) output.
    const int source = plan.tensorToBuffer[static_cast<size_t>(permute.inputs[0])];
    EXPECT_TRUE(k.bindings[0] == source || k.bindings[1] == source);
    ++folded;
  }
  EXPECT_EQ(folded, 3u);
  for (const auto backend : {tg_test::Backend::Shim})
    tg_test::expectGpuMatchesCpu(backend, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}

TEST(FastMatmul, TransposeWithAnotherUseIsNotFolded) {
  const FoldCase c = foldCase(true);  // xᵀ is captured: it needs its buffer
  EXPECT_EQ(permuteKernels(c.graph, kFast), 1u);
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}

// The permute's source buffer is reused by a later op before the product runs: reading the
// source at the product would read the new occupant, so the permute must keep its kernel.
TEST(FastMatmul, TransposeOfAnOverwrittenBufferIsNotFolded) {
  tg::EvalInputs env;
  const tg::Graph graph = tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {24, 16});
    const tg::Tensor y = tg::paramInput("y", {24, 16});
    const tg::Tensor ht = tg::swapAxes(tg::relu(x), -1, -2);  // relu(x) dies at the permute
    const tg::Tensor e = tg::exp(y);                           // may take relu(x)'s buffer
    return std::vector<tg::Tensor>{tg::capture("p", tg::matmul(ht, e))};
  });
  env.params["x"] = tg::HostTensor::f32({24, 16}, test_support::uniformValues(24 * 16, 40));
  env.params["y"] = tg::HostTensor::f32({24, 16}, test_support::uniformValues(24 * 16, 41));
  const tg::BufferPlan plan = tg::planBuffers(graph, {}, {});
  const tg::Op& permute = graph.ops[static_cast<size_t>(
      std::find_if(graph.ops.begin(), graph.ops.end(),
                   [](const tg::Op& op) { return op.kind == tg::OpKind::Permute; }) -
      graph.ops.begin())];
  const tg::Op& exp = *std::find_if(graph.ops.begin(), graph.ops.end(),
                                    [](const tg::Op& op) { return op.kind == tg::OpKind::Exp; });
  // The planner does pool the two (else this test would test nothing).
  ASSERT_EQ(plan.tensorToBuffer[static_cast<size_t>(permute.inputs[0])],
            plan.tensorToBuffer[static_cast<size_t>(exp.out)]);
  EXPECT_EQ(permuteKernels(graph, kFast), 1u);
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, graph, {}, {}, env, kRtol, kAtol, kFast);
}

// Autograd's own graph for two linear layers: the weight gradients' xᵀ and the input gradient's
// Wᵀ fold into their products, and the identity sum_to_shape after each weight gradient folds
// into its matmul, which then writes the gradient's buffer itself.
TEST(FastMatmul, LinearGradientsFoldTransposesAndIdentitySums) {
  tg::Graph g = tg::traceFn([] {
    const tg::Tensor x = tg::paramInput("x", {40, 12});
    const tg::Tensor w1 = tg::paramInput("w1", {12, 24});
    const tg::Tensor w2 = tg::paramInput("w2", {24, 6});
    const tg::Tensor y = tg::matmul(tg::relu(tg::matmul(x, w1)), w2);
    return std::vector<tg::Tensor>{tg::sum(tg::mul(y, y))};
  });
  const tg::GradResult grads = tg::appendGrad(g);
  tg::EvalInputs env;
  env.params["x"] = tg::HostTensor::f32({40, 12}, test_support::uniformValues(480, 50));
  env.params["w1"] = tg::HostTensor::f32({12, 24}, test_support::uniformValues(288, 51));
  env.params["w2"] = tg::HostTensor::f32({24, 6}, test_support::uniformValues(144, 52));
  const tg::BufferPlan plan = tg::planBuffers(g, grads.paramGrads, {});
  const auto count = [&](tg::EmitOptions options, tg::OpKind kind) {
    size_t n = 0;
    for (const tg::KernelSpec& k : tg::emitKernels(g, plan, options))
      n += !k.wgsl.empty() && k.kind == kind;
    return n;
  };
  EXPECT_GT(count({}, tg::OpKind::Permute), 0u);
  EXPECT_GT(count({}, tg::OpKind::SumToShape), 0u);
  EXPECT_EQ(count(kFast, tg::OpKind::Permute), 0u);
  EXPECT_EQ(count(kFast, tg::OpKind::SumToShape), 0u);
  // Every param gradient's buffer is written by a fast matmul kernel standing at its copy.
  const auto kernels = tg::emitKernels(g, plan, kFast);
  for (const auto& [name, t] : grads.paramGrads) {
    const int buffer = plan.tensorToBuffer[static_cast<size_t>(t)];
    EXPECT_TRUE(std::any_of(kernels.begin(), kernels.end(), [&](const tg::KernelSpec& k) {
      return !k.bindings.empty() && k.bindings.back() == buffer && k.wgsl.starts_with("// fast matmul");
    })) << name;
  }
  for (const auto backend : {tg_test::Backend::Shim}) {
    tg_test::expectGpuMatchesCpu(backend, g, grads.paramGrads, {}, env, kRtol, kAtol, kFast);
    tg_test::expectGpuMatchesCpu(backend, g, grads.paramGrads, {}, env, kRtol, kAtol,
                                 {.fuseElementwise = true, .kernels = tg::KernelSet::Fast});
  }
}

}  // namespace
