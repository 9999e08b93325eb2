// tgparity: run a model traced in the browser natively and say where its numbers part from the
// browser's. See `tgparity --help` and the README's "Test a browser model natively".
#include <CLI/CLI.hpp>
#include <charconv>

#include <cstdio>
#include <cstring>
#include <iostream>

#include <tensorgrad/models/registry.h>
#include "tensorgrad/parity.h"

namespace {

// The device the user named (--device, --vulkan-driver); none: the bundle's recording device.
struct DeviceChoice {
  std::string device, vulkanDriver;
  bool given() const { return !device.empty() || !vulkanDriver.empty(); }
  tg::RuntimeOptions runtime() const {
    tg::RuntimeOptions o;
    o.device = device;
    o.vulkanDriver = vulkanDriver;
    return o;
  }
};

// The runtime options that replay `b` on the device it was recorded on, saying which device that
// is; when it is missing here, says what to install and falls back to the default device.
tg::RuntimeOptions replayOptions(const tg::Bundle& b, const DeviceChoice& user) {
  const tg::parity::ReplayDevice match = tg::parity::replayDevice(b);
  const std::string recorded = match.recordedOn.empty() ? "(not recorded in the bundle)" : "'" + match.recordedOn + "'";
  tg::RuntimeOptions o = user.given() ? user.runtime() : match.runtime;
  std::string missing = user.given() ? std::string() : match.missing;
  tg::WebGPUSupport support;
  if (missing.empty()) {
    support = tg::checkWebGPU(o);
    if (!support.ok) missing = support.message;
  }
  if (!missing.empty()) {
    if (user.given()) throw std::runtime_error(missing);
    std::fprintf(stderr,
                 "tgparity: the bundle was recorded on %s, whose bits come from %s natively; that device is "
                 "missing here:\n  %s\nReplaying on the default device instead, where the bits may differ and "
                 "only a tolerance (--rtol) can apply.\n",
                 recorded.c_str(), match.description.c_str(), missing.c_str());
    o = user.runtime();
    support = tg::checkWebGPU(o);
    if (!support.ok) throw std::runtime_error(support.message);
  }
  o.failOnNonFiniteLoss = false;  // a NaN loss completes its step in the browser too
  std::printf("device %s%s\nrecorded on %s\n", support.adapter.c_str(),
              user.given() ? " (chosen by --device/--vulkan-driver)"
              : missing.empty() ? (" (" + match.description + ", matching the recording)").c_str()
                                : " (the default: the matching device is missing)",
              recorded.c_str());
  std::fflush(stdout);
  return o;
}

int runCommand(const std::string& file, std::optional<int64_t> steps, const DeviceChoice& device,
               std::optional<double> rtol) {
  const tg::Bundle b = tg::loadBundle(file);
  tg::parity::RunOptions o;
  o.steps = steps;
  o.runtime = replayOptions(b, device);
  if (rtol) o.tolerance = {false, *rtol};
  o.onStep = [](const tg::parity::StepComparison& c) {
    std::printf("step %lld loss %.9g recorded %.9g (%s %s) %s rel %.3g%s\n",
                static_cast<long long>(c.step), static_cast<double>(c.native),
                static_cast<double>(c.recorded), tg::parity::hexBits(c.native).c_str(),
                tg::parity::hexBits(c.recorded).c_str(), tg::parity::describeUlps(c.ulps).c_str(), c.relative,
                c.ok ? "" : "  FAIL");
    std::fflush(stdout);
  };
  const tg::parity::RunReport r = tg::parity::runBundle(b, o);
  for (const auto& f : r.forwards) {
    if (f.ok) {
      std::printf("forward %s after step %lld: matches (max %s)\n", f.name.c_str(),
                  static_cast<long long>(f.afterStep), tg::parity::describeUlps(f.maxUlps).c_str());
    } else {
      std::printf("forward %s after step %lld: DIFFERS in %zu of %zu elements, first at index %zu (max %s)\n",
                  f.name.c_str(), static_cast<long long>(f.afterStep), f.differing, f.elements, f.firstIndex,
                  tg::parity::describeUlps(f.maxUlps).c_str());
    }
  }
  size_t capturesDiffering = 0;
  for (const auto& c : r.captures) {
    if (c.ok) continue;
    ++capturesDiffering;
    std::printf("capture %s of %s: DIFFERS in %zu of %zu elements, first at index %zu (max %s)\n", c.name.c_str(),
                c.where.c_str(), c.differing, c.elements, c.firstIndex, tg::parity::describeUlps(c.maxUlps).c_str());
  }
  if (!r.captures.empty() && capturesDiffering == 0)
    std::printf("captures: all %zu recorded ones match\n", r.captures.size());
  if (!r.error.empty()) {
    std::printf("error: %s\n", r.error.c_str());
    return 1;
  }
  if (r.firstFailure) {
    std::printf("FAIL: step %lld is past the tolerance (%s); run `tgparity diff %s --step %lld` to find the kernel\n",
                static_cast<long long>(*r.firstFailure), o.tolerance.describe().c_str(), file.c_str(),
                static_cast<long long>(*r.firstFailure));
    return 1;
  }
  if (!r.passed()) {
    std::printf("FAIL: a recorded forward run or capture differs\n");
    return 1;
  }
  std::printf("PASS: %zu steps within %s\n", r.steps.size(), o.tolerance.describe().c_str());
  return 0;
}

int diffCommand(const std::string& file, int64_t step, const DeviceChoice& device, const std::string& oracle,
                const std::string& node, const std::string& runner, const std::string& keep) {
  const tg::Bundle b = tg::loadBundle(file);
  tg::parity::DiffOptions o;
  o.step = step;
  o.oracle = oracle == "dawn"       ? tg::parity::DiffOracle::Dawn
             : oracle == "chromium" ? tg::parity::DiffOracle::Chromium
                                    : tg::parity::DiffOracle::Auto;
  o.runtime = replayOptions(b, device);
  o.node = node;
  o.dawnRunner = runner;
  o.workDir = keep;
  const tg::parity::DiffReport r = tg::parity::diffBundle(b, o);
  const std::string where = r.oracle + (r.oracleAdapter.empty() ? "" : " (" + r.oracleAdapter + ")");
  if (!r.first) {
    std::printf("step %lld: all %zu kernels give the same bits natively and as upstream's kernels in %s\n",
                static_cast<long long>(r.step), r.kernels, where.c_str());
    return 0;
  }
  std::printf("upstream's kernels ran in %s\n", where.c_str());
  const auto& d = *r.first;
  std::printf("step %lld: kernel %zu (of %zu dispatched, counting from 0) is the first that differs\n",
              static_cast<long long>(r.step), d.kernel, r.kernels);
  std::printf("  op        %d (%s)\n", d.opIndex, std::string(tg::opKindName(d.kind)).c_str());
  std::printf("  call site %s\n", d.site.empty() ? "(none: an op the library appended)" : d.site.c_str());
  std::printf("  output    %s\n", d.buffer.c_str());
  std::printf("  differing %zu of %zu elements, first at index %zu\n", d.differing, d.elements, d.firstIndex);
  if (d.maxUlps == std::numeric_limits<int64_t>::max())
    std::printf("  max ulp   (not comparable: integer output, a NaN, or a kernel of another form)\n");
  else
    std::printf("  max ulp   %lld\n  max rel   %.3g\n", static_cast<long long>(d.maxUlps), d.maxRelative);
  std::printf("--- native WGSL ---\n%s\n--- upstream WGSL (the bundle's) ---\n%s\n", d.nativeWgsl.c_str(),
              d.upstreamWgsl.c_str());
  return 1;
}

// A sample model by name (tensorgrad/models/registry.h) at chosen sizes and seed, trained on its
// synthetic feeds drawn from Mulberry32(feedSeed): what `record --model` fingerprints.
struct ModelRun {
  std::string name;
  tg_models::Sizes sizes;
  uint32_t seed = 1, feedSeed = 1;
  int64_t steps = 10;

  nlohmann::json source() const {
    return {{"model", name}, {"sizes", sizes}, {"seed", seed}, {"feedSeed", feedSeed}};
  }
  static ModelRun fromSource(const nlohmann::json& j, const std::string& golden, int64_t steps) {
    try {
      return {j.at("model").get<std::string>(), j.at("sizes").get<tg_models::Sizes>(),
              j.at("seed").get<uint32_t>(), j.at("feedSeed").get<uint32_t>(), steps};
    } catch (const nlohmann::json::exception& e) {
      throw std::invalid_argument(golden + ": field 'source' does not name a sample model run (" + e.what() + ")");
    }
  }

  tg::parity::Golden record(const tg::RuntimeOptions& o) const {
    const tg_models::Sample sample = tg_models::findSample(name).make(sizes, seed);
    const tg_models::SampleTraining t = sample.compile(o);
    tg::Mulberry32 rng(feedSeed);
    std::vector<tg::Feed> feeds;
    for (int64_t i = 0; i < steps; ++i) feeds.push_back(sample.feed(rng));
    tg::parity::Golden g = tg::parity::recordGolden(t.training, feeds);
    g.source = source();
    g.source["sizes"] = sample.sizes();  // every size, defaults filled in
    return g;
  }
};

int writeGolden(const tg::parity::Golden& g, const std::string& out) {
  if (out.empty()) {
    std::cout << g.toJson().dump(1) << "\n";
  } else {
    tg::parity::saveGolden(g, out);
    std::printf("wrote %s: %zu steps, %zu params\n", out.c_str(), g.lossBits.size(), g.params.size());
  }
  return 0;
}

int reportCheck(const tg::parity::Golden& want, const tg::parity::Golden& got, const std::string& golden) {
  const std::string diff = tg::parity::compareGolden(want, got);
  if (diff.empty()) {
    std::printf("PASS: %zu steps, %zu params and %zu captures match %s\n", want.lossBits.size(),
                want.params.size(), want.captures.size(), golden.c_str());
    return 0;
  }
  std::printf("FAIL: the run differs from %s\n%s", golden.c_str(), diff.c_str());
  return 1;
}

int recordCommand(const std::string& file, const std::string& out, std::optional<int64_t> steps,
                  const DeviceChoice& device) {
  const tg::Bundle b = tg::loadBundle(file);
  tg::RuntimeOptions o = replayOptions(b, device);
  tg::Imported model = tg::compileImported(b, o);
  std::vector<tg::Feed> feeds;
  const int64_t n = steps.value_or(static_cast<int64_t>(b.steps.size()));
  if (n < 1 || n > static_cast<int64_t>(b.steps.size()))
    throw std::invalid_argument(file + ": " + std::to_string(n) + " steps asked for; the bundle recorded " + std::to_string(b.steps.size()));
  for (int64_t i = 0; i < n; ++i) feeds.push_back(b.steps[static_cast<size_t>(i)].feeds);
  return writeGolden(tg::parity::recordGolden(model.training, feeds), out);
}

int checkCommand(const std::string& file, const std::string& golden, const DeviceChoice& device) {
  const tg::parity::Golden want = tg::parity::loadGolden(golden);
  if (!want.source.is_null()) {
    if (!file.empty())
      throw std::invalid_argument(golden + " is a run of sample model " + want.source.value("model", std::string("?")) +
                                  ", not of a bundle: give only the golden file");
    return reportCheck(want, ModelRun::fromSource(want.source, golden, static_cast<int64_t>(want.lossBits.size())).record(device.runtime()),
                       golden);
  }
  if (file.empty()) throw std::invalid_argument(golden + " records a bundle's run: give the bundle before it");
  const tg::Bundle b = tg::loadBundle(file);
  if (want.lossBits.size() > b.steps.size())
    throw std::invalid_argument(golden + ": " + std::to_string(want.lossBits.size()) + " steps, but the bundle recorded " + std::to_string(b.steps.size()));
  tg::Imported model = tg::compileImported(b, replayOptions(b, device));
  std::vector<tg::Feed> feeds;
  for (size_t i = 0; i < want.lossBits.size(); ++i) feeds.push_back(b.steps[i].feeds);
  return reportCheck(want, tg::parity::recordGolden(model.training, feeds), golden);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tgparity: run a tensorgrad model traced in the browser (a graph bundle written by "
      "tensorgrad/js/tgbundle.mjs) natively, and find where its numbers part from the browser's.\n"
      "Exit status: 0 pass, 1 a difference past the tolerance, 2 bad input or another error."};
  app.require_subcommand(1);
  std::string bundle, node = "node", runner, keep, out;
  DeviceChoice device;
  const std::string deviceHelp =
      "native adapter whose name contains this text (default: the device the bundle was recorded on: "
      "Chromium's SwiftShader for Chromium on SwiftShader, lavapipe for Dawn on llvmpipe, the same GPU vendor)";
  const std::string driverHelp =
      "the Vulkan driver to pick the adapter from: 'swiftshader' (Chromium's own, found where Debian's "
      "chromium and Google Chrome install it, or $TG_SWIFTSHADER_ICD), or a driver manifest (ICD JSON) or "
      "the folder holding a browser's vk_swiftshader_icd.json";
  auto addDevice = [&](CLI::App* sub) {
    sub->add_option("--device", device.device, deviceHelp);
    sub->add_option("--vulkan-driver", device.vulkanDriver, driverHelp);
  };
  std::optional<int64_t> steps;
  int64_t step = 1;
  std::optional<double> rtol;

  auto* run = app.add_subcommand("run", "Train natively on the bundle's recorded feeds; print `step <n> loss <value>` "
                                        "and compare each loss with the recorded one (bit-identical by default).");
  run->add_option("bundle", bundle, "the .tgbundle.json file")->required();
  run->add_option("--steps", steps, "how many recorded steps to run (default: all)")->check(CLI::PositiveNumber);
  addDevice(run);
  bool exactFlag = false;
  auto* exact = run->add_flag("--exact", exactFlag, "require bit-identical losses (the default)");
  run->add_option("--rtol", rtol, "accept |native - recorded| <= R * |recorded| instead of exact bits")
      ->check(CLI::NonNegativeNumber)
      ->excludes(exact);

  std::string oracle = "auto";
  auto* diff = app.add_subcommand("diff", "Run every kernel of one recorded step natively and, on the same inputs, "
                                          "upstream's kernel (the bundle's WGSL) where the bundle was recorded: in "
                                          "headless Chromium (playwright-core, WebGPU on SwiftShader) for a Chromium "
                                          "recording, else in Dawn for Node (npm `webgpu`); report the first kernel "
                                          "whose output differs: op, call site, ulps, both WGSL texts.");
  diff->add_option("bundle", bundle, "the .tgbundle.json file")->required();
  diff->add_option("--step", step, "the recorded step to compare (1-based, default 1)")->check(CLI::PositiveNumber);
  addDevice(diff);
  diff->add_option("--oracle", oracle, "where upstream's kernels run: auto (where the bundle was recorded), "
                                      "dawn (Dawn for Node, GL ES on llvmpipe) or chromium (headless Chromium on SwiftShader)")
      ->check(CLI::IsMember({"auto", "dawn", "chromium"}));
  diff->add_option("--node", node, "the Node.js executable (default: node on PATH)");
  diff->add_option("--dawn-runner", runner, "Dawn's kernel runner, run_kernels.mjs (default: $TGPARITY_DAWN_RUNNER, else "
                                            "an installed tool's <prefix>/share/tensorgrad/dawn/run_kernels.mjs, else "
                                            "this source tree's tests/dawn/run_kernels.mjs; its directory needs "
                                            "`npm ci --prefix DIR`)");
  diff->add_option("--keep", keep, "write the Dawn job and result into this directory and keep them");

  ModelRun modelRun;
  std::vector<std::string> sizeArgs;
  auto* record = app.add_subcommand("record", "Train natively and write a golden run (loss bits, parameter and capture "
                                              "SHA-256s) for `check`: a bundle on its recorded feeds, or a sample model "
                                              "by name on its synthetic feeds.");
  auto* recordBundle = record->add_option("bundle", bundle, "the .tgbundle.json file");
  auto* model = record->add_option("--model", modelRun.name, "a sample model instead of a bundle: " + tg_models::sampleNames())
                    ->excludes(recordBundle);
  record->add_option("--size", sizeArgs, "with --model: a size NAME=N (repeatable; tg-inspect models lists them)")
      ->needs(model);
  record->add_option("--seed", modelRun.seed, "with --model: the compile seed (default 1)")->needs(model);
  record->add_option("--feed-seed", modelRun.feedSeed, "with --model: the Mulberry32 seed of the feeds (default 1)")
      ->needs(model);
  record->add_option("-o,--out", out, "the golden file to write (default: print it)");
  record->add_option("--steps", steps, "how many steps to run (default: a bundle's all, a model's 10)")
      ->check(CLI::PositiveNumber);
  addDevice(record);

  std::vector<std::string> checkFiles;
  auto* check = app.add_subcommand("check", "Train again and compare with a golden run from `record`: exit 1 naming the "
                                            "first differing step, parameter or capture. A model's golden names the model, "
                                            "its sizes and seeds; a bundle's needs the bundle: check [BUNDLE] GOLDEN.");
  check->add_option("files", checkFiles, "[BUNDLE] GOLDEN")->required()->expected(1, 2);
  addDevice(check);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*run) return runCommand(bundle, steps, device, rtol);
    if (*diff) return diffCommand(bundle, step, device, oracle, node, runner, keep);
    if (*record && !modelRun.name.empty()) {
      for (const std::string& a : sizeArgs) {
        const size_t eq = a.find('=');
        int64_t v = 0;
        const char* end = a.data() + a.size();
        if (eq == std::string::npos || eq == 0 || std::from_chars(a.data() + eq + 1, end, v).ptr != end || eq + 1 == a.size())
          throw std::invalid_argument("--size " + a + ": expected NAME=N with an integer N");
        modelRun.sizes[a.substr(0, eq)] = v;
      }
      modelRun.steps = steps.value_or(10);
      return writeGolden(modelRun.record(device.runtime()), out);
    }
    if (*record) {
      if (bundle.empty()) throw std::invalid_argument("record: give a bundle or --model NAME");
      return recordCommand(bundle, out, steps, device);
    }
    return checkFiles.size() == 2 ? checkCommand(checkFiles[0], checkFiles[1], device)
                                  : checkCommand("", checkFiles[0], device);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tgparity: %s\n", e.what());
    return 2;
  }
}
