// Graph bundles exported from upstream itself (bundles/*.tgbundle.json, written by
// upstream/gen_goldens.sh --bundles through tensorgrad/js/tgbundle.mjs) imported and trained
// natively: the same graph, the recorded browser losses to the bit, the recorded forward
// outputs; `diff` names a deliberately perturbed kernel; malformed bundles each give an error
// naming the field; golden runs record and check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>

#include "tensorgrad/json.h"
#include "tensorgrad/parity.h"
#include "tensorgrad/parity_gtest.h"

namespace {

std::string bundlePath(const std::string& name) {
  return std::string(TG_PARITY_BUNDLE_DIR) + "/" + name + ".tgbundle.json";
}

nlohmann::json bundleJson(const std::string& name) {
  return nlohmann::json::parse(std::ifstream(bundlePath(name)));
}

// The bundle graph without call sites: what graphToJson writes.
nlohmann::json withoutSites(nlohmann::json graph) {
  for (auto& t : graph["tensors"]) t.erase("site");
  return graph;
}

tg::RuntimeOptions cpuOptions() {
  tg::RuntimeOptions o;
  o.cacheDir = TG_TEST_CACHE_DIR;
  return o;
}

// Chromium's own WebGPU device: its SwiftShader Vulkan driver (Debian's chromium, which
// scripts/setup.sh installs).
tg::RuntimeOptions swiftShaderOptions() {
  tg::RuntimeOptions o = cpuOptions();
  o.vulkanDriver = "swiftshader";
  return o;
}

class BundleCase : public ::testing::TestWithParam<std::string> {};

TEST_P(BundleCase, ImportsTheSameGraph) {
  const nlohmann::json j = bundleJson(GetParam());
  const tg::Bundle b = tg::loadBundle(bundlePath(GetParam()));
  EXPECT_EQ(tg::graphToJson(tg::importGraph(b).graph), withoutSites(j["training"]["graph"]));
  for (size_t i = 0; i < b.forwards.size(); ++i) {
    EXPECT_EQ(tg::graphToJson(tg::importForward(b, b.forwards[i]).graph),
              withoutSites(j["forwards"][i]["graph"]))
        << b.forwards[i].name;
  }
  // Our codegen emits a kernel for the same ops as upstream's.
  const tg::CompiledIR ir = tg::importGraph(b);
  for (size_t i = 0; i < ir.kernels.size(); ++i)
    EXPECT_EQ(ir.kernels[i].wgsl.empty(), b.kernels[i].wgsl.empty()) << "op " << i;
}

TEST_P(BundleCase, TrainsBitIdenticalToTheRecordedBrowserLosses) {
  const tg::Bundle b = tg::loadBundle(bundlePath(GetParam()));
  ASSERT_GE(b.steps.size(), 3u);
  tg::parity::RunOptions o;
  o.runtime = cpuOptions();
  const tg::parity::RunReport r = tg::parity::runBundle(b, o);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.steps.size(), b.steps.size());
  for (const auto& s : r.steps)
    EXPECT_EQ(s.ulps, 0) << "step " << s.step << ": " << s.native << " vs " << s.recorded;
  EXPECT_EQ(r.forwards.size(), [&] {
    size_t n = 0;
    for (const auto& f : b.forwards) n += f.runs.size();
    return n;
  }());
  for (const auto& f : r.forwards) EXPECT_TRUE(f.ok) << f.name << ": " << f.maxUlps << " ulp";
  EXPECT_TRUE(r.passed());
}

INSTANTIATE_TEST_SUITE_P(Upstream, BundleCase,
                         ::testing::Values("mlp_sin", "transformer", "mnist_cnn", "digit_canvas"));

// Bundles recorded in Chromium (upstream on WebGPU over SwiftShader; the recorder's download
// path; upstream/gen_goldens.sh --bundles --chromium) hold what the Node recording holds — the
// graph, kernels, params, feeds and forwards — with the browser's own losses.
class ChromiumBundle : public ::testing::TestWithParam<std::string> {};

TEST_P(ChromiumBundle, HoldsTheNodeRecordingsGraphKernelsParamsAndFeeds) {
  const nlohmann::json node = bundleJson(GetParam()), chromium = bundleJson(GetParam() + ".chromium");
  EXPECT_EQ(chromium["adapter"], "google swiftshader");
  EXPECT_EQ(withoutSites(chromium["training"]["graph"]), withoutSites(node["training"]["graph"]));
  EXPECT_EQ(chromium["training"]["kernels"], node["training"]["kernels"]);
  EXPECT_EQ(chromium["params"], node["params"]);
  ASSERT_EQ(chromium["steps"].size(), node["steps"].size());
  for (size_t i = 0; i < node["steps"].size(); ++i)
    EXPECT_EQ(chromium["steps"][i]["feeds"], node["steps"][i]["feeds"]) << "step " << i + 1;
  ASSERT_EQ(chromium["forwards"].size(), node["forwards"].size());
  for (size_t i = 0; i < node["forwards"].size(); ++i) {
    EXPECT_EQ(withoutSites(chromium["forwards"][i]["graph"]), withoutSites(node["forwards"][i]["graph"]));
    EXPECT_EQ(chromium["forwards"][i]["runs"].size(), node["forwards"][i]["runs"].size());
  }
  // The user's call sites (the case's model code) are the same frames in both recordings' V8.
  size_t compared = 0;
  const auto& tensors = node["training"]["graph"]["tensors"];
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& frames = tensors[i]["site"]["frames"];
    if (frames.empty() || frames[0].get<std::string>().find("<repo>/tests/parity/cases/") == std::string::npos)
      continue;
    EXPECT_EQ(chromium["training"]["graph"]["tensors"][i]["site"]["frames"][0], frames[0]) << "tensor " << i;
    ++compared;
  }
  EXPECT_GT(compared, 5u);
}

// On the device the browser ran on, every recorded loss and forward output has the browser's
// bits: here Chromium's own SwiftShader.
TEST_P(ChromiumBundle, TrainsBitIdenticalOnChromiumsSwiftShader) {
  const tg::Bundle b = tg::loadBundle(bundlePath(GetParam() + ".chromium"));
  const tg::parity::ReplayDevice device = tg::parity::replayDevice(b);
  EXPECT_EQ(device.kind, tg::parity::ReplayDevice::Kind::SwiftShader);
  EXPECT_EQ(device.missing, "");
  tg::parity::RunOptions o;
  o.runtime = swiftShaderOptions();
  const tg::parity::RunReport r = tg::parity::runBundle(b, o);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.steps.size(), b.steps.size());
  for (const auto& s : r.steps) EXPECT_EQ(s.ulps, 0) << "step " << s.step;
  ASSERT_FALSE(r.forwards.empty());
  for (const auto& f : r.forwards) EXPECT_EQ(f.differing, 0u) << f.name << ": " << f.maxUlps << " ulp";
  EXPECT_TRUE(r.passed());
}

INSTANTIATE_TEST_SUITE_P(Upstream, ChromiumBundle, ::testing::Values("mlp_sin", "transformer"));

// Upstream in Chromium completed steps whose loss was NaN (SwiftShader's tanh is NaN for
// |x| >= 89; bundle_cases/tanh_overflow.mjs feeds it such inputs from step 3): on SwiftShader the
// replay computes the same NaNs, the forward's NaN outputs bit for bit included.
TEST(ChromiumBundle, NanLossesReplayOnSwiftShader) {
  const tg::Bundle b = tg::loadBundle(bundlePath("tanh_overflow.chromium"));
  tg::parity::RunOptions o;
  o.runtime = swiftShaderOptions();
  const tg::parity::RunReport r = tg::parity::runBundle(b, o);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.steps.size(), 8u);
  for (const auto& s : r.steps) {
    EXPECT_TRUE(s.ok) << "step " << s.step;
    EXPECT_EQ(std::isnan(s.native), s.step >= 3) << "step " << s.step;
  }
  ASSERT_EQ(r.forwards.size(), 1u);
  EXPECT_EQ(r.forwards[0].differing, 0u);
  EXPECT_TRUE(r.passed());
}

// On lavapipe, whose tanh is finite there, the same bundle fails at step 3 and says the browser
// recorded NaN; the replay goes on to the end.
TEST(ChromiumBundle, NanLossesAreNamedOnAnotherDevice) {
  const tg::Bundle b = tg::loadBundle(bundlePath("tanh_overflow.chromium"));
  tg::parity::RunOptions o;
  o.runtime = cpuOptions();
  o.runtime.device = "llvmpipe";
  const tg::parity::RunReport r = tg::parity::runBundle(b, o);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.steps.size(), 8u);
  ASSERT_TRUE(r.firstFailure);
  EXPECT_EQ(*r.firstFailure, 3);
  EXPECT_EQ(tg::parity::describeUlps(r.steps[2].ulps), "NaN against a number");
  ASSERT_EQ(r.forwards.size(), 1u);
  EXPECT_EQ(r.forwards[0].differing, r.forwards[0].elements);
}

// One process, two devices: each compile runs on the driver its options name (a device is
// shared between compiles only when device, driver and cache agree).
TEST(ChromiumBundle, SwiftShaderAndLavapipeInOneProcess) {
  const tg::Bundle b = tg::loadBundle(bundlePath("transformer.chromium"));
  tg::parity::RunOptions o;
  o.steps = 2;
  o.runtime = swiftShaderOptions();
  EXPECT_EQ(tg::parity::runBundle(b, o).steps.at(1).ulps, 0);
  o.runtime = cpuOptions();
  o.runtime.device = "llvmpipe";
  EXPECT_EQ(tg::parity::runBundle(b, o).steps.at(1).ulps, 1);
  o.runtime = swiftShaderOptions();
  EXPECT_EQ(tg::parity::runBundle(b, o).steps.at(1).ulps, 0);
}

TEST(ReplayDevice, FollowsTheRecordingAdapter) {
  using Kind = tg::parity::ReplayDevice::Kind;
  tg::Bundle b;
  b.adapter = "google swiftshader";
  EXPECT_EQ(tg::parity::replayDevice(b).kind, Kind::SwiftShader);
  EXPECT_EQ(tg::parity::replayDevice(b).runtime.vulkanDriver, "swiftshader");
  b.adapter = "OpenGL version OpenGL ES 3.2 Mesa 22.3.6";  // Dawn for Node's GL backend
  EXPECT_EQ(tg::parity::replayDevice(b).kind, Kind::Lavapipe);
  EXPECT_EQ(tg::parity::replayDevice(b).runtime.device, "llvmpipe");
  b.adapter = "nvidia hopper";
  EXPECT_EQ(tg::parity::replayDevice(b).kind, Kind::Gpu);
  EXPECT_EQ(tg::parity::replayDevice(b).runtime.device, "nvidia");
  b.adapter.reset();
  EXPECT_EQ(tg::parity::replayDevice(b).kind, Kind::Unknown);
  EXPECT_EQ(tg::parity::replayDevice(b).runtime.device, "");
}

// A forward's report covers every element: the count past the tolerance, the first, and the
// largest distance anywhere (not the first past the tolerance).
TEST(Bundle, AForwardsReportScansEveryElement) {
  tg::Bundle b = tg::loadBundle(bundlePath("mlp_sin"));
  tg::RecordedRun& run = b.forwards.at(0).runs.at(0);
  std::vector<float> values = run.output.f32();
  ASSERT_GE(values.size(), 8u);
  auto bump = [&](size_t index, uint32_t ulps) {  // away from zero, for either sign
    uint32_t u;
    std::memcpy(&u, &values[index], 4);
    u += ulps;
    std::memcpy(&values[index], &u, 4);
  };
  bump(2, 1);
  bump(7, 9);
  run.output = values;
  tg::parity::RunOptions o;
  o.runtime = cpuOptions();
  o.steps = run.afterStep;
  const tg::parity::RunReport r = tg::parity::runBundle(b, o);
  ASSERT_EQ(r.forwards.size(), 1u);
  EXPECT_FALSE(r.forwards[0].ok);
  EXPECT_EQ(r.forwards[0].differing, 2u);
  EXPECT_EQ(r.forwards[0].firstIndex, 2u);
  EXPECT_EQ(r.forwards[0].maxUlps, 9);
  EXPECT_EQ(r.forwards[0].elements, values.size());
}

// A NaN loss completes its step and is compared like any other: the step after it still runs,
// and the report says "NaN against a number", not a huge ulp count.
TEST(Bundle, ANanLossIsComparedNotRefused) {
  nlohmann::json j = bundleJson("mlp_sin");
  j["steps"][1]["loss"] = "7fc00000";  // the browser "recorded" NaN at step 2
  tg::parity::RunOptions o;
  o.runtime = cpuOptions();
  o.steps = 3;
  const tg::parity::RunReport r = tg::parity::runBundle(tg::parseBundle(j.dump(), "nan"), o);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(*r.firstFailure, 2);
  EXPECT_EQ(tg::parity::describeUlps(r.steps[1].ulps), "NaN against a number");
  EXPECT_TRUE(r.steps[2].ok);
  EXPECT_TRUE((tg::parity::Tolerance{false, 1e-6}.accepts(NAN, NAN)));
  EXPECT_FALSE((tg::parity::Tolerance{false, 1e-6}.accepts(NAN, 1.0f)));
  EXPECT_TRUE((tg::parity::Tolerance{false, 1e-6}.accepts(INFINITY, INFINITY)));
}

// The README MLP trained in Chromium: native training gives its losses and forward outputs bit for
// bit.
TEST(ChromiumBundle, MlpTrainsBitIdenticalToChromium) {
  tg::parity::RunOptions o;
  o.runtime = cpuOptions();
  const tg::parity::RunReport r = tg::parity::runBundle(tg::loadBundle(bundlePath("mlp_sin.chromium")), o);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.steps.size(), 30u);
  for (const auto& s : r.steps) EXPECT_EQ(s.ulps, 0) << "step " << s.step;
  for (const auto& f : r.forwards) EXPECT_TRUE(f.ok) << f.name;
  EXPECT_TRUE(r.passed());
}

// SwiftShader rounds the transformer differently from Dawn-on-GL's llvmpipe, which native training
// matches: the exact comparison names the first step that differs (step 2, by one ulp); every loss
// is within 1e-5 relative, and the forward's logits after step 20 within 384 ulp.
TEST(ChromiumBundle, TransformerNamesTheFirstStepWhereSwiftShaderRoundsDifferently) {
  const tg::Bundle b = tg::loadBundle(bundlePath("transformer.chromium"));
  tg::parity::RunOptions o;
  o.runtime = cpuOptions();
  tg::parity::RunReport r = tg::parity::runBundle(b, o);
  EXPECT_EQ(r.error, "");
  ASSERT_TRUE(r.firstFailure);
  EXPECT_EQ(*r.firstFailure, 2);
  EXPECT_EQ(r.steps[0].ulps, 0);
  EXPECT_EQ(r.steps[1].ulps, 1);
  o.tolerance = {false, 1e-5};
  r = tg::parity::runBundle(b, o);
  EXPECT_FALSE(r.firstFailure);
  ASSERT_EQ(r.forwards.size(), 1u);
  // Over all 96 logits (the README's figure): 95 differ, the furthest by 384 ulp.
  EXPECT_EQ(r.forwards[0].maxUlps, 384);
  EXPECT_EQ(r.forwards[0].elements, 96u);
}

TEST(Bundle, AToleranceReportsTheFirstStepPastIt) {
  nlohmann::json j = bundleJson("mlp_sin");
  // The browser "recorded" another loss at step 3: one ulp up.
  std::string& bits = j["steps"][2]["loss"].get_ref<std::string&>();
  bits = [&] {
    char b[9];
    std::snprintf(b, sizeof b, "%08x", static_cast<unsigned>(std::stoul(bits, nullptr, 16) + 1));
    return std::string(b);
  }();
  const tg::Bundle b = tg::parseBundle(j.dump(), "perturbed");
  tg::parity::RunOptions o;
  o.runtime = cpuOptions();
  o.steps = 4;
  tg::parity::RunReport r = tg::parity::runBundle(b, o);
  ASSERT_TRUE(r.firstFailure);
  EXPECT_EQ(*r.firstFailure, 3);
  EXPECT_EQ(r.steps[2].ulps, 1);
  o.tolerance = {false, 1e-6};
  r = tg::parity::runBundle(b, o);
  EXPECT_FALSE(r.firstFailure);
  EXPECT_THROW(tg::parity::runBundle(b, {.steps = 1000}), std::invalid_argument);
}

// Version 2 bundles carry each step's and forward run's captures (the transformer's attention
// maps and residuals): replayed, every recorded one is compared element for element, and one
// changed by 3 ulp is named with its step.
TEST(Bundle, RecordedCapturesAreComparedAndADifferingOneIsNamed) {
  tg::Bundle b = tg::loadBundle(bundlePath("transformer"));
  EXPECT_EQ(b.version, 2);
  ASSERT_EQ(b.steps.at(1).captures.size(), 4u);
  tg::parity::RunOptions o;
  o.runtime = cpuOptions();
  o.steps = 2;
  tg::parity::RunReport r = tg::parity::runBundle(b, o);
  ASSERT_EQ(r.captures.size(), 8u);
  for (const auto& c : r.captures) EXPECT_TRUE(c.ok) << c.where << " " << c.name;
  EXPECT_TRUE(r.passed());

  std::vector<float> attn = b.steps[1].captures.at("attn.0").f32();
  uint32_t u;
  std::memcpy(&u, &attn[5], 4);
  u += 3;
  std::memcpy(&attn[5], &u, 4);
  b.steps[1].captures["attn.0"] = attn;
  r = tg::parity::runBundle(b, o);
  EXPECT_FALSE(r.passed());
  EXPECT_FALSE(r.firstFailure);  // the losses still match
  const auto bad = std::find_if(r.captures.begin(), r.captures.end(), [](const auto& c) { return !c.ok; });
  ASSERT_NE(bad, r.captures.end());
  EXPECT_EQ(bad->where, "step 2");
  EXPECT_EQ(bad->name, "attn.0");
  EXPECT_EQ(bad->differing, 1u);
  EXPECT_EQ(bad->firstIndex, 5u);
  EXPECT_EQ(bad->maxUlps, 3);
}

TEST(BundleErrors, ACaptureOfTheWrongShapeIsRejected) {
  nlohmann::json j = bundleJson("transformer");
  j["steps"][0]["captures"]["attn.0"] = {{"dtype", "f32"}, {"shape", {1}}, {"data", "AAAAAA=="}};
  try {
    tg::parseBundle(j.dump(), "bad capture");
    FAIL() << "accepted";
  } catch (const tg::BundleError& e) {
    EXPECT_NE(std::string(e.what()).find("steps[0].captures.attn.0: is [1] f32 but the graph's capture is [16, 2, 8, 8] f32"),
              std::string::npos) << e.what();
  }
}

TEST(Bundle, ImportedTrainingHasNoModelToTraceAgain) {
  const tg::Bundle b = tg::loadBundle(bundlePath("mlp_sin"));
  tg::Imported m = tg::compileImported(b, cpuOptions());
  // reset restores the bundle's parameters, not a fresh draw.
  m.training.step(b.steps[0].feeds).get();
  m.training.reset().get();
  EXPECT_EQ(m.training.downloadParams().get(), b.params);
  EXPECT_EQ(m.training.paramNames(), b.paramNames);
  EXPECT_THROW(m.training.attach({}), std::logic_error);
  tg::Module other;
  EXPECT_THROW(m.training.replaceModel(other).get(), std::logic_error);
  EXPECT_THROW(m.forward("nope"), std::invalid_argument);
  // An imported forward runs at its recorded shape only, and says so for another.
  const auto& f = b.forwards.at(0);
  tg::Feed wrong = f.runs.at(0).feeds;
  wrong.begin()->second = std::vector<float>(3, 0.5f);
  const tg::RunResult r = m.forward(f.name).run(wrong).get();
  EXPECT_EQ(r.kind, tg::ResultKind::Failed);
  EXPECT_NE(r.error.find(wrong.begin()->first), std::string::npos) << r.error;
}

// ---- diff: the first kernel whose output differs from upstream's kernel in Dawn ----

TEST(BundleDiff, FindsNoDifferenceInAnExactModel) {
  const tg::Bundle b = tg::loadBundle(bundlePath("mlp_sin"));
  tg::parity::DiffOptions o;
  o.runtime = cpuOptions();
  o.step = 2;
  const tg::parity::DiffReport r = tg::parity::diffBundle(b, o);
  EXPECT_FALSE(r.first) << "op " << r.first->opIndex << " " << tg::opKindName(r.first->kind);
  EXPECT_GT(r.kernels, 30u);
}

// The bundle with its first relu kernel changed to compute max(x, 0.5): a browser kernel that
// differs from ours. Returns the op index changed.
int perturbFirstRelu(nlohmann::json& j) {
  for (auto& k : j["training"]["kernels"]) {
    std::string& wgsl = k["wgsl"].get_ref<std::string&>();
    const size_t at = wgsl.find("max(");
    if (k["opKind"] == "relu" && at != std::string::npos) {
      const size_t zero = wgsl.find("0.0", at);
      if (zero == std::string::npos) return -1;
      wgsl.replace(zero, 3, "0.5");
      return k["opIndex"].get<int>();
    }
  }
  return -1;
}

// diff of bundle `name` with its first relu changed, on `runtime`: the oracle named, and the
// changed kernel found.
void expectDiffNamesPerturbedRelu(const std::string& name, const tg::RuntimeOptions& runtime,
                                  const std::string& oracle) {
  nlohmann::json j = bundleJson(name);
  const int perturbed = perturbFirstRelu(j);
  ASSERT_GE(perturbed, 0);
  tg::parity::DiffOptions o;
  o.runtime = runtime;
  const tg::parity::DiffReport r = tg::parity::diffBundle(tg::parseBundle(j.dump(), "perturbed"), o);
  EXPECT_EQ(r.oracle, oracle);
  ASSERT_TRUE(r.first);
  EXPECT_EQ(r.first->opIndex, perturbed);
  EXPECT_EQ(r.first->kind, tg::OpKind::Relu);
  EXPECT_GT(r.first->differing, 0u);
  EXPECT_NE(r.first->upstreamWgsl.find("0.5"), std::string::npos);
  EXPECT_NE(r.first->site.find("relu"), std::string::npos) << r.first->site;
}

TEST(BundleDiff, NamesADeliberatelyPerturbedKernel) {
  expectDiffNamesPerturbedRelu("mlp_sin", cpuOptions(), "Dawn for Node");
}

// ---- diff of a Chromium recording: upstream's kernels run in headless Chromium ----

// On Chromium's own device every kernel of the transformer gives the browser's bits, so a
// failing `run` always leads somewhere: only a kernel that really differs is named.
TEST(ChromiumBundleDiff, FindsNoDifferenceOnSwiftShader) {
  tg::parity::DiffOptions o;
  o.runtime = swiftShaderOptions();
  o.step = 2;
  const tg::parity::DiffReport r = tg::parity::diffBundle(tg::loadBundle(bundlePath("transformer.chromium")), o);
  EXPECT_EQ(r.oracle, "headless Chromium");
  EXPECT_NE(r.oracleAdapter.find("swiftshader"), std::string::npos) << r.oracleAdapter;
  EXPECT_FALSE(r.first) << "op " << r.first->opIndex << " " << tg::opKindName(r.first->kind);
  EXPECT_GT(r.kernels, 600u);
}

TEST(ChromiumBundleDiff, NamesADeliberatelyChangedKernel) {
  expectDiffNamesPerturbedRelu("mlp_sin.chromium", swiftShaderOptions(), "headless Chromium");
}

// Across devices diff names where they round differently: lavapipe against Chromium's
// SwiftShader, the transformer's first such kernel at step 2 is the causal softmax.
TEST(ChromiumBundleDiff, NamesWhereLavapipeRoundsUnlikeChromium) {
  tg::parity::DiffOptions o;
  o.runtime = cpuOptions();
  o.runtime.device = "llvmpipe";
  o.step = 2;
  const tg::parity::DiffReport r = tg::parity::diffBundle(tg::loadBundle(bundlePath("transformer.chromium")), o);
  EXPECT_EQ(r.oracle, "headless Chromium");
  ASSERT_TRUE(r.first);
  EXPECT_EQ(r.first->kind, tg::OpKind::SoftmaxCausalLast);
  EXPECT_GT(r.first->maxUlps, 0);
  EXPECT_LT(r.first->maxUlps, 100);
}

TEST(BundleDiff, SaysWhatToInstallWithoutNode) {
  const tg::Bundle b = tg::loadBundle(bundlePath("mlp_sin"));
  tg::parity::DiffOptions o;
  o.runtime = cpuOptions();
  o.node = "/nonexistent/node";
  try {
    tg::parity::diffBundle(b, o);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Node.js"), std::string::npos) << e.what();
  }
}

// ---- malformed bundles: a clear error naming the field ----

struct Malformed {
  const char* name;
  std::function<void(nlohmann::json&)> edit;
  const char* message;  // a substring of the error
};

nlohmann::json& firstOp(nlohmann::json& j, const char* kind) {
  for (auto& op : j["training"]["graph"]["ops"]) {
    if (op["kind"] == kind) return op;
  }
  throw std::logic_error(std::string("no ") + kind + " op");
}

TEST(BundleErrors, EachMalformedBundleIsRejectedNamingTheField) {
  const std::vector<Malformed> cases = {
      {"wrong format", [](nlohmann::json& j) { j["format"] = "something-else"; }, "format: expected \"tensorgrad-bundle\""},
      {"future version", [](nlohmann::json& j) { j["version"] = 3; }, "version 3 is not supported"},
      {"captures in a version 1 bundle", [](nlohmann::json& j) { j["steps"][0]["captures"] = nlohmann::json::object(); },
       "steps[0]: unknown field 'captures'"},
      {"a capture the graph does not have", [](nlohmann::json& j) {
         j["version"] = 2;
         j["steps"][0]["captures"]["nope"] = {{"dtype", "f32"}, {"shape", {1}}, {"data", "AAAAAA=="}};
       }, "steps[0].captures: 'nope' is not a capture of the graph"},
      {"unknown top-level field", [](nlohmann::json& j) { j["extra"] = 1; }, "unknown field 'extra'"},
      {"unknown op kind", [](nlohmann::json& j) { firstOp(j, "relu")["kind"] = "swish"; }, "unknown op kind \"swish\""},
      {"unknown op field", [](nlohmann::json& j) { firstOp(j, "relu")["alpha"] = 1; }, "(relu): unknown field 'alpha'"},
      {"dangling tensor id", [](nlohmann::json& j) { firstOp(j, "relu")["a"] = 99999; }, "(relu): field 'a': tensor 99999 does not exist"},
      {"tensor used before its op", [](nlohmann::json& j) {
         auto& op = firstOp(j, "matmul");
         op["a"] = op["out"];
       }, "is read before any op produces it"},
      {"shape against the op's rule", [](nlohmann::json& j) {
         const int out = firstOp(j, "matmul")["out"];
         j["training"]["graph"]["tensors"][out]["shape"][0] = 7;
       }, "but the op gives"},
      {"negative dim", [](nlohmann::json& j) { j["training"]["graph"]["tensors"][0]["shape"][0] = -4; }, "not positive"},
      {"wrong tensor dtype", [](nlohmann::json& j) { j["training"]["graph"]["tensors"][0]["dtype"] = "f16"; }, "expected a dtype"},
      {"missing param values", [](nlohmann::json& j) {
         // A safetensors file with no tensors: {} padded to 16 bytes (24 in all: whole base64 quanta).
         const std::string header = "{}              ";
         std::string bytes(8, '\0');
         bytes[0] = static_cast<char>(header.size());
         bytes += header;
         static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
         std::string b64;
         for (size_t i = 0; i < bytes.size(); i += 3) {
           const uint32_t n = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
           for (int k = 3; k >= 0; --k) b64 += digits[(n >> (6 * k)) & 63];
         }
         j["params"] = b64;
       }, "params: missing parameter"},
      {"params not base64", [](nlohmann::json& j) { j["params"] = "not*base64"; }, "params: base64 length"},
      {"param name not in graph", [](nlohmann::json& j) { j["training"]["paramNames"].push_back("ghost.W"); }, "'ghost.W' has no param_input op"},
      {"kernel count", [](nlohmann::json& j) { j["training"]["kernels"].erase(0); }, "kernels for"},
      {"kernel of another op", [](nlohmann::json& j) { j["training"]["kernels"][1]["opKind"] = "exp"; }, "training.kernels[1].opKind"},
      {"writeback to no state", [](nlohmann::json& j) { j["training"]["writebacks"][0]["destName"] = "adam_m_ghost"; }, "no state named 'adam_m_ghost'"},
      {"unknown optimizer", [](nlohmann::json& j) { j["training"]["optimizer"]["kind"] = "lion"; }, "unknown optimizer 'lion'"},
      {"negative learning rate", [](nlohmann::json& j) { j["training"]["optimizer"]["lr"] = -1; }, "training.optimizer: tensorgrad: optimizer.lr = -1 is out of range"},
      {"feed of the wrong dtype", [](nlohmann::json& j) { j["steps"][0]["feeds"]["x"]["dtype"] = "i32"; }, "steps[0].feeds.x: is [256, 1] i32 but the input is declared [256, 1] f32"},
      {"feed of the wrong size", [](nlohmann::json& j) {
         std::string& d = j["steps"][0]["feeds"]["x"]["data"].get_ref<std::string&>();
         d = d.substr(0, d.size() - 8);
       }, "steps[0].feeds.x.data: holds"},
      {"feed missing", [](nlohmann::json& j) { j["steps"][1]["feeds"].erase("y"); }, "steps[1].feeds: does not feed input 'y'"},
      {"undeclared feed", [](nlohmann::json& j) { j["steps"][1]["feeds"]["z"] = j["steps"][1]["feeds"]["y"]; }, "feeds an undeclared input 'z'"},
      {"loss not bits", [](nlohmann::json& j) { j["steps"][0]["loss"] = 0.5; }, "steps[0].loss: expected a string"},
      {"input not in graph", [](nlohmann::json& j) { j["training"]["inputs"][0]["name"] = "w"; }, "is not a declared input"},
      {"non-finite attribute as null", [](nlohmann::json& j) { firstOp(j, "mul_scalar")["scalar"] = nullptr; }, "non-finite number as null"},
      {"forward reading an unknown param", [](nlohmann::json& j) {
         for (auto& op : j["forwards"][0]["graph"]["ops"]) {
           if (op["kind"] == "param_input") {
             op["name"] = "ghost";
             break;
           }
         }
       }, "parameter 'ghost'"},
  };
  const nlohmann::json good = bundleJson("mlp_sin");
  EXPECT_NO_THROW(tg::parseBundle(good.dump(), "good"));
  for (const Malformed& c : cases) {
    nlohmann::json j = good;
    try {
      c.edit(j);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << ": the edit failed: " << e.what();
      continue;
    }
    try {
      tg::parseBundle(j.dump(), "case.tgbundle.json");
      ADD_FAILURE() << c.name << ": accepted";
    } catch (const tg::BundleError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("case.tgbundle.json: ", 0), 0u) << c.name << ": " << m;
      EXPECT_NE(m.find(c.message), std::string::npos) << c.name << ": " << m;
    }
  }
  // Not JSON at all, truncated, and not a file.
  const std::string text = good.dump();
  EXPECT_THROW(tg::parseBundle(text.substr(0, text.size() / 2), "t"), tg::BundleError);
  // A number past double's range is a JSON library error other than a syntax error (found by
  // runtime.fuzz_bundle): it is a BundleError too, never an exception that ends the process.
  std::string overflow = text;
  const size_t version = overflow.find("\"version\":");
  ASSERT_NE(version, std::string::npos);
  overflow.insert(version + std::string("\"version\":").size(), "1e508,\"v\":");
  try {
    tg::parseBundle(overflow, "overflow");
    ADD_FAILURE() << "a number of 1e508 was accepted";
  } catch (const tg::BundleError& e) {
    EXPECT_NE(std::string(e.what()).find("overflow: not valid JSON"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1e508"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tg::loadBundle("/nonexistent.tgbundle.json"), tg::BundleError);
  EXPECT_THROW(tg::loadBundle(TG_PARITY_BUNDLE_DIR), tg::BundleError);
}

// Upstream decays with any weightDecay > 0, "adam" or "adamw"; the reader follows its rule.
TEST(BundleErrors, AnAdamWithWeightDecayReadsAsAdamW) {
  nlohmann::json j = bundleJson("mlp_sin");
  EXPECT_TRUE(std::holds_alternative<tg::Adam>(tg::parseBundle(j.dump(), "b").optimizer));
  j["training"]["optimizer"]["weightDecay"] = 0.1;
  const tg::OptimizerConfig o = tg::parseBundle(j.dump(), "b").optimizer;
  ASSERT_TRUE(std::holds_alternative<tg::AdamW>(o));
  EXPECT_EQ(std::get<tg::AdamW>(o).weightDecay, 0.1);
  j["training"]["optimizer"]["kind"] = "adamw";
  j["training"]["optimizer"].erase("weightDecay");
  EXPECT_THROW(tg::parseBundle(j.dump(), "b"), tg::BundleError);  // adamw must say its decay
}

// ---- golden runs ----

TEST(Golden, RecordsAndChecksARun) {
  const tg::Bundle b = tg::loadBundle(bundlePath("mlp_sin"));
  std::vector<tg::Feed> feeds;
  for (size_t i = 0; i < 3; ++i) feeds.push_back(b.steps[i].feeds);
  tg::Imported m = tg::compileImported(b, cpuOptions());
  const tg::parity::Golden g = tg::parity::recordGolden(m.training, feeds);
  ASSERT_EQ(g.lossBits.size(), 3u);
  EXPECT_EQ(g.lossBits[0], b.steps[0].lossBits);
  EXPECT_EQ(g.params.size(), b.paramNames.size());
  const auto file = std::filesystem::temp_directory_path() / ("golden_" + std::to_string(::getpid()) + ".json");
  tg::parity::saveGolden(g, file);
  const tg::parity::Golden back = tg::parity::loadGolden(file);
  std::filesystem::remove(file);
  EXPECT_EQ(tg::parity::compareGolden(back, g), "");
  // A second run from the same start gives the same fingerprint; one step less does not.
  m.training.reset().get();
  EXPECT_EQ(tg::parity::compareGolden(g, tg::parity::recordGolden(m.training, feeds)), "");
  m.training.reset().get();
  feeds.pop_back();
  const std::string diff = tg::parity::compareGolden(g, tg::parity::recordGolden(m.training, feeds));
  EXPECT_NE(diff.find("steps: golden has 3, the run 2"), std::string::npos) << diff;
  EXPECT_NE(diff.find("param 'l1.W': differs"), std::string::npos) << diff;
  EXPECT_THROW(tg::parity::loadGolden("/nonexistent.json"), std::invalid_argument);
  // A number past double's range is an error naming the file, not an exception of the JSON library.
  {
    std::ofstream(file) << "{\"format\":\"tensorgrad-golden\",\"version\":1e508}";
    try {
      tg::parity::loadGolden(file);
      ADD_FAILURE() << "a golden file with 1e508 was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(file.string() + ": not valid JSON"), std::string::npos)
          << e.what();
    }
    std::filesystem::remove(file);
  }
}

// The GoogleTest helper on a C++ model: the first run writes the golden, a run from the same seed
// matches it, a run from another seed does not.
TEST(Golden, GoogleTestHelperOnACppModel) {
  const auto file = std::filesystem::temp_directory_path() / ("golden_mlp_" + std::to_string(::getpid()) + ".json");
  std::filesystem::remove(file);
  std::vector<tg::Feed> feeds;
  for (int s = 0; s < 3; ++s) {
    std::vector<float> x(8), y(8);
    for (int i = 0; i < 8; ++i) {
      x[i] = 0.25f * static_cast<float>(i - 4 + s);
      y[i] = std::sin(x[i]);
    }
    feeds.push_back({{"x", x}, {"y", y}});
  }
  const tg_models::MLP model;
  auto spec = tg_models::mlpSpec(model, 8);
  spec.seed = 7;
  tg::parity::expectMatchesGolden(tg::compile(spec, cpuOptions()), feeds, file);
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_TRUE(tg::parity::matchesGolden(tg::compile(spec, cpuOptions()), feeds, file));
  spec.seed = 8;
  const ::testing::AssertionResult other = tg::parity::matchesGolden(tg::compile(spec, cpuOptions()), feeds, file);
  EXPECT_FALSE(other);
  EXPECT_NE(std::string(other.message()).find("step 1: loss"), std::string::npos) << other.message();
  std::filesystem::remove(file);
}

TEST(Golden, UlpDistance) {
  EXPECT_EQ(tg::parity::ulpDistance(1.f, 1.f), 0);
  EXPECT_EQ(tg::parity::ulpDistance(0.f, -0.f), 0);
  EXPECT_EQ(tg::parity::ulpDistance(1.f, std::nextafter(1.f, 2.f)), 1);
  EXPECT_EQ(tg::parity::ulpDistance(-std::numeric_limits<float>::denorm_min(),
                                    std::numeric_limits<float>::denorm_min()),
            2);
  EXPECT_EQ(tg::parity::ulpDistance(NAN, 1.f), std::numeric_limits<int64_t>::max());
}

}  // namespace
