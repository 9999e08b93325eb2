// Element-wise fusion across a DAG (codegen/fuse_elementwise.h): a value read by two members of
// one group, a scalar chain broadcast into a group, a constant as a literal; and the fast set's
// relu_grad rewrite (readReluGradsFromOutputs), which lets a ReLU fold into its matmul's store;
// reductions that compute their element-wise input themselves (codegen/fold_prologue.h).
// Oracles: the CPU evaluator (the rewrite bit for bit, the kernels within fp32 rounding on
// lavapipe and in Dawn).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "gpu_oracle.h"
#include "random_values.h"

namespace {

constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

size_t kernelsRun(const tg::Graph& graph, const tg::EmitOptions& options) {
  const tg::BufferPlan plan = tg::planBuffers(graph, {}, {}, false, true);
  size_t n = 0;
  for (const tg::KernelSpec& k : tg::emitKernels(graph, plan, options)) n += !k.wgsl.empty();
  return n;
}

// The gradient of mean(d·d) as autograd writes it: a seed constant scaled by 1/size, broadcast,
// then the product rule g·d + d·g, which reads g twice.
tg::Graph productRuleGraph(int64_t rows, int64_t cols) {
  return tg::traceFn([&] {
    const tg::Tensor d = tg::paramInput("d", {rows, cols});
    const tg::Tensor seed = tg::mulScalar(tg::constScalar(1.0), 1.0 / static_cast<double>(rows * cols));
    const tg::Tensor g = tg::broadcastTo(tg::reshape(seed, {1, 1}), {rows, cols});
    return std::vector<tg::Tensor>{tg::capture("grad", tg::add(tg::mul(g, d), tg::mul(d, g)))};
  });
}

TEST(ElementwiseFusion, AValueReadTwiceInOneGroupStaysInRegisters) {
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{37, 5}, {64, 4}}) {
    const tg::Graph g = productRuleGraph(rows, cols);
    // The constant, its scale, reshape and broadcast, both products and the sum: one kernel,
    // with fusion on in either kernel set.
    EXPECT_EQ(kernelsRun(g, kFast), 1u);
    EXPECT_EQ(kernelsRun(g, {.fuseElementwise = true}), 1u);
    EXPECT_GT(kernelsRun(g, {}), 1u);  // upstream's kernel list: one an op
    tg::EvalInputs env;
    env.params["d"] = tg::HostTensor::f32({rows, cols}, test_support::uniformValues(rows * cols, 7));
    for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn}) {
      tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 1e-6, 0, kFast, {}, false);
      tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 1e-6, 0, {.fuseElementwise = true});
    }
  }
}

// Reductions of element-wise values: a variance's squared deviations (rows of 20: vec4 loads), a
// row sum of exp over 6 (scalar loads), a gain's gradient x·tanh(x) summed over the rows (a
// column sum), and the same over 8 rows, too short for the fast column form.
tg::Graph reductionsGraph(int64_t rows) {
  return tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {rows, 20});
    const tg::Tensor m = tg::paramInput("m", {rows, 1});
    const tg::Tensor y = tg::paramInput("y", {rows, 6});
    const tg::Tensor d = tg::sub(x, m);
    const tg::Tensor head = tg::paramInput("head", {8, 20});
    return std::vector<tg::Tensor>{
        tg::capture("var", tg::mean(tg::mul(d, d), -1)),
        tg::capture("sumexp", tg::sum(tg::exp(y), -1)),
        tg::capture("gain", tg::sumToShape(tg::mul(x, tg::tanh(x)), {20})),
        tg::capture("short", tg::sumToShape(tg::mul(head, head), {20}))};
  });
}

TEST(ReductionPrologue, AReductionComputesTheGroupThatAloneFeedsIt) {
  const tg::Graph g = reductionsGraph(37);
  // Three reductions take their group in; the short column sum keeps its mul kernel.
  const tg::BufferPlan plan = tg::planBuffers(g, {}, {}, false, true);
  size_t withPrologue = 0, run = 0;
  for (const tg::KernelSpec& k : tg::emitKernels(g, plan, kFast)) {
    run += !k.wgsl.empty();
    withPrologue += k.wgsl.find("fn prologue(") != std::string::npos;
  }
  EXPECT_EQ(withPrologue, 3u);
  // The three, the short sum and its mul, and the copy of the mean into the captured [37] (a
  // captured reshape has a buffer of its own).
  EXPECT_EQ(run, 6u);
  const tg::EvalInputs env = tg_test::uniformParams(g, 21);
  for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
    tg_test::expectGpuMatchesCpu(backend, g, {}, {}, env, 1e-5, 1e-6, kFast, {}, false);
}

// loss = sum(relu(p) · w): the gradient reaching p is relu_grad(p, w).
tg::Graph reluGraph(int64_t n) {
  tg::Graph g = tg::traceFn([&] {
    const tg::Tensor p = tg::paramInput("p", {n});
    const tg::Tensor w = tg::paramInput("w", {n});
    return std::vector<tg::Tensor>{tg::sum(tg::mul(tg::relu(p), w))};
  });
  for (const auto& [name, t] : tg::appendGrad(g).paramGrads)
    if (name == "p") g.captures.emplace_back("dp", t);
  return g;
}

int reluGradInput(const tg::Graph& g) {
  for (const tg::Op& op : g.ops)
    if (op.kind == tg::OpKind::ReluGrad) return op.inputs[0];
  return -1;
}

TEST(ReluGradRewrite, ReadsTheReluOutputAndGivesTheSameBits) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> p = {-1.5f, -0.0f, 0.0f, 1e-45f, -1e-45f, 2.5f, inf, -inf,
                                std::numeric_limits<float>::quiet_NaN(), 3e38f, -3e38f, 1.0f};
  const auto n = static_cast<int64_t>(p.size());
  tg::EvalInputs env;
  env.params["p"] = tg::HostTensor::f32({n}, p);
  env.params["w"] = tg::HostTensor::f32({n}, test_support::uniformValues(n, 3));

  const tg::Graph before = reluGraph(n);
  tg::Graph after = before;
  tg::readReluGradsFromOutputs(after);
  const int x = reluGradInput(before), y = reluGradInput(after);
  ASSERT_GE(x, 0);
  EXPECT_EQ(after.producer(y).kind, tg::OpKind::Relu);
  EXPECT_EQ(after.producer(y).inputs[0], x);

  const auto dp = [&](const tg::Graph& g) {
    const int t = g.captures.back().second;
    return tg::evaluate(g, env).at(static_cast<size_t>(t)).f;
  };
  const std::vector<float> a = dp(before), b = dp(after);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(a[i]), std::bit_cast<uint32_t>(b[i])) << "p = " << p[i];
}

TEST(ReluGradRewrite, TheReluFoldsIntoItsMatmulStore) {
  // A layer and its gradient: relu(x·w + b) read by the loss, x·w's relu_grad read back.
  tg::Graph g = tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {37, 21});
    const tg::Tensor w = tg::paramInput("w", {21, 44});
    const tg::Tensor b = tg::paramInput("b", {44});
    const tg::Tensor v = tg::paramInput("v", {37, 44});
    return std::vector<tg::Tensor>{tg::sum(tg::mul(tg::relu(tg::add(tg::matmul(x, w), b)), v))};
  });
  const tg::GradResult grads = tg::appendGrad(g);
  for (const auto& [name, t] : grads.paramGrads) g.captures.emplace_back("d" + name, t);
  // Kernels computing the ReLU: element-wise ones, and matmuls writing it as a second output.
  const auto reluKernels = [](const tg::Graph& graph) {
    const tg::BufferPlan plan = tg::planBuffers(graph, {}, {}, false, true);
    std::pair<size_t, size_t> n{0, 0};
    for (const tg::KernelSpec& k : tg::emitKernels(graph, plan, kFast)) {
      if (k.wgsl.empty()) continue;
      std::vector<int> ops = k.fusedOps;
      ops.push_back(k.opIndex);
      const bool relu = std::any_of(ops.begin(), ops.end(), [&](int o) {
        return graph.ops[static_cast<size_t>(o)].kind == tg::OpKind::Relu;
      });
      if (!k.wgsl.starts_with("// fast matmul"))
        n.first += relu;
      else
        n.second += relu && k.wgsl.find("fn second") != std::string::npos;
    }
    return n;
  };
  // x·w + b is read by relu_grad too, so the ReLU is a second output of the matmul storing it.
  EXPECT_EQ(reluKernels(g), std::make_pair(size_t{0}, size_t{1}));
  tg::Graph rewritten = g;
  tg::readReluGradsFromOutputs(rewritten);
  EXPECT_EQ(reluKernels(rewritten), std::make_pair(size_t{0}, size_t{0}));  // in the epilogue
  for (const tg::Graph* graph : {&g, &rewritten}) {
    const tg::EvalInputs env = tg_test::uniformParams(*graph, 11);
    for (const auto backend : {tg_test::Backend::Shim, tg_test::Backend::Dawn})
      tg_test::expectGpuMatchesCpu(backend, *graph, {}, {}, env, 1e-4, 1e-4, kFast, {}, false);
  }
}

// Fused values are named by their order in the kernel, so layers that compute the same thing emit
// the same WGSL: one pipeline however deep the model (D512's training step: 193 → 45 distinct
// pipelines from this alone). A name taken from the op's number in the graph fails this.
TEST(ElementwiseFusion, RepeatedLayersEmitTheSameKernels) {
  const auto distinct = [](int layers) {
    tg::Graph g = tg::traceFn([&] {
      tg::Tensor h = tg::paramInput("x", {64, 32});
      for (int l = 0; l < layers; ++l) {
        const std::string i = std::to_string(l);
        const tg::Tensor w = tg::paramInput("w" + i, {32, 32});
        const tg::Tensor b = tg::paramInput("b" + i, {32});
        h = tg::add(h, tg::relu(tg::add(tg::matmul(h, w), b)));  // a residual block
      }
      return std::vector<tg::Tensor>{tg::sum(tg::mul(h, h))};
    });
    const tg::GradResult grads = tg::appendGrad(g);
    for (const auto& [name, t] : grads.paramGrads) g.captures.emplace_back("d" + name, t);
    const tg::BufferPlan plan = tg::planBuffers(g, {}, {}, false, true);
    std::set<std::string> wgsl;
    size_t kernels = 0;
    for (const tg::KernelSpec& k : tg::emitKernels(g, plan, kFast)) {
      if (k.wgsl.empty()) continue;
      ++kernels;
      wgsl.insert(k.wgsl);
    }
    return std::pair{kernels, wgsl.size()};
  };
  const auto [kernels3, distinct3] = distinct(3);
  const auto [kernels5, distinct5] = distinct(5);
  EXPECT_GT(kernels5, kernels3);
  EXPECT_EQ(distinct5, distinct3);
}

}  // namespace
