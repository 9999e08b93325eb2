// Forward graphs: attach (shared params, visibility, parametric shapes and their LRU),
// compileForward with safetensors weights, i32 outputs, captures, replaceModel aborting queued
// work, destroy cascading, the binding-limit error, singleFlight and the SPIR-V disk cache.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>

#include <nlohmann/json.hpp>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>

#include "runtime_test_util.h"

namespace {

using rt_test::await;
using rt_test::completedRun;
using rt_test::completedStep;

tg::Tensor predict(const tg_models::MLP& m, const tg::Inputs& in) {
  return tg_models::mlpForward(m, in["x"]);
}

// The CPU reference evaluator's output of `ir` for these params and inputs.
std::vector<float> cpuOutput(const tg::CompiledIR& ir, const tg::ParamMap& params,
                             const std::map<std::string, std::vector<float>>& inputs) {
  tg::EvalInputs env;
  for (const auto& p : ir.params) env.params[p->path] = tg::HostTensor::f32(p->shape, params.at(p->path));
  for (const auto& [name, v] : inputs) {
    for (const tg::Op& op : ir.graph.ops) {
      if (op.kind == tg::OpKind::TensorInput && op.attrs.name == name)
        env.inputs[name] = tg::HostTensor::f32(ir.graph.tensors[static_cast<size_t>(op.out)].shape, v);
    }
  }
  return tg::evaluate(ir.graph, env)[static_cast<size_t>(ir.output)].f;
}

std::vector<float> linspace(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = -3.f + 6.f * static_cast<float>(i) / static_cast<float>(n);
  return x;
}

TEST(Forward, AttachedForwardSeesEveryStepWithoutCopies) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 16));
  auto infer = train.attach({.forward = predict, .inputs = {{"x", {{tg::null, 1}}}}});
  EXPECT_EQ(infer.paramNames(), train.paramNames());
  const auto x = linspace(5);
  const auto before = completedRun(infer.run({{"x", x}})).output.f32();
  std::vector<float> xs(16, 1.f), ys(16, 0.5f);
  completedStep(train.step({{"x", xs}, {"y", ys}}));
  const auto after = completedRun(infer.run({{"x", x}})).output.f32();
  EXPECT_NE(before, after);
  const auto ir = await(infer.graphFor({{"x", x}}));
  rt_test::expectClose(after, cpuOutput(*ir, await(train.downloadParams()), {{"x", x}}), 1e-5, 1e-6, "run");
  // uploadParams through the forward writes the shared buffers.
  tg::ParamMap zeros = await(infer.downloadParams());
  for (auto& [name, v] : zeros) std::fill(v.begin(), v.end(), 0.f);
  await(infer.uploadParams(zeros));
  EXPECT_EQ(await(train.downloadParams()), zeros);
}

TEST(Forward, ParametricShapesCompileOncePerShapeWithLruEviction) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  auto infer = train.attach({.forward = predict, .inputs = {{"x", {{tg::null, 1}}}}, .maxCachedShapes = 2});
  EXPECT_EQ(infer.cachedShapes(), 0u);
  const tg::ParamMap params = await(train.downloadParams());
  for (size_t n : {1u, 2u, 3u, 2u, 1u}) {
    const auto x = linspace(n);
    const auto out = completedRun(infer.run({{"x", x}})).output.f32();
    const auto ir = await(infer.graphFor({{"x", x}}));
    EXPECT_EQ(ir->graph.tensors[static_cast<size_t>(ir->output)].shape, (tg::Shape{static_cast<int64_t>(n), 1}));
    rt_test::expectClose(out, cpuOutput(*ir, params, {{"x", x}}), 1e-5, 1e-6, "B=" + std::to_string(n));
    EXPECT_LE(infer.cachedShapes(), 2u);
  }
  EXPECT_EQ(infer.cachedShapes(), 2u);
}

struct TwoInputs : tg::Module {
  tg::Linear l{*this, "l", 2, 1};
};

TEST(Forward, WildcardsMustAgreeAndInputsAreChecked) {
  TwoInputs model;
  auto fwd = tg::compileForward(tg::ForwardSpec<TwoInputs>{
      .model = model,
      .forward = [](const TwoInputs& m, const tg::Inputs& in) { return tg::add(m.l.fwd(in["a"]), in["b"]); },
      .inputs = {{"a", {{tg::null, 2}}}, {"b", {{tg::null, 1}}}}});
  auto r = await(fwd.run({{"a", std::vector<float>(6)}, {"b", std::vector<float>(4)}}));
  ASSERT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("'a' gives 3, input 'b' gives 4"), std::string::npos) << r.error;
  r = await(fwd.run({{"a", std::vector<float>(5)}, {"b", std::vector<float>(4)}}));
  ASSERT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("'a' (f32 [null, 2]) has 5 elements"), std::string::npos) << r.error;
  r = await(fwd.run({{"a", std::vector<float>(4)}}));
  ASSERT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("'b'"), std::string::npos) << r.error;
  EXPECT_EQ(completedRun(fwd.run({{"a", std::vector<float>(4)}, {"b", std::vector<float>(2)}})).output.size(), 2u);
}

// By default the runtime gives every intermediate its own buffer on a GPU and then lets those
// whose kernels' dispatch levels never meet share one (shared_plan_test.cpp has the details);
// on CPU devices it pools them as upstream does. A chain of element-wise ops on a 1 MiB vector
// needs a buffer per op with own buffers, a few real ones either way by default.
struct Chain : tg::Module {};
TEST(Forward, TheUnpooledBudgetIsAQuarterOfTheLargestBufferAndAtLeast256MiB) {
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  EXPECT_EQ(tg::unpooledBudgetBytes(0), tg::kUnpooledBudgetBytes);
  EXPECT_EQ(tg::unpooledBudgetBytes(kGiB), tg::kUnpooledBudgetBytes);
  EXPECT_EQ(tg::unpooledBudgetBytes(2 * kGiB), int64_t{512} << 20);
  EXPECT_EQ(tg::unpooledBudgetBytes(80 * kGiB), int64_t{20} << 30);
  EXPECT_EQ(tg::unpooledBudgetBytes(UINT64_MAX), (int64_t{1} << 62) - 1);  // no wrap to negative
  const tg::WebGPUSupport device = tg::checkWebGPU();
  if (device.cpu) {
    EXPECT_EQ(device.unpooledBudgetBytes, 0);
  } else {
    EXPECT_GE(device.unpooledBudgetBytes, tg::kUnpooledBudgetBytes);
  }
}
TEST(Forward, IntermediatesShareBuffersByDefaultAndHaveTheirOwnWhenAsked) {
  Chain model;
  auto chainOf = [&](int ops, std::optional<bool> pool = std::nullopt) {
    return tg::compileForward(tg::ForwardSpec<Chain>{
        .model = model,
        .forward = [ops](const Chain&, const tg::Inputs& in) {
          tg::Tensor y = in["x"];
          for (int i = 0; i < ops; ++i) y = tg::addScalar(tg::mulScalar(y, 0.5), 1.0);
          return y;
        },
        .inputs = {{"x", {{262144}}}}}, {.poolBuffers = pool});
  };
  const auto views = [](const tg::CompiledIR& ir) {
    return std::count_if(ir.plan.buffers.begin(), ir.plan.buffers.end(),
                         [](const tg::BufferSpec& b) { return b.parent >= 0; });
  };
  const std::vector<float> x(262144, 2.0f);
  const bool gpu = !tg::checkWebGPU().cpu;
  for (const int ops : {20, 140}) {  // 40 and 280 MiB with own buffers
    SCOPED_TRACE(ops);
    auto chain = chainOf(ops);
    const auto ir = await(chain.graphFor({{"x", x}}));
    EXPECT_LE(ir->plan.totalBytes(), 6 << 20);
    if (gpu) {
      EXPECT_EQ(views(*ir), 2 * ops - 1);  // every op's value but the output's
    }
    EXPECT_EQ(completedRun(chain.run({{"x", x}})).output.f32()[7], 2.0f);  // 2 is the fixed point
  }
  // Asked for, own buffers are used on any device: the input and one per op.
  auto unpooled = chainOf(20, false);
  const auto ir = await(unpooled.graphFor({{"x", x}}));
  EXPECT_EQ(ir->plan.buffers.size(), 41u);
  EXPECT_EQ(views(*ir), 0);
  EXPECT_EQ(completedRun(unpooled.run({{"x", x}})).output.f32()[7], 2.0f);
}

// Write a .safetensors file by hand (the format is a JSON header and raw little-endian bytes).
std::vector<uint8_t> safetensorsBytes(const tg::ParamMap& params) {
  nlohmann::json header = nlohmann::json::object();
  std::vector<uint8_t> data;
  for (const auto& [name, v] : params) {
    header[name] = {{"dtype", "F32"}, {"shape", {v.size()}}, {"data_offsets", {data.size(), data.size() + v.size() * 4}}};
    const auto* b = reinterpret_cast<const uint8_t*>(v.data());
    data.insert(data.end(), b, b + v.size() * 4);
  }
  header["step"] = {{"dtype", "I64"}, {"shape", nlohmann::json::array()}, {"data_offsets", {data.size(), data.size() + 8}}};
  data.resize(data.size() + 8);
  const std::string h = header.dump();
  const uint64_t len = h.size();
  std::string file(reinterpret_cast<const char*>(&len), 8);
  file += h;
  file.append(data.begin(), data.end());
  return std::vector<uint8_t>(file.begin(), file.end());
}

TEST(Forward, CompileForwardRunsImportedSafetensorsWeights) {
  tg_models::MLP trained;
  auto train = tg::compile(tg_models::mlpSpec(trained, 16));
  std::vector<float> xs(16, 0.3f), ys(16, 0.2f);
  for (int i = 0; i < 3; ++i) completedStep(train.step({{"x", xs}, {"y", ys}}));
  const tg::ParamMap weights = await(train.downloadParams());
  const auto file = std::filesystem::temp_directory_path() / "tg_runtime_test.safetensors";
  {
    const auto bytes = safetensorsBytes(weights);
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const tg::SafetensorsData st = tg::loadSafetensors(file);
  std::filesystem::remove(file);
  EXPECT_EQ(st.skipped.at("step"), "I64");
  EXPECT_EQ(st.tensors, weights);

  tg_models::MLP fresh;
  auto backbone = tg::compileForward(tg::ForwardSpec<tg_models::MLP>{
      .model = fresh, .forward = predict, .inputs = {{"x", {{4, 1}}}}, .seed = 5});
  EXPECT_NE(await(backbone.downloadParams()), weights);
  await(backbone.uploadParams(st.tensors));
  auto reference = train.attach({.forward = predict, .inputs = {{"x", {{4, 1}}}}});
  const std::vector<float> x = {-1.f, 0.f, 0.5f, 2.f};
  EXPECT_EQ(completedRun(backbone.run({{"x", x}})).output.f32(), completedRun(reference.run({{"x", x}})).output.f32());
}

TEST(Forward, SafetensorsErrorsNameTheProblem) {
  EXPECT_THROW(tg::loadSafetensors(std::vector<uint8_t>{1, 2}), std::invalid_argument);
  auto bad = safetensorsBytes({{"w", {1.f, 2.f}}});
  bad[8] = '!';  // the header JSON no longer opens with {
  EXPECT_THROW(tg::loadSafetensors(bad), std::invalid_argument);
  nlohmann::json h = {{"w", {{"dtype", "F16"}, {"shape", {1}}, {"data_offsets", {0, 2}}}}};
  const std::string s = h.dump();
  const uint64_t len = s.size();
  std::string file(reinterpret_cast<const char*>(&len), 8);
  file += s + std::string(2, '\0');
  const std::vector<uint8_t> f16(file.begin(), file.end());
  try {
    tg::loadSafetensors(f16);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'w' has dtype F16"), std::string::npos) << e.what();
  }
}

TEST(Forward, IntegerOutputsAndDeclaredDtypeChecks) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  auto argmax = train.attach({.forward = [](const tg_models::MLP& m, const tg::Inputs& in) {
                                return tg::argmax(tg::reshape(tg_models::mlpForward(m, in["x"]), {1, -1}), -1);
                              },
                              .inputs = {{"x", {{6, 1}}}},
                              .output = tg::Dtype::I32});
  const auto x = linspace(6);
  const auto idx = completedRun(argmax.run({{"x", x}})).output.i32();
  ASSERT_EQ(idx.size(), 1u);
  auto values = train.attach({.forward = predict, .inputs = {{"x", {{6, 1}}}}});
  const auto y = completedRun(values.run({{"x", x}})).output.f32();
  EXPECT_EQ(idx[0], std::max_element(y.begin(), y.end()) - y.begin());
  // As upstream, attach compiles nothing: the mistake surfaces as the first run's failure.
  auto wrong = train.attach({.forward = predict, .inputs = {{"x", {{6, 1}}}}, .output = tg::Dtype::I32});
  const tg::RunResult r = wrong.run({{"x", x}}).get();
  EXPECT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("declares output i32 but its traced output is f32"), std::string::npos) << r.error;
}

// A forward whose static shapes do not fit the model attaches (as upstream's does) and its runs
// fail naming the op and shapes; the trainer is unaffected.
TEST(Forward, AttachOfAShapeThatDoesNotFitFailsItsRuns) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  auto bad = train.attach({.forward = predict, .inputs = {{"x", {{6, 2}}}}});
  const std::vector<float> x(12, 0.5f);
  const tg::RunResult r = bad.run({{"x", x}}).get();
  ASSERT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("matmul"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("[6, 2]"), std::string::npos) << r.error;
  EXPECT_THROW(bad.graphFor({{"x", x}}).get(), tg::ShapeError);
  const std::vector<float> xs = linspace(8);
  EXPECT_EQ(train.step({{"x", xs}, {"y", xs}}).get().kind, tg::ResultKind::Completed);
}

struct Captured : tg::Module {
  tg::Linear l{*this, "l", 3, 4};
};

TEST(Forward, CapturesComeBackWithTheOutput) {
  Captured model;
  auto fwd = tg::compileForward(tg::ForwardSpec<Captured>{
      .model = model,
      .forward = [](const Captured& m, const tg::Inputs& in) {
        const tg::Tensor h = tg::capture("hidden", tg::relu(m.l.fwd(in["x"])));
        tg::capture("heads", tg::reshape(h, {1, 2, 2, 2}));
        return tg::sum(h);
      },
      .inputs = {{"x", {{2, 3}}}},
      .seed = 9});
  const std::vector<float> x = {1, -2, 3, 0.5f, 0.25f, -1};
  const tg::RunResult r = completedRun(fwd.run({{"x", x}}));
  EXPECT_EQ(r.captures.names(), (std::vector<std::string>{"heads", "hidden"}));
  EXPECT_EQ(r.captures.shape("hidden"), (tg::Shape{2, 4}));
  const auto& hidden = r.captures.get("hidden").f32();
  float total = 0;
  for (float v : hidden) total += v;
  EXPECT_NEAR(r.output.f32()[0], total, 1e-5);
  const auto heads = r.captures.perHead("heads");
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[1], std::vector<float>(hidden.begin() + 4, hidden.end()));
  EXPECT_THROW(r.captures.get("nope"), std::out_of_range);
  // A graph without capture sites reads back its output only.
  auto plain = tg::compileForward(tg::ForwardSpec<Captured>{
      .model = model, .forward = [](const Captured& m, const tg::Inputs& in) { return m.l.fwd(in["x"]); },
      .inputs = {{"x", {{2, 3}}}}});
  EXPECT_TRUE(completedRun(plain.run({{"x", x}})).captures.names().empty());
}

TEST(Forward, ReplaceModelAbortsQueuedWorkAndRecompilesAttachedForwards) {
  tg_models::MLP first, second;
  auto train = tg::compile(tg_models::mlpSpec(first, 256));
  auto infer = train.attach({.forward = predict, .inputs = {{"x", {{tg::null, 1}}}}});
  completedRun(infer.run({{"x", linspace(3)}}));
  EXPECT_EQ(infer.cachedShapes(), 1u);
  std::vector<float> xs(256, 0.1f), ys(256, 0.3f);
  std::vector<std::future<tg::StepResult>> queued;
  for (int i = 0; i < 30; ++i) queued.push_back(train.step({{"x", xs}, {"y", ys}}));
  auto queuedRun = infer.run({{"x", linspace(3)}});
  auto replaced = train.replaceModel(second, {.seed = 42});
  int aborted = 0;
  for (auto& f : queued) aborted += await(std::move(f)).kind == tg::ResultKind::Aborted;
  EXPECT_GT(aborted, 0);
  EXPECT_EQ(await(std::move(queuedRun)).kind, tg::ResultKind::Aborted);
  await(std::move(replaced));
  EXPECT_EQ(infer.cachedShapes(), 0u);
  // Seed 42 again: the first step after the swap reproduces upstream's step-0 state.
  const tg::ParamMap fresh = await(train.downloadParams());
  EXPECT_EQ(fresh.at("l1.W")[0], -0.019123245030641556f);
  completedStep(train.step({{"x", xs}, {"y", ys}}));
  completedRun(infer.run({{"x", linspace(3)}}));
  EXPECT_EQ(infer.cachedShapes(), 1u);
  // The optimizer kind is fixed for a compile.
  EXPECT_THROW(await(train.replaceModel(second, {.optimizer = tg::SGD{}})), std::invalid_argument);
}

TEST(Forward, DestroyCascadesToAttachedForwards) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  auto infer = train.attach({.forward = predict, .inputs = {{"x", {{2, 1}}}}});
  completedRun(infer.run({{"x", std::vector<float>{1, 2}}}));
  train.destroy();
  const tg::RunResult r = await(infer.run({{"x", std::vector<float>{1, 2}}}));
  EXPECT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("destroyed"), std::string::npos) << r.error;
  EXPECT_EQ(infer.cachedShapes(), 0u);
}

struct Huge : tg::Module {
  tg::Tensor w = param("w", {1 << 16, 1 << 15});  // 8 GiB of f32: over any binding limit
};

TEST(Forward, TensorOverTheBindingLimitIsACompileErrorNamingIt) {
  Huge model;
  try {
    tg::compileForward(tg::ForwardSpec<Huge>{
        .model = model, .forward = [](const Huge& m, const tg::Inputs&) { return tg::sum(m.w); }, .inputs = {}});
    ADD_FAILURE();
  } catch (const tg::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'w' [65536, 32768] needs 8589934592 bytes"), std::string::npos) << e.what();
  }
}

TEST(Forward, SingleFlightKeepsOneInFlightAndTheLatestQueued) {
  tg_models::MLP model;
  auto fwd = tg::compileForward(tg::ForwardSpec<tg_models::MLP>{
      .model = model, .forward = predict, .inputs = {{"x", {{4096, 1}}}}});
  auto predictOnce = tg::singleFlight<tg::Feed, tg::RunResult>([&](tg::Feed f) { return fwd.run(std::move(f)); });
  std::vector<std::future<tg::SingleFlightResult<tg::RunResult>>> calls;
  for (int i = 0; i < 5; ++i) calls.push_back(predictOnce({{"x", std::vector<float>(4096, static_cast<float>(i))}}));
  std::vector<tg::ResultKind> kinds;
  for (auto& c : calls) kinds.push_back(await(std::move(c)).kind);
  EXPECT_EQ(kinds.front(), tg::ResultKind::Completed);
  EXPECT_EQ(kinds.back(), tg::ResultKind::Completed);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), tg::ResultKind::Aborted), 3);
}

// The shim's SPIR-V entries in the device's blob cache (one file per key, see gpu_worker.cpp).
bool isSpirvEntry(const std::filesystem::path& p) {
  return p.filename().string().rfind("wgsl-spirv-", 0) == 0;
}

TEST(Forward, SpirvDiskCacheIsReusedAndSurvivesCorruptEntries) {
  const auto dir = std::filesystem::temp_directory_path() / ("tg_cache_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  tg_models::MLP model;
  // SPIR-V entries by name, with their modification times.
  auto entries = [&] {
    std::map<std::string, std::filesystem::file_time_type> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (isSpirvEntry(e.path())) out[e.path().filename()] = e.last_write_time();
    }
    return out;
  };
  auto header = [&](const std::string& name) {
    std::ifstream in(dir / name, std::ios::binary);
    std::string head(20, '\0');
    in.read(head.data(), 20);
    head.resize(static_cast<size_t>(in.gcount()));
    return head;
  };
  tg::compile(tg_models::mlpSpec(model, 8), {.cacheDir = dir});
  const auto first = entries();
  EXPECT_GT(first.size(), 20u);  // one per distinct kernel
  // A second compile on a new device (nothing in memory) reads every entry and rewrites none.
  tg::releaseDevices();
  tg::compile(tg_models::mlpSpec(model, 8), {.cacheDir = dir});
  EXPECT_EQ(entries(), first);
  for (const auto& [name, time] : first) std::ofstream(dir / name, std::ios::binary | std::ios::trunc) << "garbage";
  // The device outlives the compiles that used it: the next compile takes its pipelines from
  // memory and reads no entry, so the corruption goes unnoticed...
  tg::compile(tg_models::mlpSpec(model, 8), {.cacheDir = dir});
  for (const auto& [name, time] : first) EXPECT_EQ(header(name), "garbage") << name;
  // ...until a new device reads the entries, translates the kernels again and repairs them.
  tg::releaseDevices();
  auto train = tg::compile(tg_models::mlpSpec(model, 8), {.cacheDir = dir});
  EXPECT_EQ(entries().size(), first.size());
  // Rewritten as cache entries (the format's version follows the shim's, so only its name).
  for (const auto& [name, time] : first)
    EXPECT_TRUE(header(name).starts_with("webgpu-shim-spirv-v")) << name << ": " << header(name);
  std::vector<float> xs(8, 0.5f), ys(8, 0.25f);
  EXPECT_TRUE(std::isfinite(completedStep(train.step({{"x", xs}, {"y", ys}})).loss));
  // An entry whose WGSL matches but whose SPIR-V is not valid (it starts with the SPIR-V magic;
  // the rest is junk) is a miss in the shim and is translated again, never handed to the driver.
  for (const auto& [name, time] : first) {
    std::string bytes;
    {
      std::ifstream in(dir / name, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    // The SPIR-V is the entry's tail: the first SPIR-V magic word after the text fields.
    const size_t spirvAt = bytes.find(std::string("\x03\x02\x23\x07", 4), 20);
    ASSERT_NE(spirvAt, std::string::npos);
    const std::string good = bytes;
    bytes.resize(spirvAt);
    const uint32_t junk[] = {0x07230203u, 0x00010300u, 0u, 99u, 0u, 0xdeadbeefu};
    bytes.append(reinterpret_cast<const char*>(junk), sizeof junk);
    std::ofstream(dir / name, std::ios::binary | std::ios::trunc) << bytes;
    tg::releaseDevices();
    auto again = tg::compile(tg_models::mlpSpec(model, 8), {.cacheDir = dir});
    EXPECT_TRUE(std::isfinite(completedStep(again.step({{"x", xs}, {"y", ys}})).loss));
    std::ifstream in(dir / name, std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), good) << "not repaired: " << name;
    break;  // one entry is enough
  }
  std::filesystem::remove_all(dir);
}

TEST(Forward, NonFiniteInputsFailTheRunNamingTheInputAndIndex) {
  tg_models::MLP model;
  auto fwd = tg::compileForward(tg::ForwardSpec<tg_models::MLP>{
      .model = model, .forward = predict, .inputs = {{"x", {{tg::null, 1}}}}});
  const tg::ParamMap before = await(fwd.downloadParams());
  std::vector<float> x = linspace(6);
  x[4] = NAN;
  tg::RunResult r = await(fwd.run({{"x", x}}));
  EXPECT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("run: input 'x' has NaN at index 4"), std::string::npos) << r.error;
  // A run has no parameters to protect: the message does not claim it does.
  EXPECT_EQ(r.error.find("parameters"), std::string::npos) << r.error;
  x[4] = 0.f;
  x[2] = INFINITY;
  r = await(fwd.run({{"x", x}}));
  EXPECT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("run: input 'x' has +Inf at index 2"), std::string::npos) << r.error;
  tg::ParamMap bad = before;
  bad.at("l1.b")[5] = NAN;
  try {
    await(fwd.uploadParams(bad));
    ADD_FAILURE() << "accepted a NaN param";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("uploadParams: 'l1.b' has NaN at index 5"), std::string::npos) << e.what();
  }
  EXPECT_EQ(await(fwd.downloadParams()), before);
  x[2] = 0.f;
  completedRun(fwd.run({{"x", x}}));
}

// A parametric input whose known dims alone overflow fails the run saying so, naming the input
// (attach traces nothing until a run resolves the shape).
TEST(Forward, OverflowingParametricShapeFailsNamingTheInput) {
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8));
  auto fwd = train.attach({.forward = [](const tg_models::MLP& m, const tg::Inputs& in) {
                             return tg_models::mlpForward(m, tg::reshape(in["x"], {-1, 1}));
                           },
                           .inputs = {{"x", {{tg::null, int64_t{1} << 32, int64_t{1} << 32}}}}});
  const tg::RunResult r = await(fwd.run({{"x", std::vector<float>(4, 1.f)}}));
  EXPECT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find("input 'x'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("overflows"), std::string::npos) << r.error;
}

// ---- disk cache faults cost speed, never a compile ----

// The cache directory of one test, emptied before and after.
struct CacheDir {
  std::filesystem::path path;
  explicit CacheDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("tg_cache_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
  }
  ~CacheDir() { std::filesystem::remove_all(path); }
  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(path)) {
      if (isSpirvEntry(e.path())) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string fileBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A compile on a new device (so every entry is read) of the MLP, and one step.
void compileAndStep(const std::filesystem::path& dir) {
  tg::releaseDevices();
  tg_models::MLP model;
  auto train = tg::compile(tg_models::mlpSpec(model, 8), {.cacheDir = dir});
  std::vector<float> xs(8, 0.5f), ys(8, 0.25f);
  EXPECT_TRUE(std::isfinite(completedStep(train.step({{"x", xs}, {"y", ys}})).loss));
}

TEST(Forward, SpirvCacheEntriesThatAreDirectoriesAreSkipped) {
  CacheDir dir("dirs");
  compileAndStep(dir.path);
  const auto entries = dir.entries();
  ASSERT_GT(entries.size(), 20u);
  for (const auto& e : entries) {
    std::filesystem::remove(e);
    std::filesystem::create_directories(e / "sub");
  }
  EXPECT_NO_THROW(compileAndStep(dir.path));
  EXPECT_NO_THROW(compileAndStep(dir.path));  // still in the way: skipped again, never fatal
  for (const auto& e : entries) EXPECT_TRUE(std::filesystem::is_directory(e)) << e;
}

TEST(Forward, SpirvCacheEntryThatIsAFifoDoesNotBlockAndIsReplaced) {
  CacheDir dir("fifo");
  compileAndStep(dir.path);
  const auto entries = dir.entries();
  ASSERT_FALSE(entries.empty());
  const auto fifo = entries.front();
  const std::string good = fileBytes(fifo);
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto done = std::async(std::launch::async, [&] { compileAndStep(dir.path); });
  if (done.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "compile blocked on a FIFO in the cache";
    // Unblock the reader: a writer opens and closes the FIFO (end of file).
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  done.get();
  EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(fifo)));
  EXPECT_EQ(fileBytes(fifo), good);  // rewritten with this kernel's entry
}

// An entry with this kernel's WGSL but another kernel's valid SPIR-V is a miss: the kernel is
// translated again and its entry rewritten. With another interface it would be a bind-group error
// on every compile; with the same interface (same bindings, same workgroup size) it would run the
// wrong code silently. The SPIR-V is an entry's tail, after the WGSL (whatever the header holds).
void expectSwappedSpirvIsRepaired(bool sameInterface) {
  CacheDir dir(sameInterface ? "swap_same" : "swap_other");
  compileAndStep(dir.path);
  tg_models::MLP model;
  const auto kernels = tg::compile(tg_models::mlpSpec(model, 8), {.cacheDir = "none"}).kernels();
  struct Entry {
    std::filesystem::path path;
    std::string bytes;
    size_t spirvAt = 0;
    size_t bindings = 0;
    uint32_t workgroupSize = 0;
  };
  std::vector<Entry> found;
  for (const auto& p : dir.entries()) {
    Entry e{p, fileBytes(p)};
    for (const auto& k : kernels) {
      const size_t at = k.wgsl.empty() ? std::string::npos : e.bytes.find(k.wgsl);
      if (at == std::string::npos) continue;
      e.spirvAt = e.bytes.find(std::string("\x03\x02\x23\x07", 4), at + k.wgsl.size());
      e.bindings = k.bindings.size();
      e.workgroupSize = k.workgroupSize;
    }
    if (e.spirvAt != 0 && e.spirvAt != std::string::npos) found.push_back(std::move(e));
  }
  ASSERT_GT(found.size(), 2u);
  const Entry* victim = nullptr;
  const Entry* donor = nullptr;
  for (const Entry& a : found) {
    for (const Entry& b : found) {
      const bool same = a.bindings == b.bindings && a.workgroupSize == b.workgroupSize;
      if (&a != &b && same == sameInterface && a.bytes.substr(a.spirvAt) != b.bytes.substr(b.spirvAt)) {
        victim = &a;
        donor = &b;
      }
    }
  }
  ASSERT_NE(donor, nullptr);
  std::ofstream(victim->path, std::ios::binary | std::ios::trunc)
      << victim->bytes.substr(0, victim->spirvAt) + donor->bytes.substr(donor->spirvAt);
  EXPECT_NO_THROW(compileAndStep(dir.path));
  EXPECT_EQ(fileBytes(victim->path), victim->bytes) << "not repaired: " << victim->path;
  EXPECT_NO_THROW(compileAndStep(dir.path));
}

TEST(Forward, SpirvCacheEntryWithAnotherInterfacesSpirvIsRepaired) {
  expectSwappedSpirvIsRepaired(false);
}

TEST(Forward, SpirvCacheEntryWithSameInterfaceOtherKernelsSpirvIsRepaired) {
  expectSwappedSpirvIsRepaired(true);
}

}  // namespace
