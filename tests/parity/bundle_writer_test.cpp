// The bundle writer (makeBundle, formatBundle, saveBundle): the exact inverse of the reader on
// upstream's own bundles, C++ models from the zoo written and read back, upstream's kernels
// whatever the compile ran, what it refuses; and a C++ model's recorded bundle opened by
// tg-inspect and replayed bit for bit by tgparity, as a user runs them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <tensorgrad/bundle.h>
#include <tensorgrad/json.h>
#include <tensorgrad/models/registry.h>

#include "shell.h"

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

std::string bundlePath(const std::string& name) {
  return std::string(TG_PARITY_BUNDLE_DIR) + "/" + name + ".tgbundle.json";
}

Json readJson(const std::string& path) {
  std::ifstream in(path);
  return Json::parse(in);
}

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("tg_bundle_writer_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

using test_support::Shell;
using test_support::shell;

std::vector<std::string> wgslOf(const std::vector<tg::UpstreamKernel>& kernels) {
  std::vector<std::string> out;
  for (const auto& k : kernels) out.push_back(k.wgsl);
  return out;
}

// ---- upstream's bundles: read, written, the same JSON ----

class UpstreamBundle : public ::testing::TestWithParam<std::string> {};

// Everything but the params (a safetensors file: same tensors, another header layout) and the
// optimizer (upstream writes the fields its kind has; the values are compared) is the same JSON.
TEST_P(UpstreamBundle, WritesBackToTheSameJson) {
  const std::string path = bundlePath(GetParam());
  const tg::Bundle b = tg::loadBundle(path);
  const std::string text = tg::formatBundle(b);
  Json original = readJson(path), written = Json::parse(text);
  const tg::Bundle again = tg::parseBundle(text, "written");
  EXPECT_EQ(again.params, b.params);
  EXPECT_EQ(tg::formatBundle(again), text);
  // What a C++-written bundle's kernels stand on: for upstream's own graph, this build's default
  // set under the pooled plan dispatches as upstream did, binding the same buffers.
  const tg::CompiledIR ours = tg::importGraph(b);
  ASSERT_EQ(ours.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < b.kernels.size(); ++i) {
    EXPECT_EQ(ours.kernels[i].wgsl.empty(), b.kernels[i].wgsl.empty()) << "op " << i;
    if (b.kernels[i].wgsl.empty()) continue;
    EXPECT_EQ(ours.kernels[i].bindings, b.kernels[i].bindings) << "op " << i;
    EXPECT_EQ(ours.kernels[i].threads, b.kernels[i].threads) << "op " << i;
    EXPECT_EQ(ours.kernels[i].workgroupSize, b.kernels[i].workgroupSize) << "op " << i;
  }
  for (const char* key :
       {"kind", "lr", "beta1", "beta2", "eps", "momentum", "nesterov", "clipGradNorm"}) {
    if (original["training"]["optimizer"].contains(key)) {
      EXPECT_EQ(written["training"]["optimizer"][key], original["training"]["optimizer"][key])
          << key;
    }
  }
  for (Json* j : {&original, &written}) {
    j->erase("params");
    (*j)["training"].erase("optimizer");
  }
  // Upstream omits an absent site and an empty runs list; the writer says null and [].
  for (Json* j : {&original, &written}) {
    auto normalize = [](Json& graph) {
      for (Json& t : graph["tensors"])
        if (t.contains("site") && t["site"].is_null()) t.erase("site");
    };
    normalize((*j)["training"]["graph"]);
    for (Json& f : (*j)["forwards"]) {
      normalize(f["graph"]);
      if (f.contains("runs") && f["runs"].empty()) f.erase("runs");
    }
  }
  EXPECT_EQ(written["training"], original["training"]);
  EXPECT_EQ(written["forwards"], original["forwards"]);
  EXPECT_EQ(written["steps"], original["steps"]);
  EXPECT_EQ(written["version"], original["version"]);
  EXPECT_EQ(written["adapter"], original["adapter"]);
}

INSTANTIATE_TEST_SUITE_P(Bundles, UpstreamBundle,
                         ::testing::Values("mlp_sin", "transformer", "transformer.chromium",
                                           "mnist_cnn", "digit_canvas"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           std::replace(n.begin(), n.end(), '.', '_');
                           return n;
                         });

// ---- C++ models from the zoo ----

struct ZooCase {
  std::string model;
  tg_models::Sizes sizes;
};

class ZooBundle : public ::testing::TestWithParam<ZooCase> {};

TEST_P(ZooBundle, ReadsBackToTheSameBundle) {
  const tg_models::Sample sample =
      tg_models::findSample(GetParam().model).make(GetParam().sizes, 11);
  const tg::CompiledIR ir = sample.trace();
  const tg::Bundle b = tg::makeBundle(ir);
  const std::string text = tg::formatBundle(b);
  const tg::Bundle back = tg::parseBundle(text, GetParam().model);

  EXPECT_EQ(tg::formatBundle(back), text);
  EXPECT_EQ(back.version, ir.graph.captures.empty() ? 1 : 2);
  EXPECT_EQ(tg::graphToJson(back.graph), tg::graphToJson(ir.graph));
  EXPECT_EQ(back.seed, ir.seed);
  EXPECT_EQ(back.optimizer.index(), sample.spec().optimizer.index());
  ASSERT_EQ(back.inputs.size(), sample.spec().inputs.size());
  for (size_t i = 0; i < back.inputs.size(); ++i) {
    EXPECT_EQ(back.inputs[i].first, sample.spec().inputs[i].first);
    EXPECT_EQ(back.inputs[i].second.shape, sample.spec().inputs[i].second.shape);
    EXPECT_EQ(back.inputs[i].second.dtype, sample.spec().inputs[i].second.dtype);
  }
  std::vector<std::string> names;
  for (const auto& [name, values] : tg::initialParams(ir, ir.seed)) {
    names.push_back(name);
    EXPECT_EQ(back.params.at(name), values) << name;
  }
  EXPECT_EQ(back.paramNames, names);
  EXPECT_EQ(back.paramGrads, ir.paramGrads);
  ASSERT_EQ(back.writebacks.size(), ir.optimizer.writebacks.size());
  for (size_t i = 0; i < back.writebacks.size(); ++i) {
    EXPECT_EQ(back.writebacks[i].source, ir.optimizer.writebacks[i].source);
    EXPECT_EQ(back.writebacks[i].destName, ir.optimizer.writebacks[i].destName);
  }
  // Call sites come back as one frame naming the file, line and function.
  size_t sites = 0;
  for (size_t i = 0; i < ir.graph.tensors.size(); ++i) {
    const auto& want = ir.graph.tensors[i].site;
    const auto& got = back.graph.tensors[i].site;
    ASSERT_EQ(want.has_value(), got.has_value()) << "tensor " << i;
    if (!want) continue;
    ++sites;
    EXPECT_EQ(got->opName, want->opName);
    ASSERT_EQ(got->frames.size(), 1u);
    const std::string line = ":" + std::to_string(want->location.line()) + ":";
    EXPECT_NE(got->frames[0].find(want->location.file_name() + line), std::string::npos)
        << got->frames[0];
  }
  EXPECT_GT(sites, 0u);
  // The kernels are the default set's for the pooled plan: what the traced IR ran, and what a
  // reader's importGraph makes of the bundle.
  std::vector<std::string> traced;
  for (const auto& k : ir.kernels) traced.push_back(k.wgsl);
  EXPECT_EQ(wgslOf(back.kernels), traced);
  const tg::CompiledIR imported = tg::importGraph(back);
  for (size_t i = 0; i < imported.kernels.size(); ++i) {
    EXPECT_EQ(imported.kernels[i].wgsl, back.kernels[i].wgsl) << "op " << i;
    EXPECT_EQ(imported.kernels[i].bindings, back.kernels[i].bindings) << "op " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, ZooBundle,
    ::testing::Values(
        ZooCase{"mlp-sin", {{"batch", 8}}},
        ZooCase{"transformer", {{"d", 16}, {"layers", 1}, {"heads", 2}, {"batch", 4}}},
        ZooCase{"vae", {{"input-dim", 16}, {"latent", 2}, {"hidden", 8}, {"batch", 4}}},
        ZooCase{"digit-canvas", {{"input-dim", 16}, {"hidden", 8}, {"batch", 4}}},
        ZooCase{"mnist-cnn",
                {{"batch", 2}, {"image-size", 8}, {"conv1", 2}, {"conv2", 2}, {"hidden", 4}}}),
    [](const ::testing::TestParamInfo<ZooCase>& p) {
      std::string n = p.param.model;
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });

TEST(BundleWriter, WritesUpstreamsKernelsWhateverSetTheCompileRan) {
  const tg_models::Sample sample =
      tg_models::findSample("transformer")
          .make({{"d", 16}, {"layers", 1}, {"heads", 2}, {"batch", 4}}, 2);
  const tg::CompiledIR fast = sample.trace({.kernels = tg::KernelSet::Fast}, /*poolBuffers=*/false);
  const tg::CompiledIR upstream = sample.trace();
  const tg::Bundle b = tg::makeBundle(fast);
  // The graph as traced: the fast set's passes rewrote the compile's (its query gradient reads K
  // itself, a transpose fewer), not the bundle's.
  EXPECT_LT(fast.graph.ops.size(), upstream.graph.ops.size());
  EXPECT_EQ(b.graph.ops.size(), upstream.graph.ops.size());
  EXPECT_EQ(wgslOf(b.kernels), wgslOf(tg::makeBundle(upstream).kernels));
  size_t differ = 0;
  for (size_t i = 0; i < fast.kernels.size(); ++i)
    differ += fast.kernels[i].wgsl != b.kernels[i].wgsl;
  EXPECT_GT(differ, 0u) << "the fast set ran other kernels; the bundle must not hold them";
}

// A model of the test's own: an infinite fill, an SGD with every field set and a nested lr
// schedule, a capture (version 2).
struct Masked : tg::Module {
  tg::Linear l{*this, "l", 4, 4};
};

TEST(BundleWriter, NonFiniteAttributesSchedulesAndCapturesRoundTrip) {
  Masked m;
  tg::SGD sgd;
  sgd.lr = tg::lr::Warmup{
      0.1, 5, std::make_shared<const tg::LR>(tg::lr::cosineAnnealing(0.1, 0.01, 20)), 3};
  sgd.momentum = 0.9;
  sgd.nesterov = true;
  sgd.weightDecay = 0.001;
  sgd.clipGradNorm = 1.5;
  const tg::CompiledIR ir = tg::trace(tg::TrainingSpec<Masked>{
      .model = m,
      .loss =
          [](const Masked& mm, const tg::Inputs& in) {
            const tg::Tensor scores =
                tg::capture("scores", tg::whereCausal(mm.l.fwd(in["x"]), -INFINITY));
            return tg::mean(tg::softmax(scores));
          },
      .inputs = {{"x", {{4, 4}}}},
      .optimizer = sgd,
      .seed = 9});
  tg::Bundle b = tg::makeBundle(ir);
  EXPECT_EQ(b.version, 2);
  tg::RecordedStep step;
  step.feeds = {{"x", std::vector<float>(16, 0.5f)}};
  step.lossBits = 0x3f000000u;
  step.setLR = tg::lr::staircase(0.05, 4, 0.5);
  step.captures["scores"] = std::vector<float>(16, -1.0f);
  b.steps.push_back(step);
  const std::string text = tg::formatBundle(b);
  EXPECT_NE(text.find("\"-Infinity\""), std::string::npos);
  const tg::Bundle back = tg::parseBundle(text, "masked");
  EXPECT_EQ(tg::formatBundle(back), text);
  const auto& s = std::get<tg::SGD>(back.optimizer);
  EXPECT_EQ(s.momentum, 0.9);
  EXPECT_TRUE(s.nesterov);
  EXPECT_EQ(s.weightDecay, 0.001);
  EXPECT_EQ(s.clipGradNorm, 1.5);
  const auto& warmup = std::get<tg::lr::Warmup>(s.lr.schedule);
  EXPECT_EQ(warmup.startStep, 3);
  EXPECT_EQ(std::get<tg::lr::CosineAnnealing>(warmup.after->schedule).final, 0.01);
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_EQ(back.steps[0].lossBits, 0x3f000000u);
  EXPECT_EQ(std::get<tg::lr::Staircase>(back.steps[0].setLR->schedule).every, 4);
  EXPECT_EQ(back.steps[0].captures.at("scores").f32(), std::vector<float>(16, -1.0f));
}

TEST(BundleWriter, RefusesWhatIsNoBundle) {
  const tg_models::Sample sample = tg_models::findSample("mlp-sin").make({{"batch", 4}}, 1);
  const tg::CompiledIR ir = sample.trace();
  tg::InputDecls inputs = sample.forwards()[0].spec.inputs;
  for (auto& [name, d] : inputs)
    for (int64_t& x : d.shape) x = x == tg::null ? 3 : x;
  const tg::CompiledIR forward =
      tg::traceForward(tg::ForwardSpec<tg::Module>{.model = sample.spec().model,
                                                   .forward = sample.forwards()[0].spec.forward,
                                                   .inputs = inputs});
  EXPECT_THROW(tg::makeBundle(forward), tg::BundleError);
  EXPECT_THROW(tg::makeBundleForward("f", ir), tg::BundleError);

  tg::Bundle b = tg::makeBundle(ir);
  b.steps.push_back({.feeds = {{"nope", std::vector<float>{1}}}});
  try {
    tg::formatBundle(b);
    ADD_FAILURE() << "an undeclared feed was written";
  } catch (const tg::BundleError& e) {
    EXPECT_NE(std::string(e.what()).find("steps[0].feeds: feeds an undeclared input 'nope'"),
              std::string::npos)
        << e.what();
  }

  b = tg::makeBundle(ir);
  b.params.erase(b.paramNames.front());
  const fs::path dir = scratch("refuses");
  try {
    tg::saveBundle(b, dir / "missing.tgbundle.json");
    ADD_FAILURE() << "a bundle without a parameter was written";
  } catch (const tg::BundleError& e) {
    EXPECT_NE(std::string(e.what()).find("would not read back"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing parameter '" + b.paramNames.front() + "'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "missing.tgbundle.json"));

  try {
    tg::saveBundle(tg::makeBundle(ir), dir / "no" / "such" / "dir.tgbundle.json");
    ADD_FAILURE() << "wrote into a missing directory";
  } catch (const tg::BundleError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "no" / "such" / "dir.tgbundle.json").string() +
                                         ": cannot write"),
              std::string::npos)
        << e.what();
  }

  tg::StepResult failed;
  failed.error = "bad input";
  EXPECT_THROW(tg::recordStep({}, failed), std::invalid_argument);
}

TEST(BundleWriter, Base64MatchesRfc4648) {
  const std::string text = "foobar";
  for (size_t n = 0; n <= text.size(); ++n) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
    const std::string encoded = tg::encodeBase64(std::span<const uint8_t>(bytes, n));
    const char* want[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    EXPECT_EQ(encoded, want[n]);
    const auto decoded = tg::decodeBase64(encoded);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(std::string(decoded->begin(), decoded->end()), text.substr(0, n));
  }
}

// ---- a C++ model's recorded bundle through the tools ----

TEST(BundleWriterTools, InspectAndParityOpenARecordedCppModel) {
  ::setenv("TENSORGRAD_CACHE_DIR", TG_TEST_CACHE_DIR, 1);
  tg::RuntimeOptions o;
  o.cacheDir = TG_TEST_CACHE_DIR;
  const tg::WebGPUSupport support = tg::checkWebGPU(o);
  ASSERT_TRUE(support.ok) << support.message;
  const tg_models::Sample sample = tg_models::findSample("mlp-sin").make({{"batch", 16}}, 7);
  const tg_models::SampleTraining t = sample.compile(o);
  tg::Bundle b = tg::makeBundle(t.training);
  b.adapter = support.adapter;
  tg::Mulberry32 rng(5);
  for (int i = 0; i < 3; ++i) {
    tg::Feed feed = sample.feed(rng);
    b.steps.push_back(tg::recordStep(feed, t.training.step(feed).get()));
  }
  const tg::Feed input = sample.forwards()[0].feed(rng);
  const auto ir = t.forwards[0].second.graphFor(input).get();
  b.forwards.push_back(tg::makeBundleForward(t.forwards[0].first, *ir));
  b.forwards[0].runs.push_back(
      tg::recordRun(b.forwards[0], 3, input, t.forwards[0].second.run(input).get()));
  const fs::path dir = scratch("tools");
  const std::string file = (dir / "mlp.tgbundle.json").string();
  tg::saveBundle(b, file);

  Shell r = shell(std::string(TG_INSPECT) + " summary " + file);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("mlp.tgbundle.json"), std::string::npos) << r.out;
  r = shell(std::string(TG_INSPECT) + " kernels " + file);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("mlp_sin.h:"), std::string::npos) << "the C++ call sites:\n" << r.out;
  EXPECT_NE(r.out.find("tg_models::mlpLoss"), std::string::npos) << r.out;
  r = shell(std::string(TG_INSPECT) + " wgsl " + file + " 0 --upstream");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("@compute"), std::string::npos) << r.out;

  r = shell(std::string(TG_PARITY) + " run " + file);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("PASS: 3 steps within exact"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("forward predict after step 3: matches"), std::string::npos) << r.out;
  // The bundle's kernels (the default set's, standing in for upstream's) give every kernel's
  // native bits at a recorded step, where tgparity diff runs them for the recording's device: in
  // Dawn for Node, or in headless Chromium for a recording on Chromium's SwiftShader.
  r = shell(std::string(TG_PARITY) + " diff " + file + " --step 2");
  EXPECT_EQ(r.status, 0) << r.out;
  const bool onSwiftShader = tg::loadBundle(file).adapter.value_or("").find("SwiftShader") != std::string::npos;
  EXPECT_NE(r.out.find(std::string("give the same bits natively and as upstream's kernels in ") +
                       (onSwiftShader ? "headless Chromium" : "Dawn")),
            std::string::npos)
      << r.out;
  const std::string golden = (dir / "golden.json").string();
  r = shell(std::string(TG_PARITY) + " record " + file + " -o " + golden);
  EXPECT_EQ(r.status, 0) << r.out;
  r = shell(std::string(TG_PARITY) + " check " + file + " " + golden);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("PASS: 3 steps"), std::string::npos) << r.out;
  fs::remove_all(dir.parent_path());
}

}  // namespace
