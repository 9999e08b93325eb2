// Codegen against real WebGPU: whole graphs (forward, backward, optimizer) are planned, emitted
// as WGSL and run in Dawn; every buffer must match the CPU reference evaluator. Together the
// graphs exercise every op kind's kernel.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>

#include "cpu_trainer.h"
#include "gpu_oracle.h"

namespace {

std::vector<float> randomValues(int64_t n, uint32_t seed, double lo = -1, double hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(d(rng));
  return v;
}

tg::EvalInputs paramsOf(const tg::CompiledIR& ir, uint32_t seed) {
  tg::EvalInputs env;
  for (auto& [name, values] : tg::initialParams(ir, seed)) {
    const auto it = std::find_if(ir.params.begin(), ir.params.end(),
                                 [&](const auto& p) { return p->path == name; });
    env.params[name] = tg::HostTensor::f32((*it)->shape, values);
  }
  return env;
}

// One parity case: a graph, what outlives it, and the values of its leaves.
struct Case {
  tg::Graph graph;
  tg::ParamGrads grads;
  std::vector<tg::WritebackDecl> writebacks;
  tg::EvalInputs env;
};

Case fromIR(tg::CompiledIR ir, tg::EvalInputs env) {
  return {std::move(ir.graph), std::move(ir.paramGrads), std::move(ir.optimizer.writebacks),
          std::move(env)};
}

Case mlpCase() {
  tg_models::MLP model;
  tg::CompiledIR ir = tg::trace(tg_models::mlpSpec(model));
  tg::EvalInputs env = paramsOf(ir, 42);
  tg_test::SineBatches data;
  for (auto& [name, t] : data.next(256)) env.inputs[name] = t;
  env.inputs["_adam_lrt"] = tg::HostTensor::f32(
      {}, {static_cast<float>(tg::stepScalars(*ir.optimizerConfig, 1).lrInput)});
  return fromIR(std::move(ir), std::move(env));
}

Case transformerCase() {
  const tg_models::Transformer model(
      {.vocab = 12, .d = 16, .layers = 2, .heads = 2, .seqLen = 5, .batch = 2});
  tg::CompiledIR ir = tg::trace(tg_models::transformerSpec(model));
  tg::EvalInputs env = paramsOf(ir, 3);
  env.inputs["tokens"] = tg::HostTensor::i32({2, 4}, {1, 5, 9, 2, 0, 10, 3, 3});
  env.inputs["targets"] = tg::HostTensor::i32({2, 4}, {5, 9, 2, 7, 10, 3, 3, 4});
  env.inputs["mask"] = tg::HostTensor::f32({4}, {0, 1, 1, 1});
  const tg::StepScalars s = tg::stepScalars(*ir.optimizerConfig, 1);
  env.inputs["_adam_lrt"] = tg::HostTensor::f32({}, {static_cast<float>(s.lrInput)});
  env.inputs["_adam_decay_shrink"] = tg::HostTensor::f32({}, {static_cast<float>(s.decayShrink)});
  return fromIR(std::move(ir), std::move(env));
}

struct ConvNet : tg::Module {
  tg::Conv2d c1{*this, "c1", 2, 4, {3, 3}, {.padding = {1, 1}}};
  tg::Conv2d c2{*this, "c2", 4, 4, {3, 3}, {.stride = {2, 2}, .padding = {1, 1}, .groups = 2}};
  tg::Linear fc{*this, "fc", 4 * 2 * 2, 3};
};
tg::Tensor convLoss(const ConvNet& m, const tg::Inputs& in) {
  tg::Tensor h = tg::relu(m.c1.fwd(in["img"]));
  h = tg::maxPool2d(h, {2, 2});                         // [2, 4, 4, 4]
  h = tg::relu(m.c2.fwd(tg::nearestUpsample2d(h, 1)));  // [2, 4, 2, 2]
  h = tg::reshape(h, {2, -1});
  return tg::crossEntropy(m.fc.fwd(h), in["label"], {tg::Reduction::Sum});
}

Case convCase() {
  const ConvNet model;
  tg::SGD opt;
  opt.lr = 0.05;
  opt.momentum = 0.9;
  opt.nesterov = true;
  opt.weightDecay = 1e-3;
  const tg::CompiledIR ir = tg::trace(tg::TrainingSpec<ConvNet>{
      .model = model,
      .loss = convLoss,
      .inputs = {{"img", {{2, 2, 8, 8}}}, {"label", {{2}, tg::Dtype::I32}}},
      .optimizer = opt,
      .seed = 9});
  tg::EvalInputs env = paramsOf(ir, 9);
  env.inputs["img"] = tg::HostTensor::f32({2, 2, 8, 8}, randomValues(256, 1));
  env.inputs["label"] = tg::HostTensor::i32({2}, {2, 0});
  env.inputs["_sgd_lr"] = tg::HostTensor::f32({}, {0.05f});
  return fromIR(std::move(ir), std::move(env));
}

// Everything the models above do not reach: randomness, comparisons, integer math, slicing,
// long concats, reductions in both kernel forms, and the remaining unary functions.
Case remainingCase() {
  tg::Graph g = tg::traceFn([] {
    const tg::Tensor x = tg::paramInput("x", {4, 300});
    const tg::Tensor y = tg::paramInput("y", {3, 5});
    const tg::Tensor k = tg::tensorInput("k", {6}, tg::Dtype::I32);
    const tg::Tensor d = tg::tensorInput("d", {6}, tg::Dtype::I32);
    std::vector<tg::Tensor> outs;
    outs.push_back(tg::mean(x, -1));                   // workgroup reduction (long rows)
    outs.push_back(tg::sum(tg::dropout(x, 0.25), 0));  // dropout, thread-per-row sum
    outs.push_back(tg::argmax(x, 1));
    outs.push_back(tg::categorical(tg::mul(y, 3.0)));
    outs.push_back(tg::mul(tg::randn({2, 3}), 1.0));
    outs.push_back(tg::div(k, d));                            // i32 division incl. by zero
    outs.push_back(tg::add(tg::mul(k, 7.0), tg::sub(d, k)));  // i32 wraparound-safe arithmetic
    outs.push_back(
        tg::where(tg::greater(y, 0.0), tg::sqrt(tg::abs(y)), tg::rsqrt(tg::add(tg::abs(y), 1.0))));
    outs.push_back(tg::add(tg::log(tg::add(tg::abs(y), 0.5)), tg::sin(y)));
    outs.push_back(tg::mul(tg::cos(y), tg::tanh(y)));
    outs.push_back(tg::gelu(y));  // erf
    outs.push_back(tg::min(tg::sigmoid(y), tg::exp(tg::neg(y))));
    outs.push_back(tg::stopGradient(tg::max(y, 0.1)));
    outs.push_back(tg::whereCausal(tg::narrow(y, 1, 1, 3), -7.0));
    std::vector<tg::Tensor> parts;
    for (int p = 0; p < 9; ++p) parts.push_back(tg::narrow(y, 1, p % 5, 1));
    outs.push_back(tg::concat(parts, -1));  // past the binding cap
    outs.push_back(tg::oneHot(k, 4, tg::Dtype::I32));
    outs.push_back(tg::add(tg::arange(5, tg::Dtype::F32), tg::ones({5})));
    outs.push_back(tg::add(tg::zeros({2, 2}, tg::Dtype::I32), tg::arange(2)));
    outs.push_back(tg::sumToShape(tg::broadcastTo(y, {2, 3, 5}), {3, 1}));
    outs.push_back(tg::softmaxCausal(tg::reshape(tg::narrow(x, 1, 0, 32), {2, 4, 4, 4})));
    // Every result is captured, so it keeps its own buffer and is compared; integer results
    // stay out of the loss.
    for (size_t n = 0; n < outs.size(); ++n) tg::capture("out" + std::to_string(n), outs[n]);
    tg::Tensor total = tg::constScalar(0);
    for (const tg::Tensor& o : outs) {
      if (o.dtype() == tg::Dtype::F32) total = tg::add(total, tg::sum(o));
    }
    return std::vector<tg::Tensor>{total};
  });
  const tg::GradResult grads = tg::appendGrad(g);
  tg::EvalInputs env;
  env.params["x"] = tg::HostTensor::f32({4, 300}, randomValues(1200, 2));
  env.params["y"] = tg::HostTensor::f32({3, 5}, randomValues(15, 3));
  env.inputs["k"] = tg::HostTensor::i32({6}, {7, -7, 2147483647, -2147483647 - 1, 5, 3});
  env.inputs["d"] = tg::HostTensor::i32({6}, {2, 0, -1, -1, 0, 3});
  env.inputs[tg::kPrngSeedInput] = tg::HostTensor::i32({}, {12345});
  return {std::move(g), grads.paramGrads, {}, std::move(env)};
}

void run(const Case& c, double rtol = 1e-4, double atol = 1e-5) {
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, c.grads, c.writebacks, c.env, rtol,
                               atol);
}

// The same graphs with element-wise fusion; returns kernels run with and without it.
std::pair<size_t, size_t> runFused(const Case& c, double rtol = 1e-4, double atol = 1e-5) {
  const size_t fused =
      tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, c.grads, c.writebacks, c.env,
                                   rtol, atol, {.fuseElementwise = true});
  const tg::BufferPlan plan = tg::planBuffers(c.graph, c.grads, c.writebacks);
  const auto all = tg::emitKernels(c.graph, plan);
  return {fused, static_cast<size_t>(std::count_if(all.begin(), all.end(),
                                                   [](const auto& k) { return !k.wgsl.empty(); }))};
}

TEST(DawnParity, MlpTrainingStep) {
  run(mlpCase());
}
TEST(DawnParity, TransformerTrainingStepWithAdamWScheduleAndClipping) {
  run(transformerCase(), 2e-4, 2e-5);
}
TEST(DawnParity, ConvNetTrainingStepWithNesterovSgd) {
  run(convCase());
}
TEST(DawnParity, EveryRemainingKernel) {
  run(remainingCase());
}

// The MLP has no single-reader element-wise chain (every activation also feeds its backward).
TEST(DawnParityFused, MlpTrainingStep) {
  runFused(mlpCase());
}
TEST(DawnParityFused, TransformerTrainingStep) {
  const auto [fused, unfused] = runFused(transformerCase(), 2e-4, 2e-5);
  EXPECT_LT(fused, unfused);
  std::printf("transformer kernels: %zu fused, %zu unfused\n", fused, unfused);
}
TEST(DawnParityFused, ConvNetTrainingStep) {
  runFused(convCase());
}
TEST(DawnParityFused, EveryRemainingKernel) {
  const auto [fused, unfused] = runFused(remainingCase());
  EXPECT_LT(fused, unfused);
  std::printf("remaining-ops kernels: %zu fused, %zu unfused\n", fused, unfused);
}

// The same graphs through this repository's own stack: WGSL → wgsl_subset → SPIR-V →
// webgpu_shim → Vulkan (lavapipe on a CPU machine).
void runNative(const Case& c, double rtol = 1e-4, double atol = 1e-5,
               tg::EmitOptions options = {}) {
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, c.grads, c.writebacks, c.env, rtol,
                               atol, options);
}

TEST(NativeParity, MlpTrainingStep) {
  runNative(mlpCase());
}
TEST(NativeParity, TransformerTrainingStep) {
  runNative(transformerCase(), 2e-4, 2e-5);
}
TEST(NativeParity, ConvNetTrainingStep) {
  runNative(convCase());
}
TEST(NativeParity, EveryRemainingKernel) {
  runNative(remainingCase());
}
TEST(NativeParity, TransformerTrainingStepFused) {
  runNative(transformerCase(), 2e-4, 2e-5, {.fuseElementwise = true});
}

constexpr tg::EmitOptions kFastKernels{.kernels = tg::KernelSet::Fast};

// A broadcast read only by an element-wise op becomes that op's indexing: no kernel of its own.
TEST(DawnParityFused, BroadcastFoldsIntoItsConsumer) {
  tg::Graph g = tg::traceFn([] {
    const tg::Tensor x = tg::paramInput("x", {3, 2, 5});
    const tg::Tensor b = tg::paramInput("b", {2, 1});
    const tg::Tensor y = tg::mul(tg::broadcastTo(b, {3, 2, 5}), x);
    return std::vector<tg::Tensor>{tg::capture("y", tg::add(y, x))};
  });
  tg::EvalInputs env;
  env.params["x"] = tg::HostTensor::f32({3, 2, 5}, randomValues(30, 4));
  env.params["b"] = tg::HostTensor::f32({2, 1}, randomValues(2, 5));
  const Case c{std::move(g), {}, {}, std::move(env)};
  const auto kernels = tg::emitKernels(c.graph, tg::planBuffers(c.graph, {}, {}), {.fuseElementwise = true});
  EXPECT_EQ(std::count_if(kernels.begin(), kernels.end(), [](const tg::KernelSpec& k) { return !k.wgsl.empty(); }),
            1);
  EXPECT_EQ(runFused(c).first, 1u);
  runNative(c, 1e-4, 1e-5, {.fuseElementwise = true});
}

// A reshape fused into its consumer reads its input in flat order, whatever the two shapes.
TEST(DawnParityFused, ReshapeReadsItsInputInFlatOrder) {
  tg::Graph g = tg::traceFn([] {
    const tg::Tensor a = tg::paramInput("a", {2, 8});
    const tg::Tensor b = tg::paramInput("b", {4, 1, 4});
    const tg::Tensor y = tg::mul(tg::reshape(tg::exp(a), {4, 1, 4}), b);
    return std::vector<tg::Tensor>{tg::capture("y", tg::add(y, tg::reshape(a, {4, 1, 4})))};
  });
  tg::EvalInputs env;
  env.params["a"] = tg::HostTensor::f32({2, 8}, randomValues(16, 6));
  env.params["b"] = tg::HostTensor::f32({4, 1, 4}, randomValues(16, 7));
  const Case c{std::move(g), {}, {}, std::move(env)};
  const auto kernels = tg::emitKernels(c.graph, tg::planBuffers(c.graph, {}, {}), {.fuseElementwise = true});
  const bool reshapeFused = std::any_of(kernels.begin(), kernels.end(), [&](const tg::KernelSpec& k) {
    return k.fusedOps.size() > 1 &&
           std::any_of(k.fusedOps.begin(), k.fusedOps.end(), [&](int op) {
             return c.graph.ops[static_cast<size_t>(op)].kind == tg::OpKind::Reshape;
           });
  });
  EXPECT_TRUE(reshapeFused);
  runFused(c);
  runNative(c, 1e-4, 1e-5, {.fuseElementwise = true});
  runNative(c, 1e-4, 1e-5, kFastKernels);
}

// A permute read only by element-wise ops (or by another permute) becomes their indexing: the
// consumer reads the permute's source at the permuted index, and no permute kernel remains. Odd
// extents, so a wrong stride or axis shows; the backward adds the inverse permutes of dy.
TEST(DawnParityFused, PermuteFoldsIntoItsConsumer) {
  tg::Graph g = tg::traceFn([] {
    const tg::Tensor x = tg::paramInput("x", {3, 5, 7});
    const tg::Tensor z = tg::paramInput("z", {7, 3, 5});
    const tg::Tensor b = tg::paramInput("b", {5});
    const tg::Tensor y1 = tg::add(tg::mul(tg::permute(x, {2, 0, 1}), z), b);  // [7, 3, 5]
    // A permute of a permute of a fused producer, as the kernel's output: [3, 7, 5].
    const tg::Tensor y2 = tg::permute(tg::permute(tg::exp(z), {1, 2, 0}), {0, 2, 1});
    // Two readers in one kernel: the permute is the indexing of both.
    const tg::Tensor p = tg::permute(x, {1, 0, 2});
    const tg::Tensor y3 = tg::add(tg::relu(p), tg::mul(p, 0.5));
    // A square permute: same shape, other order.
    const tg::Tensor s = tg::paramInput("s", {5, 5});
    const tg::Tensor y4 = tg::sub(tg::permute(s, {1, 0}), s);
    // Readers in two kernels: this permute keeps its own.
    const tg::Tensor q = tg::permute(x, {2, 1, 0});
    return std::vector<tg::Tensor>{tg::capture("y1", y1), tg::capture("y2", y2),
                                   tg::capture("y3", y3), tg::capture("y4", y4),
                                   tg::capture("y5", tg::exp(q)), tg::capture("y6", tg::neg(q))};
  });
  tg::EvalInputs env;
  env.params["x"] = tg::HostTensor::f32({3, 5, 7}, randomValues(105, 8));
  env.params["z"] = tg::HostTensor::f32({7, 3, 5}, randomValues(105, 9));
  env.params["b"] = tg::HostTensor::f32({5}, randomValues(5, 10));
  env.params["s"] = tg::HostTensor::f32({5, 5}, randomValues(25, 11));
  const Case c{std::move(g), {}, {}, std::move(env)};
  const tg::BufferPlan plan = tg::planBuffers(c.graph, {}, {});
  const auto permuteKernels = [&](tg::EmitOptions options) {
    const auto kernels = tg::emitKernels(c.graph, plan, options);
    return std::count_if(kernels.begin(), kernels.end(), [](const tg::KernelSpec& k) {
      return !k.wgsl.empty() && k.kind == tg::OpKind::Permute && k.fusedOps.size() <= 1;
    });
  };
  EXPECT_EQ(permuteKernels({}), 6);
  EXPECT_EQ(permuteKernels({.fuseElementwise = true}), 1);
  EXPECT_EQ(permuteKernels(kFastKernels), 1);
  EXPECT_EQ(runFused(c).first, 7u);  // y1, y2, y3, y4, the shared permute, y5, y6
  runNative(c, 1e-4, 1e-5, kFastKernels);

  // With autograd: x's gradient is dy's inverse permute, read by the sum of contributions.
  tg::Graph lg = tg::traceFn([] {
    const tg::Tensor x = tg::paramInput("x", {3, 5, 7});
    const tg::Tensor z = tg::paramInput("z", {7, 3, 5});
    const tg::Tensor y = tg::mul(tg::exp(tg::permute(x, {2, 0, 1})), z);
    return std::vector<tg::Tensor>{tg::sum(tg::add(tg::mul(y, y), tg::permute(x, {2, 0, 1})))};
  });
  const tg::GradResult grads = tg::appendGrad(lg);
  const Case withGrad{std::move(lg), grads.paramGrads, {}, c.env};
  runFused(withGrad);
  runNative(withGrad, 1e-4, 1e-5, kFastKernels);
}

// Under the fast set an element-wise kernel (a fused chain, or one op) whose every read is at the
// output's own index and whose f32 size is a multiple of 4 handles a vec4 an invocation; a
// broadcast read, a permute or an odd size keeps one element an invocation.
TEST(DawnParityFused, SameShapeElementwiseKernelsUseVec4) {
  tg::Graph g = tg::traceFn([] {
    const tg::Tensor a = tg::paramInput("a", {6, 10});
    const tg::Tensor b = tg::paramInput("b", {6, 10});
    const tg::Tensor odd = tg::paramInput("odd", {5, 7});
    const tg::Tensor row = tg::paramInput("row", {10});
    return std::vector<tg::Tensor>{
        tg::capture("chain", tg::where(tg::greater(a, b), tg::exp(a), tg::mul(b, 3.0))),  // vec4
        tg::capture("one", tg::add(a, b)),                                                 // vec4
        tg::capture("odd", tg::sqrt(tg::abs(odd))),        // 35 elements: scalar
        tg::capture("bcast", tg::mul(a, row)),             // broadcast read: scalar
        tg::capture("perm", tg::relu(tg::permute(a, {1, 0})))};  // permuted read: scalar
  });
  tg::EvalInputs env;
  env.params["a"] = tg::HostTensor::f32({6, 10}, randomValues(60, 12));
  env.params["b"] = tg::HostTensor::f32({6, 10}, randomValues(60, 13));
  env.params["odd"] = tg::HostTensor::f32({5, 7}, randomValues(35, 14));
  env.params["row"] = tg::HostTensor::f32({10}, randomValues(10, 15));
  const Case c{std::move(g), {}, {}, std::move(env)};
  size_t vec4 = 0, scalar = 0;
  for (const tg::KernelSpec& k :
       tg::emitKernels(c.graph, tg::planBuffers(c.graph, {}, {}, true, true), kFastKernels)) {
    if (k.wgsl.empty()) continue;
    (k.wgsl.find("4 elements an invocation") != std::string::npos ? vec4 : scalar)++;
  }
  EXPECT_EQ(vec4, 2u);
  EXPECT_EQ(scalar, 3u);
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, {}, {}, c.env, 1e-4, 1e-5,
                               kFastKernels);
  runNative(c, 1e-4, 1e-5, kFastKernels);
}

// The fast kernel set (tiled matmuls) on whole training steps: the backward pass's products of
// transposed operands included. Sums run in another order, so within rounding, not bit for bit.
// Whether the fast set folds the case's optimizer (fold_optimizer.h): every writeback in place.
bool optimizerFolds(const Case& c) {
  const tg::BufferPlan plan = tg::planBuffers(c.graph, c.grads, c.writebacks, true, true);
  return plan.optimizerFold && plan.inPlace.size() == c.writebacks.size() && plan.writebacks.empty();
}

TEST(DawnParityFastKernels, TransformerTrainingStep) {
  const Case c = transformerCase();
  EXPECT_TRUE(optimizerFolds(c));  // AdamW, a scheduled decay, clipping: one update, two norm stages
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, c.grads, c.writebacks, c.env, 2e-4,
                               2e-5, kFastKernels);
}
TEST(DawnParityFastKernels, MlpTrainingStep) {
  const Case c = mlpCase();
  EXPECT_TRUE(optimizerFolds(c));
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, c.grads, c.writebacks, c.env, 1e-4,
                               1e-5, kFastKernels);
}
TEST(DawnParityFastKernels, ConvNetTrainingStepWithNesterovSgd) {
  const Case c = convCase();
  EXPECT_TRUE(optimizerFolds(c));
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, c.grads, c.writebacks, c.env, 2e-4,
                               2e-5, kFastKernels);
}
TEST(NativeParity, ConvNetTrainingStepFastKernels) {
  runNative(convCase(), 2e-4, 2e-5, kFastKernels);
}
TEST(NativeParity, MlpTrainingStepFastKernels) {
  runNative(mlpCase(), 1e-4, 1e-5, kFastKernels);
}
TEST(NativeParity, TransformerTrainingStepFastKernels) {
  runNative(transformerCase(), 2e-4, 2e-5, kFastKernels);
}
TEST(NativeParity, TransformerTrainingStepFastKernelsUnpooled) {
  const Case c = transformerCase();
  tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, c.grads, c.writebacks, c.env, 2e-4,
                               2e-5, kFastKernels, {}, false);
}

TEST(DawnParity, TheCasesCoverEveryOpKind) {
  std::set<tg::OpKind> covered;
  for (const Case& c : {mlpCase(), transformerCase(), convCase(), remainingCase()}) {
    for (const tg::Op& op : c.graph.ops) covered.insert(op.kind);
  }
  std::string missing;
  for (int k = 0; k < tg::kOpKindCount; ++k) {
    if (!covered.contains(static_cast<tg::OpKind>(k)))
      missing += " " + std::string(tg::opKindName(static_cast<tg::OpKind>(k)));
  }
  EXPECT_TRUE(missing.empty()) << "op kinds no parity graph runs:" << missing;
}

}  // namespace
