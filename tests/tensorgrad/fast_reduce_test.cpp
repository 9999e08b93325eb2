// The fast kernel set's reductions (KernelSet::Fast: sum_last, mean_last, sum_to_shape) and
// row-wise softmaxes (log_softmax_last, softmax_causal_last) against the CPU evaluator, on
// lavapipe through our stack and in Dawn for Node. Shapes hit every edge of the geometries in
// reduce_fast.cpp: row lengths giving a thread per row (1, 3, 16), a slice of
// lanes per row (64, 257) and a workgroup per row (1000, 4097, 8192); row counts 1 and one below,
// at and one past the rows a workgroup covers; the strided loop's unrolled body and its tail;
// scalar and vec4 loads; column sums with 1, 2, 4 and 8 column lanes, partial column tiles,
// row counts around the 128 row-lanes, leading batch axes, broadcast-1 middle axes ([o, r, c] →
// [o, 1, c]), size-1 axes that change nothing (a copy), and the shapes left to upstream's kernel
// (two summed runs, short columns, i32); a grid of more than 65535 workgroups (2-D dispatch).
//
// Tolerance: every input is a multiple of 2⁻⁸ in [-1, 1] and no sum has more than 8192 terms,
// so every partial sum is a multiple of 2⁻⁸ below 2¹³ in magnitude: 21 significant bits, exact in
// f32 whatever the order of additions. Sums must therefore match the evaluator exactly; means add
// one f32 division (WGSL allows 2.5 ulp), hence rtol 1e-6 (≈ 8 ulp). A dropped, repeated or
// misplaced element moves a sum by at least 2⁻⁸, far outside that.
#include <gtest/gtest.h>

#include <random>

#include "gpu_oracle.h"

namespace {

constexpr double kRtol = 1e-6, kAtol = 0;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

enum class Op { Sum, Mean, SumToShape, LogSoftmax, SoftmaxCausal };

struct Reduction {
  Op op;
  tg::Shape in;
  tg::Shape target = {};  // sum_to_shape only
};

// Multiples of 2⁻⁸ in [-1, 1] (see the tolerance note).
std::vector<float> gridValues(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-256, 256);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(d(rng)) / 256.0f;
  return v;
}

struct Case {
  tg::Graph graph;
  tg::EvalInputs env;
};

// One graph computing every reduction, each captured so it keeps its own buffer.
Case reductionsCase(const std::vector<Reduction>& reductions) {
  Case c;
  c.graph = tg::traceFn([&] {
    std::vector<tg::Tensor> outs;
    for (size_t i = 0; i < reductions.size(); ++i) {
      const Reduction& r = reductions[i];
      const tg::Tensor a = tg::paramInput("a" + std::to_string(i), r.in);
      const tg::Tensor y = r.op == Op::Sum             ? tg::sum(a, -1)
                           : r.op == Op::Mean          ? tg::mean(a, -1, {.keepDims = true})
                           : r.op == Op::LogSoftmax    ? tg::logSoftmax(a, -1)
                           : r.op == Op::SoftmaxCausal ? tg::softmaxCausal(a, -1)
                                                       : tg::sumToShape(a, r.target);
      outs.push_back(tg::capture("out" + std::to_string(i), y));
    }
    return outs;
  });
  for (size_t i = 0; i < reductions.size(); ++i) {
    const tg::Shape& s = reductions[i].in;
    c.env.params["a" + std::to_string(i)] =
        tg::HostTensor::f32(s, gridValues(tg::shapeSize(s), static_cast<uint32_t>(i)));
  }
  return c;
}

// Row reductions. A thread per row when a row is at most 4 loads (length ≤ 4, or ≤ 16 in vec4s);
// otherwise lanes per row ≈ a quarter of the row's loads, doubled while there are under 264
// workgroups, capped at 256 (a workgroup per row).
std::vector<Reduction> rowReductions() {
  return {
      {Op::Sum, {5, 1}},    // length 1: thread per row
      {Op::Sum, {300, 3}},  // scalar thread per row, 256 + 44 rows: a partial workgroup
      {Op::Mean, {7, 3}},   // means with a thread per row, scalar and vec4
      {Op::Mean, {2, 4, 16}},
      {Op::Sum, {255, 16}},  // vec4 thread per row: 256 rows per workgroup − 1, =, + 1
      {Op::Sum, {256, 16}},
      {Op::Sum, {257, 16}},
      {Op::Sum, {1, 17}},     // scalar, 1 row
      {Op::Sum, {1024, 64}},  // vec4, 16 lanes per row (16 rows per workgroup)
      {Op::Mean, {1024, 64}},
      {Op::Sum, {3, 256}},  // vec4, 64 lanes: 4 rows per workgroup − 1, =, + 1
      {Op::Sum, {4, 256}},
      {Op::Mean, {5, 256}},
      {Op::Sum, {1000, 257}},    // scalar, 128 lanes: 3 strided loads per lane, the last guarded
      {Op::Sum, {1, 1000}},      // vec4 workgroup per row, one guarded load per lane
      {Op::Mean, {3, 4097}},     // scalar workgroup per row: the unrolled loop and its tail
      {Op::Sum, {3, 4001}},      // the last unrolled block stops 1..3 trips short of the end
      {Op::Sum, {2, 8192}},      // vec4 workgroup per row, unrolled loop without a tail
      {Op::Sum, {2, 3, 5, 17}},  // leading batch axes
      {Op::Mean, {2, 3, 1, 40}},
      {Op::Sum, {130, 1024}},  // the models' row length, 256 lanes
      {Op::Sum, {4096}},       // a full sum (the loss) is a single row
  };
}

// sum_to_shape: [outer, rows, cols] → [outer, cols] after dropping size-1 axes. Column lanes
// start at 2 (vec4) or 8 (scalar) and widen while the 256 / lanes row-lanes outnumber the rows.
std::vector<Reduction> sumToShapes() {
  return {
      {Op::SumToShape, {1024, 64}, {64}},  // bias grad: vec4, 2 column lanes, 8 trips
      {Op::SumToShape, {1024, 64}, {1, 64}},
      {Op::SumToShape, {1000, 65}, {65}},  // scalar, 8 lanes, last column tile partial
      {Op::SumToShape, {127, 8}, {8}},     // 128 row-lanes − 1, =, + 1
      {Op::SumToShape, {128, 8}, {8}},
      {Op::SumToShape, {129, 8}, {8}},
      {Op::SumToShape, {33, 1024}, {1024}},       // 33 rows: lanes widen to 8 (32 row-lanes)
      {Op::SumToShape, {2, 20, 12}, {12}},        // leading batch axes merge into 40 rows
      {Op::SumToShape, {4, 37, 12}, {4, 1, 12}},  // broadcast-1 middle axis: outer 4
      {Op::SumToShape, {3, 50, 255}, {3, 1, 255}},
      {Op::SumToShape, {2, 40, 256}, {2, 1, 256}},
      {Op::SumToShape, {2, 40, 257}, {2, 1, 257}},
      {Op::SumToShape, {2, 1, 40, 1, 8}, {1, 1, 8}},  // size-1 axes in between
      {Op::SumToShape, {6, 10}, {6, 1}},              // a row sum: kept then summed
      {Op::SumToShape, {3, 7, 300}, {1}},             // everything: one row of 6300
      {Op::SumToShape, {1, 64}, {64}},                // nothing summed: a vec4 copy
      {Op::SumToShape, {5, 7}, {5, 7}},               // identity: a scalar copy
      {Op::SumToShape, {1, 4, 1, 8}, {4, 1, 8}},
      {Op::SumToShape, {5, 6, 10}, {6, 1}},  // two summed runs: upstream's kernel
      {Op::SumToShape, {2, 1024}, {1024}},   // 2 rows: upstream's kernel
  };
}

// Row-wise softmaxes, on the row reductions' lanes with scalar loads: a thread per row up to
// length 4, else about a quarter of the row per lane, widened while workgroups are few.
std::vector<Reduction> softmaxes() {
  return {
      {Op::LogSoftmax, {5, 1}},  // a thread per row
      {Op::LogSoftmax, {300, 3}},
      {Op::LogSoftmax, {7, 16}},        // 16 lanes (widened: one workgroup)
      {Op::LogSoftmax, {1024, 64}},     // 64 lanes, 4 rows per workgroup
      {Op::LogSoftmax, {600, 300}},     // 128 lanes, 2 rows per workgroup, 300 workgroups
      {Op::LogSoftmax, {3, 257}},       // 256 lanes, one column past a lane multiple
      {Op::LogSoftmax, {2, 4097}},      // 256 lanes, 17 columns per lane
      {Op::LogSoftmax, {2, 3, 5, 17}},  // leading batch axes
      {Op::SoftmaxCausal, {4, 1, 1}},   // one-column squares: a thread per row
      {Op::SoftmaxCausal, {2, 3, 3}},
      {Op::SoftmaxCausal, {128, 8, 8}},  // the transformer's attention (B·H = 128, T = 8)
      {Op::SoftmaxCausal, {1, 17, 17}},
      {Op::SoftmaxCausal, {2, 2, 64, 64}},
      {Op::SoftmaxCausal, {300, 300}},  // 256 lanes: early rows leave most lanes idle
  };
}

std::vector<std::string> fastKernelHeaders(const tg::Graph& graph, tg::EmitOptions options) {
  const tg::BufferPlan plan = tg::planBuffers(graph, {}, {});
  std::vector<std::string> heads;
  for (const tg::KernelSpec& k : tg::emitKernels(graph, plan, options)) {
    if (k.wgsl.starts_with("// fast ")) heads.push_back(k.wgsl.substr(0, k.wgsl.find('\n')));
  }
  return heads;
}

size_t countContaining(const std::vector<std::string>& heads, const std::string& s) {
  size_t n = 0;
  for (const std::string& h : heads) n += h.find(s) != std::string::npos;
  return n;
}

TEST(FastReduce, EveryGeometryIsExercised) {
  const auto rows = fastKernelHeaders(reductionsCase(rowReductions()).graph, kFast);
  EXPECT_EQ(countContaining(rows, "fast row reduce"), rowReductions().size());
  for (const char* g :
       {" 1 lanes per row, scalar", " 1 lanes per row, vec4", " 16 lanes per row, vec4",
        " 32 lanes per row, scalar", " 64 lanes per row, vec4", " 128 lanes per row, scalar",
        " 256 lanes per row, scalar", " 256 lanes per row, vec4"})
    EXPECT_GE(countContaining(rows, g), 1u) << g;

  const auto cols = fastKernelHeaders(reductionsCase(sumToShapes()).graph, kFast);
  const size_t copies = countContaining(cols, "(copy)");
  const size_t columns = countContaining(cols, "fast column reduce");
  const size_t rowSums = countContaining(cols, "fast row reduce");
  EXPECT_EQ(copies, 3u);
  EXPECT_EQ(rowSums, 2u);
  EXPECT_EQ(columns + copies + rowSums, sumToShapes().size() - 2);  // two stay upstream's
  for (const char* g : {" 2 column lanes, vec4", " 4 column lanes, vec4", " 8 column lanes, vec4",
                        " 8 column lanes, scalar", "[4, 37, 12]", "[1, 80, 8]"})
    EXPECT_GE(countContaining(cols, g), 1u) << g;

  const auto soft = fastKernelHeaders(reductionsCase(softmaxes()).graph, kFast);
  EXPECT_EQ(
      countContaining(soft, "fast log_softmax") + countContaining(soft, "fast softmax_causal"),
      softmaxes().size());
  for (const char* g :
       {" 1 lanes per row,", " 16 lanes per row,", " 128 lanes per row,", " 256 lanes per row,"})
    EXPECT_GE(countContaining(soft, g), 1u) << g;

  // The default set stays upstream's.
  EXPECT_TRUE(fastKernelHeaders(reductionsCase(softmaxes()).graph, {}).empty());
  EXPECT_TRUE(fastKernelHeaders(reductionsCase(rowReductions()).graph, {}).empty());
  EXPECT_TRUE(fastKernelHeaders(reductionsCase(sumToShapes()).graph, {}).empty());
}

TEST(FastReduce, RowReductionsMatchCpuOnLavapipe) {
  const Case c = reductionsCase(rowReductions());
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}
TEST(FastReduce, SumToShapeMatchesCpuOnLavapipe) {
  const Case c = reductionsCase(sumToShapes());
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}
TEST(FastReduce, RowReductionsMatchCpuInDawn) {
  const Case c = reductionsCase(rowReductions());
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}
TEST(FastReduce, SumToShapeMatchesCpuInDawn) {
  const Case c = reductionsCase(sumToShapes());
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}

// Softmax tolerance: not exact like the sums. With inputs in [-1, 1], |x − max| ≤ 2, so each
// exp is within WGSL's 3 + 2·2 = 7 ulp (4.2e-7 relative); Σ exp has at most 4097 positive terms
// added along chains of at most ~30 additions (strided loop, then a tree of ≤ 8 levels), ≤ 30 ·
// 2⁻²⁴ ≈ 1.8e-6 relative; log adds 3 ulp and the final subtraction 1 ulp of |log Σ| ≤ 9.
// So log-softmax is within ~5e-6 absolute: atol 1e-5 (rtol 1e-5 on top). A lost or doubled term
// moves log Σ by at least e⁻²/4097 ≈ 3.3e-5. Softmax's probabilities carry the same relative
// error plus one division: rtol 1e-5, atol 1e-7 (below the smallest probability's 1e-5 share).
constexpr double kSoftRtol = 1e-5, kLogSoftAtol = 1e-5, kSoftAtol = 1e-7;

Case logSoftmaxCase() {
  std::vector<Reduction> r;
  for (const Reduction& x : softmaxes())
    if (x.op == Op::LogSoftmax) r.push_back(x);
  return reductionsCase(r);
}
Case softmaxCausalCase() {
  std::vector<Reduction> r;
  for (const Reduction& x : softmaxes())
    if (x.op == Op::SoftmaxCausal) r.push_back(x);
  return reductionsCase(r);
}

TEST(FastReduce, LogSoftmaxMatchesCpuOnLavapipe) {
  const Case c = logSoftmaxCase();
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kSoftRtol,
                               kLogSoftAtol, kFast);
}
TEST(FastReduce, LogSoftmaxMatchesCpuInDawn) {
  const Case c = logSoftmaxCase();
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, {}, {}, c.env, kSoftRtol,
                               kLogSoftAtol, kFast);
}
TEST(FastReduce, SoftmaxCausalMatchesCpuOnLavapipe) {
  const Case c = softmaxCausalCase();
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kSoftRtol, kSoftAtol,
                               kFast);
}
TEST(FastReduce, SoftmaxCausalMatchesCpuInDawn) {
  const Case c = softmaxCausalCase();
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, {}, {}, c.env, kSoftRtol, kSoftAtol,
                               kFast);
}

// i32 sum_to_shape is left to upstream's kernel (integer sums need no new geometry here).
TEST(FastReduce, IntegerSumToShapeStaysUpstream) {
  const tg::Graph g = tg::traceFn([] {
    return std::vector<tg::Tensor>{
        tg::capture("out", tg::sumToShape(tg::paramInput("a", {300, 8}, tg::Dtype::I32), {8}))};
  });
  EXPECT_TRUE(fastKernelHeaders(g, kFast).empty());
}

// 66000 workgroups: past 65535, the dispatch is a 2-D grid whose last row is partly empty.
TEST(FastReduce, TwoDimensionalGrid) {
  const Case c = reductionsCase({{Op::SumToShape, {66000, 32, 4}, {66000, 1, 4}}});
  const auto heads = fastKernelHeaders(c.graph, kFast);
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_NE(heads[0].find(" 1 column lanes"), std::string::npos) << heads[0];
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, {}, {}, c.env, kRtol, kAtol, kFast);
}
}  // namespace
