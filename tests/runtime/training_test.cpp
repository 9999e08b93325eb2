// compile() end to end on the default device (lavapipe on a CPU machine): upstream's MLP
// numbers, every CompiledTraining call and its error paths, concurrency and memory over a long run.
#include <sys/resource.h>

#include <fstream>
#include <thread>

#include <webgpu/webgpu_cpp.h>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>

#include "cpu_trainer.h"
#include "runtime_test_util.h"
#include "sha256.h"

namespace {

using rt_test::await;
using rt_test::completedStep;

tg::Feed sineFeed(tg_test::SineBatches& data, int64_t batch = 256) {
  return rt_test::toFeed(data.next(batch));
}

TEST(Training, ReadmeMlpMatchesUpstreamParamsAndLosses) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model));
  EXPECT_EQ(train.seed(), 42u);
  EXPECT_EQ(train.paramNames(), (std::vector<std::string>{"l1.W", "l1.b", "l2.W", "l2.b", "l3.W", "l3.b"}));
  EXPECT_EQ(train.outputShape(), tg::Shape{});
  const tg::ParamMap init = await(train.downloadParams());
  EXPECT_EQ(tg_test::sha256Hex(init.at("l1.W")), "a29e13d672b868dd92bad11740b331d4a4236c8c14dca3b9daf7c5762128e88e");
  EXPECT_EQ(tg_test::sha256Hex(init.at("l2.W")), "71f5d6846ff5d313223b2fd0171b5ac0613e1369aa106881cabc5719d8b051c5");
  EXPECT_EQ(tg_test::sha256Hex(init.at("l3.W")), "c2d8393af08cb2445048a53cfb7959ff96fc7381349340ae6c84a281372a7da7");
  tg_test::SineBatches data;
  std::map<int, double> losses;
  for (int step = 0; step <= 50; ++step) losses[step] = completedStep(train.step(sineFeed(data))).loss;
  EXPECT_NEAR(losses[0], 0.4860408306121826, 0.4860408306121826 * 1e-5);
  EXPECT_NEAR(losses[10], 0.2932558059692383, 0.2932558059692383 * 0.01);
  EXPECT_NEAR(losses[50], 0.10499478876590729, 0.10499478876590729 * 0.01);
}

// Steps called before the previous one is read back run pipelined (step n + 1 is submitted
// before step n's loss is read): the same losses, bit for bit, as steps awaited one by one,
// each result delivered in call order, and a call between steps sees every earlier step. Each
// of the two steps in flight has inputs of its own, so every input is written at once from the
// host (no submitted work uses it), as awaited steps' inputs are, not staged behind the other.
TEST(Training, PipelinedStepsGiveTheAwaitedStepsResultsInCallOrder) {
  tg_models::MLP model;
  auto awaited = tg::compile(tg_models::mlpSpec(model));
  auto pipelined = tg::compile(tg_models::mlpSpec(model));
  std::vector<tg::Feed> feeds;
  tg_test::SineBatches data;
  for (int i = 0; i < 12; ++i) feeds.push_back(sineFeed(data));
  std::vector<float> want;
  tg::ParamMap wantAfterSix;
  const uint64_t beforeAwaited = wgpu::GetDirectBufferWritesForTesting();
  for (size_t i = 0; i < feeds.size(); ++i) {
    want.push_back(completedStep(awaited.step(feeds[i])).loss);
    if (i == 5) wantAfterSix = await(awaited.downloadParams());
  }
  const uint64_t directAwaited = wgpu::GetDirectBufferWritesForTesting() - beforeAwaited;
  std::vector<std::future<tg::StepResult>> steps;
  std::future<tg::ParamMap> afterSix;
  const uint64_t beforePipelined = wgpu::GetDirectBufferWritesForTesting();
  for (size_t i = 0; i < feeds.size(); ++i) {
    steps.push_back(pipelined.step(feeds[i]));
    if (i == 5) afterSix = pipelined.downloadParams();
  }
  steps.back().wait();
  EXPECT_GE(directAwaited, 2 * feeds.size());  // x and y each step, at least
  EXPECT_EQ(wgpu::GetDirectBufferWritesForTesting() - beforePipelined, directAwaited);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].wait_for(std::chrono::seconds(0)), std::future_status::ready) << "step " << i;
    EXPECT_EQ(completedStep(std::move(steps[i])).loss, want[i]) << "step " << i;
  }
  EXPECT_EQ(await(std::move(afterSix)), wantAfterSix);
}

// Waits that spin (the default on a GPU: an idle GPU thread for the next call, a step's Future
// for its result) run the same work in the same order as waits that sleep (the default on
// lavapipe): awaited steps, pipelined steps with a download behind them, a call that comes after
// the spin has given up, and a destroy.
TEST(Training, StepsGiveTheSameResultsWhetherWaitsSpinOrSleep) {
  struct RestoreSpin {
    ~RestoreSpin() { tg::spinWaitsForTesting(std::nullopt); }
  } restore;
  tg_models::MLP model;
  tg_test::SineBatches data;
  std::vector<tg::Feed> feeds;
  for (int i = 0; i < 8; ++i) feeds.push_back(sineFeed(data));
  const auto run = [&](std::optional<bool> spin) {
    tg::spinWaitsForTesting(spin);
    const uint64_t spinsBefore = tg::gpuThreadSpinsForTesting();
    const uint64_t pollsBefore = tg::resultPollsForTesting();
    auto train = tg::compile(tg_models::mlpSpec(model));
    std::vector<float> losses;
    for (size_t i = 0; i < 3; ++i) losses.push_back(completedStep(train.step(feeds[i])).loss);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the 200 µs spin
    losses.push_back(completedStep(train.step(feeds[3])).loss);
    std::vector<tg::Future<tg::StepResult>> steps;
    for (size_t i = 4; i < feeds.size(); ++i) steps.push_back(train.step(feeds[i]));
    std::future<tg::ParamMap> params = train.downloadParams();
    for (auto& step : steps) losses.push_back(completedStep(std::move(step)).loss);
    std::pair<std::vector<float>, tg::ParamMap> result{losses, await(std::move(params))};
    train.destroy();
    // Whether the waits spun: forced on, the thread did (an idle thread spins before every sleep)
    // and results were polled for (the first step's at least: with no step before it, its wait
    // polls from the call; later ones poll only where the result is later than the last step's
    // time less a margin, which a software device's varying steps may not be); forced off, or by
    // default on a software device, neither did.
    const bool on = spin.value_or(!tg::checkWebGPU().cpu);
    EXPECT_EQ(tg::gpuThreadSpinsForTesting() > spinsBefore, on);
    EXPECT_EQ(tg::resultPollsForTesting() > pollsBefore, on);
    return result;
  };
  const auto sleeping = run(false);
  const auto spinning = run(true);
  const auto byDefault = run(std::nullopt);
  EXPECT_EQ(byDefault, sleeping);
  ASSERT_EQ(spinning.first.size(), feeds.size());
  EXPECT_LT(spinning.first.back(), spinning.first.front());  // it trained
  EXPECT_EQ(spinning.first, sleeping.first);
  EXPECT_EQ(spinning.second, sleeping.second);
}

// A reset posted behind two steps still in flight lets both complete, then starts over.
TEST(Training, ResetBehindPipelinedStepsLetsThemComplete) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model));
  tg_test::SineBatches data;
  const tg::Feed feed = sineFeed(data);
  auto first = train.step(feed);
  auto second = train.step(feed);
  auto reset = train.reset();
  auto again = train.step(feed);
  const float loss = completedStep(std::move(first)).loss;
  EXPECT_LT(completedStep(std::move(second)).loss, loss);
  await(std::move(reset));
  EXPECT_EQ(completedStep(std::move(again)).loss, loss);
}

// The transformer sample (small): losses and every parameter after three AdamW steps with a
// schedule and clipping match the CPU reference evaluator.
TEST(Training, SmallTransformerMatchesCpuEvaluator) {
  tg_models::TransformerConfig c;
  c.d = 16, c.layers = 2, c.heads = 2, c.batch = 4;
  tg_models::Transformer model(c);
  const auto spec = tg_models::transformerSpec(model);
  auto train = tg::compile(spec);
  const tg::CompiledIR ir = tg::trace(spec);
  tg_test::CpuTrainer cpu(ir, spec.seed.value());
  tg::Mulberry32 rng(3);
  for (int step = 0; step < 3; ++step) {
    const auto [tokens, targets, mask] = tg_models::randomTransformerBatch(c, rng);
    const double want = cpu.step({{"tokens", tg::HostTensor::i32({c.batch, c.t()}, tokens)},
                                  {"targets", tg::HostTensor::i32({c.batch, c.t()}, targets)},
                                  {"mask", tg::HostTensor::f32({c.t()}, mask)}});
    const tg::StepResult r =
        completedStep(train.step({{"tokens", tokens}, {"targets", targets}, {"mask", mask}}));
    EXPECT_NEAR(r.loss, want, 1e-4 * std::abs(want)) << "step " << step;
    EXPECT_EQ(r.captures.names().size(), 4u);  // attn.0, attn.1, residual.0, residual.1
    EXPECT_EQ(r.captures.shape("attn.1"), (tg::Shape{c.batch, c.heads, c.t(), c.t()}));
  }
  for (const auto& [name, values] : await(train.downloadParams())) {
    rt_test::expectClose(values, cpu.env().params.at(name).f, 1e-3, 1e-5, name);
  }
}

TEST(Training, BadInputsFailNamingTheInputAndShape) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  const std::vector<float> ok(8, 0.5f);
  struct Case {
    tg::Feed feed;
    std::vector<std::string> mentions;
  };
  const std::vector<Case> cases = {
      {{{"x", ok}}, {"'y'", "missing", "f32 [8, 1]"}},
      {{{"x", ok}, {"y", ok}, {"z", ok}}, {"unknown input 'z'", "x: f32 [8, 1]"}},
      {{{"x", ok}, {"y", std::vector<int32_t>(8, 1)}}, {"'y'", "is i32", "expected f32 [8, 1]"}},
      {{{"x", std::vector<float>(7, 0.f)}, {"y", ok}}, {"'x'", "7 elements", "expected 8"}},
      {{{"x", ok}, {"y", std::vector<float>(8, NAN)}}, {"input 'y' has NaN at index 0"}},
  };
  const tg::ParamMap before = await(train.downloadParams());
  for (const Case& c : cases) {
    const tg::StepResult r = await(train.step(c.feed));
    ASSERT_EQ(r.kind, tg::ResultKind::Failed);
    for (const auto& m : c.mentions) EXPECT_NE(r.error.find(m), std::string::npos) << r.error;
  }
  // Rejected inputs, the NaN one included, never reach the GPU.
  EXPECT_EQ(await(train.downloadParams()), before);
}

// A NaN or ±Inf in an f32 input fails the step on the host, naming the input and the first bad
// index, before any parameter or optimizer state changes; the next good step is the first step.
TEST(Training, NonFiniteInputsFailTheStepBeforeAnyParamChanges) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  const tg::ParamMap before = await(train.downloadParams());
  std::vector<float> xs(8, 0.5f), ys(8, 0.25f);
  struct Case {
    std::string input;
    size_t index;
    float value;
    std::string mention;
  };
  for (const Case& c : {Case{"x", 3, NAN, "step: input 'x' has NaN at index 3"},
                        Case{"y", 7, INFINITY, "step: input 'y' has +Inf at index 7"},
                        Case{"x", 0, -INFINITY, "step: input 'x' has -Inf at index 0"}}) {
    tg::Feed feed = {{"x", xs}, {"y", ys}};
    std::vector<float> bad = c.input == "x" ? xs : ys;
    bad[c.index] = c.value;
    if (c.index + 1 < bad.size()) bad[c.index + 1] = NAN;  // a later bad value is not the one named
    feed[c.input] = bad;
    const tg::StepResult r = await(train.step(feed));
    EXPECT_EQ(r.kind, tg::ResultKind::Failed) << c.mention;
    EXPECT_NE(r.error.find(c.mention), std::string::npos) << r.error;
    EXPECT_EQ(await(train.downloadParams()), before) << c.mention;
  }
  // Nothing advanced either: the next good step is bit for bit a fresh compile's first step.
  tg_models::MLP other;
  auto fresh = tg::compile(tg_models::mlpSpec(other, 8));
  const float first = completedStep(fresh.step({{"x", xs}, {"y", ys}})).loss;
  EXPECT_EQ(completedStep(train.step({{"x", xs}, {"y", ys}})).loss, first);
  EXPECT_EQ(await(train.downloadParams()), await(fresh.downloadParams()));
}

TEST(Training, UploadParamsRejectsNonFiniteValuesNamingTheParamAndIndex) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  const tg::ParamMap before = await(train.downloadParams());
  for (const auto& [value, mention] : std::vector<std::pair<float, std::string>>{
           {NAN, "uploadParams: 'l2.W' has NaN at index 17"},
           {-INFINITY, "uploadParams: 'l2.W' has -Inf at index 17"}}) {
    tg::ParamMap bad = before;
    for (auto& [name, v] : bad) v[0] += 1.f;  // valid changes elsewhere: none may be written
    bad["l2.W"][17] = value;
    try {
      await(train.uploadParams(bad));
      ADD_FAILURE() << "accepted: " << mention;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
    EXPECT_EQ(await(train.downloadParams()), before);
  }
}

// Every hyperparameter that cannot train is rejected when it is given: compile (and
// replaceModel) for the optimizer config, setLR for a rate; the message names the field.
TEST(Training, NonFiniteOrOutOfRangeHyperparametersAreRejectedNamingTheField) {
  tg_models::MLP model;
  auto expectRejected = [&](const tg::OptimizerConfig& optimizer, const std::string& mention) {
    auto spec = tg_models::mlpSpec(model, 8);
    spec.optimizer = optimizer;
    try {
      tg::compile(spec);
      ADD_FAILURE() << "accepted: " << mention;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
  };
  auto adam = [](auto edit) {
    tg::Adam a;
    edit(a);
    return tg::OptimizerConfig(a);
  };
  expectRejected(adam([](tg::Adam& a) { a.lr = NAN; }), "optimizer.lr = NaN");
  expectRejected(adam([](tg::Adam& a) { a.lr = -1e-3; }), "optimizer.lr = -0.001");
  expectRejected(adam([](tg::Adam& a) { a.lr = INFINITY; }), "optimizer.lr = Inf");
  expectRejected(adam([](tg::Adam& a) { a.beta1 = 1; }), "optimizer.beta1 = 1");
  expectRejected(adam([](tg::Adam& a) { a.beta1 = -0.1; }), "optimizer.beta1");
  expectRejected(adam([](tg::Adam& a) { a.beta2 = NAN; }), "optimizer.beta2 = NaN");
  expectRejected(adam([](tg::Adam& a) { a.eps = 0; }), "optimizer.eps = 0");
  expectRejected(adam([](tg::Adam& a) { a.clipGradNorm = 0; }), "optimizer.clipGradNorm = 0");
  expectRejected(adam([](tg::Adam& a) { a.clipGradNorm = NAN; }), "optimizer.clipGradNorm = NaN");
  tg::AdamW w;
  w.weightDecay = -0.01;
  expectRejected(w, "optimizer.weightDecay = -0.01");
  tg::SGD sgd;
  sgd.momentum = -0.9;
  expectRejected(sgd, "optimizer.momentum = -0.9");
  sgd = {};
  sgd.weightDecay = NAN;
  expectRejected(sgd, "optimizer.weightDecay = NaN");
  expectRejected(adam([](tg::Adam& a) { a.lr = tg::lr::linear(1e-3, 0, 0); }), "optimizer.lr.steps = 0");
  expectRejected(adam([](tg::Adam& a) { a.lr = tg::lr::cosineAnnealing(1e-3, NAN, 10); }), "optimizer.lr.final = NaN");
  expectRejected(adam([](tg::Adam& a) { a.lr = tg::lr::warmup(1e-3, 5, tg::lr::linear(INFINITY, 0, 10)); }),
                 "optimizer.lr.after.peak = Inf");
  expectRejected(adam([](tg::Adam& a) { a.lr = tg::lr::staircase(1e-3, 0, 0.5); }), "optimizer.lr.every = 0");
  expectRejected(adam([](tg::Adam& a) { a.lr = tg::lr::staircase(1e-3, 10, NAN); }), "optimizer.lr.gamma = NaN");
  expectRejected(adam([](tg::Adam& a) { a.lr = tg::lr::multiStep(1e-3, {10, 5}, 0.5); }),
                 "optimizer.lr.milestones[1] = 5");

  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  const std::vector<float> xs(8, 0.5f), ys(8, 0.25f);
  completedStep(train.step({{"x", xs}, {"y", ys}}));
  for (const auto& [lr, mention] : std::vector<std::pair<tg::LR, std::string>>{
           {NAN, "setLR: lr = NaN"},
           {-INFINITY, "setLR: lr = -Inf"},
           {tg::lr::linear(0.01, 0, -3), "setLR: lr.steps = -3"},
           {tg::lr::multiStep(0.01, {0}, 0.1), "setLR: lr.milestones[0] = 0"}}) {
    try {
      await(train.setLR(lr));
      ADD_FAILURE() << "accepted: " << mention;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
  }
  // The rejected rates never took effect: training goes on with the compile's rate.
  const tg::StepResult r = completedStep(train.step({{"x", xs}, {"y", ys}}));
  EXPECT_TRUE(std::isfinite(r.loss));
  for (const auto& [name, v] : await(train.downloadParams())) {
    for (float x : v) ASSERT_TRUE(std::isfinite(x)) << name;
  }
  tg::Adam badReplace;
  badReplace.eps = -1;
  try {
    await(train.replaceModel(model, {.optimizer = badReplace}));
    ADD_FAILURE() << "replaceModel accepted eps = -1";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("optimizer.eps = -1"), std::string::npos) << e.what();
  }
  completedStep(train.step({{"x", xs}, {"y", ys}}));  // the model was not replaced
}

// A batch whose byte size overflows int64 is a compile error naming the input, not undefined
// behaviour or an unrelated message from a later op.
TEST(Training, OverflowingInputShapeIsRejectedNamingTheInput) {
  tg_models::MLP model;
  try {
    tg::compile(tg_models::mlpSpec(model, int64_t{1} << 62));
    ADD_FAILURE() << "accepted a batch of 2^62";
  } catch (const tg::ShapeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tensorInput 'x'"), std::string::npos) << what;
    EXPECT_NE(what.find("overflows"), std::string::npos) << what;
    EXPECT_EQ(what.find("tensorgrad/src"), std::string::npos) << "names a library file: " << what;
  }
}

TEST(Training, UploadParamsIsStrictAndAtomic) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  const tg::ParamMap before = await(train.downloadParams());
  tg::ParamMap missing = before;
  missing.erase("l2.b");
  tg::ParamMap unknown = before;
  unknown["l9.W"] = {1.f};
  tg::ParamMap misSized = before;
  misSized["l2.W"].pop_back();
  misSized["l1.W"][0] = 7.f;  // valid on its own: must not be written either
  for (const auto& [bad, mention] :
       std::vector<std::pair<tg::ParamMap, std::string>>{{missing, "missing param(s): l2.b"},
                                                         {unknown, "unknown param 'l9.W'"},
                                                         {misSized, "'l2.W' has 4095 elements, expected 4096"}}) {
    try {
      await(train.uploadParams(bad));
      ADD_FAILURE() << "accepted: " << mention;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(await(train.downloadParams()), before);  // nothing was written
  tg::ParamMap changed = before;
  for (auto& [name, v] : changed) {
    for (float& x : v) x = x * 2 + 1;
  }
  await(train.uploadParams(changed));
  EXPECT_EQ(await(train.downloadParams()), changed);  // round trip, bit for bit
}

TEST(Training, ResetRestoresInitialParamsAndOptimizerState) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 16));
  tg_test::SineBatches data;
  const tg::Feed feed = sineFeed(data, 16);
  const tg::ParamMap init = await(train.downloadParams());
  const float first = completedStep(train.step(feed)).loss;
  const float second = completedStep(train.step(feed)).loss;
  EXPECT_LT(second, first);
  await(train.reset());
  EXPECT_EQ(await(train.downloadParams()), init);
  EXPECT_EQ(completedStep(train.step(feed)).loss, first);
  EXPECT_EQ(completedStep(train.step(feed)).loss, second);  // m, v and t restarted too
  await(train.reset({.params = false, .optimizer = true}));
  EXPECT_NE(await(train.downloadParams()), init);
}

TEST(Training, SetLRTakesEffectOnTheNextStep) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 16));
  tg_test::SineBatches data;
  const tg::Feed feed = sineFeed(data, 16);
  completedStep(train.step(feed));
  await(train.setLR(0.0));
  const tg::ParamMap frozen = await(train.downloadParams());
  completedStep(train.step(feed));
  completedStep(train.step(feed));
  EXPECT_EQ(await(train.downloadParams()), frozen);
  await(train.setLR(tg::lr::linear(0.01, 0.0, 10)));  // rebased: step 1 of the schedule is next
  completedStep(train.step(feed));
  EXPECT_NE(await(train.downloadParams()), frozen);
}

// Steps from several threads serialize on the GPU thread. With one batch every step is the
// same function of the state, so the end state equals the CPU oracle's after as many steps.
TEST(Training, ConcurrentStepsFromManyThreadsSerialize) {
  tg_models::MLP model;
  const auto spec = tg_models::mlpSpec(model, 32);
  auto train = tg::compile(spec);
  tg_test::SineBatches data;
  const auto batch = data.next(32);
  const tg::Feed feed = rt_test::toFeed(batch);
  constexpr int kThreads = 4, kSteps = 10;
  std::vector<std::thread> threads;
  std::atomic<int> completed{0};
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      std::vector<std::future<tg::StepResult>> futures;
      for (int s = 0; s < kSteps; ++s) futures.push_back(train.step(feed));
      for (auto& f : futures) completed += f.get().kind == tg::ResultKind::Completed;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(completed, kThreads * kSteps);
  const tg::CompiledIR ir = tg::trace(spec);
  tg_test::CpuTrainer cpu(ir, 42);
  for (int s = 0; s < kThreads * kSteps; ++s) cpu.step(batch);
  for (const auto& [name, values] : await(train.downloadParams()))
    rt_test::expectClose(values, cpu.env().params.at(name).f, 1e-4, 1e-6, name);
}

// Host memory (which on lavapipe is also device memory) stays flat over a long run.
long residentKiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(Training, TwoThousandStepsKeepMemoryFlat) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 64));
  tg_test::SineBatches data;
  const tg::Feed feed = sineFeed(data, 64);
  for (int s = 0; s < 200; ++s) completedStep(train.step(feed));
  const long warm = residentKiB();
  const uint64_t deviceWarm = wgpu::GetBufferMemoryInUseForTesting();
  float last = 0;
  for (int s = 0; s < 2000; ++s) {
    const tg::StepResult r = await(train.step(feed));
    ASSERT_EQ(r.kind, tg::ResultKind::Completed) << r.error;
    last = r.loss;
  }
  const long after = residentKiB();
  EXPECT_LT(last, 0.01);
  EXPECT_LT(after - warm, 2048) << "RSS grew from " << warm << " KiB to " << after << " KiB";
  std::printf("  RSS %ld -> %ld KiB; device buffer memory %llu -> %llu bytes\n", warm, after,
              static_cast<unsigned long long>(deviceWarm),
              static_cast<unsigned long long>(wgpu::GetBufferMemoryInUseForTesting()));
  EXPECT_EQ(wgpu::GetBufferMemoryInUseForTesting(), deviceWarm);  // no buffer made or lost per step
}

TEST(Training, DestroyFailsLaterCalls) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  train.destroy();
  train.destroy();  // idempotent
  const tg::StepResult r = await(train.step({}));
  EXPECT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("destroyed"), std::string::npos);
  EXPECT_THROW(await(train.downloadParams()), std::logic_error);
}

// A device lost mid-training (a driver reset; simulated through the shim's Device::ForceLoss):
// every later call on the compile fails saying so, never hangs or reports garbage, and the next
// compile runs on a new device.
TEST(Training, DeviceLossFailsLaterCallsAndTheNextCompileGetsANewDevice) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  auto infer = train.attach({.forward = [](const tg_models::MLP& m, const tg::Inputs& in) {
                               return tg_models::mlpForward(m, in["x"]);
                             },
                             .inputs = {{"x", {{4, 1}}}}});
  const std::vector<float> xs(8, 1.f), ys(8, 0.5f), x4(4, 0.25f);
  const float first = completedStep(train.step({{"x", xs}, {"y", ys}})).loss;
  ASSERT_TRUE(tg::loseDeviceForTesting({}, "simulated driver reset"));
  EXPECT_FALSE(tg::loseDeviceForTesting({}));  // no device held any more: nothing to lose
  for (int i = 0; i < 2; ++i) {
    const tg::StepResult r = await(train.step({{"x", xs}, {"y", ys}}));
    EXPECT_EQ(r.kind, tg::ResultKind::Failed) << "step after the loss #" << i;
    EXPECT_NE(r.error.find("device lost: simulated driver reset"), std::string::npos) << r.error;
    const tg::RunResult run = await(infer.run({{"x", x4}}));
    EXPECT_EQ(run.kind, tg::ResultKind::Failed);
    EXPECT_NE(run.error.find("device lost"), std::string::npos) << run.error;
  }
  try {
    await(train.downloadParams());
    ADD_FAILURE() << "downloadParams on a lost device returned";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("device lost"), std::string::npos) << e.what();
  }
  // A new compile opens a new device and starts from the same initial params.
  tg_models::MLP again;
  auto retrain = tg::compile(tg_models::mlpSpec(again, 8));
  EXPECT_EQ(completedStep(retrain.step({{"x", xs}, {"y", ys}})).loss, first);
}

}  // namespace

namespace {

// The runtime's plans change how the step runs, not what it computes. Own buffers per
// intermediate give upstream's plan's (pooled) losses and parameters bit for bit: the kernels
// are the same. Fused element-wise chains (each kernel within WebGPU's default 8 storage buffers)
// give them within rounding: a fused chain keeps values in registers, where the driver may
// contract a multiply and an add.
TEST(Training, FusedAndUnpooledPlansMatchUpstreamsPlan) {
  tg_models::TransformerConfig c;
  c.batch = 8;  // upstream's model (all 40 parameters), a small batch
  tg_models::Transformer model(c);
  const auto spec = tg_models::transformerSpec(model);
  tg::RuntimeOptions fused;
  fused.emit.fuseElementwise = true;
  fused.poolBuffers = false;
  auto reference = tg::compile(spec, {.poolBuffers = true});
  auto unpooled = tg::compile(spec, {.poolBuffers = false});
  auto variant = tg::compile(spec, fused);
  const auto kernels = variant.kernels();
  size_t dispatching = 0;
  for (const auto& k : kernels) {
    if (k.wgsl.empty()) continue;
    ++dispatching;
    EXPECT_LE(k.bindings.size(), tg::kMaxStorageBuffersPerKernel) << k.wgsl;
  }
  EXPECT_LT(dispatching, 933u);
  std::vector<int32_t> tokens(static_cast<size_t>(c.batch * c.t())), targets(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    tokens[i] = static_cast<int32_t>(i * 7 % 12);
    targets[i] = static_cast<int32_t>(i * 5 % 12);
  }
  const std::vector<float> mask = {0, 0, 0, 0, 0, 1, 1, 1};
  for (int s = 0; s < 2; ++s) {
    const tg::Feed feed = {{"tokens", tokens}, {"targets", targets}, {"mask", mask}};
    const float want = completedStep(reference.step(feed)).loss;
    EXPECT_EQ(completedStep(unpooled.step(feed)).loss, want);
    EXPECT_NEAR(completedStep(variant.step(feed)).loss, want, 1e-5 * std::abs(want));
  }
  EXPECT_EQ(await(unpooled.downloadParams()), await(reference.downloadParams()));
  // Adam divides by √v, so where a gradient is near zero a rounding difference in it moves the
  // update by a visible fraction of lr (0.005): compare within 1e-5 absolute, 0.2% of a step.
  const tg::ParamMap want = await(reference.downloadParams());
  for (const auto& [name, values] : await(variant.downloadParams()))
    rt_test::expectClose(values, want.at(name), 1e-4, 1e-5, name);
}

}  // namespace

namespace {

// The fast kernel set (RuntimeOptions::emit.kernels = KernelSet::Fast) changes the order of each
// matmul's fp32 sums, nothing else, so training follows the upstream set's losses within rounding
// that the optimizer carries from step to step.
tg::RuntimeOptions fastKernels() {
  tg::RuntimeOptions o;
  o.emit.kernels = tg::KernelSet::Fast;
  return o;
}

template <class M>
size_t fastMatmuls(const tg::CompiledTraining<M>& train) {
  const auto kernels = train.kernels();
  return static_cast<size_t>(std::count_if(kernels.begin(), kernels.end(), [](const auto& k) {
    return k.wgsl.starts_with("// fast matmul");
  }));
}

// Kernels whose WGSL carries `banner` (the fused optimizer's: "// fused optimizer", "// clip norm").
template <class M>
size_t kernelsWith(const tg::CompiledTraining<M>& train, const std::string& banner) {
  const auto kernels = train.kernels();
  return static_cast<size_t>(std::count_if(kernels.begin(), kernels.end(), [&](const auto& k) {
    return k.wgsl.find(banner) != std::string::npos;
  }));
}

TEST(Training, FastKernelsTrackUpstreamKernelsOnTheReadmeMlp) {
  tg_models::MLP model;
  const auto spec = tg_models::mlpSpec(model, 64);
  auto upstream = tg::compile(spec);
  auto fast = tg::compile(spec, fastKernels());
  EXPECT_EQ(fastMatmuls(upstream), 0u);
  EXPECT_GT(fastMatmuls(fast), 0u);
  EXPECT_EQ(kernelsWith(upstream, "// fused optimizer"), 0u);
  EXPECT_EQ(kernelsWith(fast, "// fused optimizer"), 1u);
  tg_test::SineBatches data;
  for (int step = 0; step < 200; ++step) {
    const tg::Feed feed = sineFeed(data, 64);
    const float want = completedStep(upstream.step(feed)).loss;
    EXPECT_NEAR(completedStep(fast.step(feed)).loss, want, 1e-3 * std::abs(want)) << "step " << step;
  }
}

TEST(Training, FastKernelsTrackUpstreamKernelsOnTheTransformerSample) {
  tg_models::TransformerConfig c;
  c.batch = 8;  // upstream's model (D=64, 3 layers, 4 heads), a small batch
  tg_models::Transformer model(c);
  const auto spec = tg_models::transformerSpec(model);
  auto upstream = tg::compile(spec);
  auto fast = tg::compile(spec, fastKernels());
  EXPECT_GT(fastMatmuls(fast), 0u);
  EXPECT_EQ(kernelsWith(fast, "// fused optimizer"), 1u);  // AdamW with clipping: one update
  EXPECT_EQ(kernelsWith(fast, "// clip norm"), 2u);        // and a two-stage norm
  EXPECT_EQ(kernelsWith(fast, "and the clip scale from them"), 1u);  // its second stage: the scale
  tg::Mulberry32 rng(5);
  for (int step = 0; step < 40; ++step) {
    const auto [tokens, targets, mask] = tg_models::randomTransformerBatch(c, rng);
    const tg::Feed feed = {{"tokens", tokens}, {"targets", targets}, {"mask", mask}};
    const float want = completedStep(upstream.step(feed)).loss;
    EXPECT_NEAR(completedStep(fast.step(feed)).loss, want, 0.02 * std::abs(want)) << "step " << step;
  }
}

// The fused optimizer (fast set) against the upstream set's per-parameter updates, for each
// optimizer with what varies between parameters: decayed and undecayed ones, a scheduled learning
// rate, clipping, and a parameter with no gradient whose arena slot the update must skip.
struct SpareMlp : tg::Module {
  tg::Linear l1{*this, "l1", 1, 32};
  tg::Linear spare{*this, "spare", 3, 5};  // never used: no gradient, never updated
  tg::Linear l2{*this, "l2", 32, 1};
};
tg::Tensor spareLoss(const SpareMlp& m, const tg::Inputs& in) {
  const tg::Tensor d = tg::sub(m.l2.fwd(tg::relu(m.l1.fwd(in["x"]))), in["y"]);
  return tg::mean(tg::mul(d, d));
}

void expectFusedOptimizerMatches(const tg::OptimizerConfig& optimizer, size_t normKernels) {
  SpareMlp model;
  const tg::TrainingSpec<SpareMlp> spec{.model = model,
                                        .loss = spareLoss,
                                        .inputs = {{"x", {{64, 1}}}, {"y", {{64, 1}}}},
                                        .optimizer = optimizer,
                                        .seed = 3};
  auto upstream = tg::compile(spec);
  auto fast = tg::compile(spec, fastKernels());
  EXPECT_EQ(kernelsWith(fast, "// fused optimizer"), 1u);
  EXPECT_EQ(kernelsWith(fast, "// clip norm"), normKernels);
  // With clipping, the norm's second stage computes the clip scale too (no kernel of its own).
  EXPECT_EQ(kernelsWith(fast, "and the clip scale from them"), normKernels / 2);
  tg_test::SineBatches data;
  for (int step = 0; step < 6; ++step) {
    const tg::Feed feed = sineFeed(data, 64);
    const float want = completedStep(upstream.step(feed)).loss;
    EXPECT_NEAR(completedStep(fast.step(feed)).loss, want, 1e-4 * std::abs(want)) << "step " << step;
  }
  const tg::ParamMap want = await(upstream.downloadParams());
  const tg::ParamMap got = await(fast.downloadParams());
  EXPECT_EQ(got.at("spare.W"), want.at("spare.W"));
  for (const auto& [name, values] : got) rt_test::expectClose(values, want.at(name), 1e-4, 1e-5, name);
}

TEST(Training, FusedOptimizerMatchesPerParameterAdamW) {
  tg::AdamW o;
  o.lr = tg::lr::cosineAnnealing(0.01, 0.001, 10);
  o.weightDecay = 0.1;
  o.clipGradNorm = 0.5;
  o.decayFilter = [](const std::string& name) { return name.starts_with("l1."); };
  expectFusedOptimizerMatches(o, 2);
}

TEST(Training, FusedOptimizerMatchesPerParameterNesterovSgd) {
  tg::SGD o;
  o.lr = 0.05;
  o.momentum = 0.9;
  o.nesterov = true;
  o.weightDecay = 1e-3;
  o.clipGradNorm = 1.0;
  expectFusedOptimizerMatches(o, 2);
}

TEST(Training, FusedOptimizerMatchesPerParameterAdam) {
  expectFusedOptimizerMatches(tg::Adam{{}, 0.01}, 0);
}

}  // namespace
