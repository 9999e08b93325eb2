// diffBundle: one recorded step, kernel by kernel. The native step runs with every kernel's output
// read back; each kernel's inputs at that step are rebuilt from the graph (parameters before the
// step, the feeds, the optimizer's per-step scalars, optimizer state carried through the earlier
// steps' writebacks, and earlier kernels' outputs); upstream's kernel for the same op (the
// bundle's WGSL) then runs on exactly those inputs in Dawn for Node, each kernel on buffers of
// its own, and the outputs are compared.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include "tensorgrad/parity.h"

extern char** environ;

namespace tg::parity {

namespace {

using Bits = std::vector<uint32_t>;

Bits bitsOf(const Array& a) {
  Bits out(a.size());
  std::memcpy(out.data(), a.data(), a.size() * 4);
  return out;
}
Bits bitsOf(const std::vector<float>& v) {
  Bits out(v.size());
  std::memcpy(out.data(), v.data(), v.size() * 4);
  return out;
}
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Runs `argv` with stdout and stderr into `log`; the exit status, or -1 when it could not start.
int spawnAndWait(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  // Dawn's OpenGL ES backend on a machine without a display.
  if (!std::getenv("EGL_PLATFORM")) env.emplace_back("EGL_PLATFORM=surfaceless");
  if (!std::getenv("XDG_RUNTIME_DIR")) env.emplace_back("XDG_RUNTIME_DIR=/tmp");
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string siteOf(const Graph& g, int tensor) {
  const auto& site = g.tensor(tensor).site;
  return site ? formatSite(*site) : "";
}

}  // namespace

std::filesystem::path defaultDawnRunner() {
  if (const char* env = std::getenv("TGPARITY_DAWN_RUNNER"); env && *env) return env;
#ifdef TG_DAWN_RUNNER_INSTALLED
  // An installed tool: <prefix>/bin/tgparity finds <prefix>/share/tensorgrad/dawn/run_kernels.mjs.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = (exe.parent_path() / TG_DAWN_RUNNER_INSTALLED).lexically_normal();
    if (std::filesystem::is_regular_file(installed, ec)) return installed;
  }
#endif
#ifdef TG_DAWN_RUNNER_DEFAULT
  return TG_DAWN_RUNNER_DEFAULT;
#else
  return {};
#endif
}

DiffReport diffBundle(const Bundle& b, const DiffOptions& options) {
  const int64_t K = options.step;
  if (K < 1 || K > static_cast<int64_t>(b.steps.size())) {
    throw std::invalid_argument(b.source + ": step " + std::to_string(K) + " is not a recorded step (1.." +
                                std::to_string(b.steps.size()) + ")");
  }
  // Upstream's kernels run where the bundle was recorded: in headless Chromium for a Chromium
  // recording (its WebGPU device, SwiftShader, rounds some kernels unlike Dawn on llvmpipe).
  const DiffOracle oracle = options.oracle != DiffOracle::Auto ? options.oracle
                            : replayDevice(b).kind == ReplayDevice::Kind::SwiftShader ? DiffOracle::Chromium
                                                                                     : DiffOracle::Dawn;
  const bool chromium = oracle == DiffOracle::Chromium;
  std::filesystem::path runner = options.dawnRunner.empty() ? defaultDawnRunner() : options.dawnRunner;
  if (chromium) runner = runner.parent_path() / "run_kernels_chromium.mjs";
  const std::string oracleName = chromium ? "headless Chromium" : "Dawn for Node";
  if (runner.empty() || !std::filesystem::is_regular_file(runner)) {
    throw std::runtime_error("tgparity diff: the kernel runner for " + oracleName + " is not at '" + runner.string() +
                             "'; pass --dawn-runner (run_kernels.mjs, beside which run_kernels_chromium.mjs lies) "
                             "or set TGPARITY_DAWN_RUNNER");
  }

  // The native side, steps 1..K, tracking optimizer state through the writebacks. A NaN loss
  // completes its step, as in the browser.
  RuntimeOptions runtime = options.runtime;
  runtime.traceKernels = true;
  runtime.failOnNonFiniteLoss = false;
  Imported model = compileImported(b, runtime);
  const CompiledIR& ir = *model.training.ir();
  const Graph& g = ir.graph;
  std::map<std::string, Bits> states;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::StateInput) {
      states[op.attrs.name] = Bits(static_cast<size_t>(shapeSize(g.tensor(op.out).shape)),
                                   bitsOf(static_cast<float>(op.attrs.initValue)));
    }
  }
  OptimizerConfig config = b.optimizer;
  ParamMap params;
  StepResult step;
  for (int64_t n = 1; n <= K; ++n) {
    const RecordedStep& s = b.steps[static_cast<size_t>(n - 1)];
    if (s.setLR) {
      model.training.setLR(*s.setLR).get();
      std::visit([&](auto& c) { c.lr = rebaseLR(*s.setLR, n); }, config);
    }
    if (n == K) params = model.training.downloadParams().get();
    step = model.training.step(s.feeds).get();
    if (step.kind != ResultKind::Completed)
      throw std::runtime_error("tgparity diff: native step " + std::to_string(n) + " " + std::string(resultKindName(step.kind)) + ": " + step.error);
    if (n == K) break;
    std::map<int, const Array*> byOp;
    for (const KernelOutput& k : step.kernelOutputs) byOp[k.opIndex] = &k.values;
    for (const WritebackDecl& w : b.writebacks) {
      if (w.destKind == WritebackDecl::Kind::State) states[w.destName] = bitsOf(*byOp.at(*g.tensor(w.source).source));
    }
  }

  // Every tensor's value during step K.
  const StepScalars scalars = stepScalars(config, K);
  std::vector<Bits> value(g.tensors.size());
  std::map<int, const KernelOutput*> outputOf;
  for (const KernelOutput& k : step.kernelOutputs) outputOf[k.opIndex] = &k;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    Bits& v = value[static_cast<size_t>(op.out)];
    if (op.kind == OpKind::ParamInput) {
      v = bitsOf(params.at(op.attrs.name));
    } else if (op.kind == OpKind::StateInput) {
      v = states.at(op.attrs.name);
    } else if (op.kind == OpKind::TensorInput) {
      const std::string& name = op.attrs.name;
      const Feed& feeds = b.steps[static_cast<size_t>(K - 1)].feeds;
      if (auto f = feeds.find(name); f != feeds.end()) v = bitsOf(f->second);
      else if (name == ir.optimizer.lrInputName) v = {bitsOf(static_cast<float>(scalars.lrInput))};
      else if (ir.optimizer.decayShrinkInputName && name == *ir.optimizer.decayShrinkInputName) v = {bitsOf(static_cast<float>(scalars.decayShrink))};
      else if (name == kPrngSeedInput) v = {static_cast<uint32_t>(K)};
      else throw std::logic_error("tgparity diff: no value for input '" + name + "'");
    } else if (auto k = outputOf.find(static_cast<int>(i)); k != outputOf.end()) {
      v = bitsOf(k->second->values);
    }
  }

  // One Dawn job: each dispatched kernel with buffers of its own.
  nlohmann::json job = {{"buffers", nlohmann::json::array()}, {"kernels", nlohmann::json::array()}, {"read", nlohmann::json::array()}};
  struct Compared {
    const KernelOutput* native;
    int outBuffer;
  };
  std::vector<Compared> compared;
  DiffReport report;
  report.step = K;
  report.kernels = step.kernelOutputs.size();
  auto difference = [&](size_t index, const KernelOutput& k) {
    KernelDifference d;
    d.kernel = index;
    d.opIndex = k.opIndex;
    d.kind = k.kind;
    const Op& op = g.ops[static_cast<size_t>(k.opIndex)];
    d.site = siteOf(g, op.out);
    const TensorInfo& t = g.tensor(op.out);
    d.buffer = "tensor " + std::to_string(op.out) + " " + showShape(t.shape) + " " + std::string(dtypeName(t.dtype));
    d.elements = k.values.size();
    d.nativeWgsl = ir.kernels[static_cast<size_t>(k.opIndex)].wgsl;
    d.upstreamWgsl = b.kernels[static_cast<size_t>(k.opIndex)].wgsl;
    return d;
  };
  for (size_t index = 0; index < step.kernelOutputs.size(); ++index) {
    const KernelOutput& k = step.kernelOutputs[index];
    const KernelSpec& ours = ir.kernels[static_cast<size_t>(k.opIndex)];
    const UpstreamKernel& up = b.kernels[static_cast<size_t>(k.opIndex)];
    const Op& op = g.ops[static_cast<size_t>(k.opIndex)];
    if (up.wgsl.empty() || up.threads == 0 || up.bindings.size() != ours.bindings.size()) {
      // Upstream's codegen made another kind of kernel for this op: nothing to run it on.
      KernelDifference d = difference(index, k);
      d.differing = d.elements;
      d.maxUlps = std::numeric_limits<int64_t>::max();
      report.first = std::move(d);
      return report;
    }
    nlohmann::json bindings = nlohmann::json::array();
    int outBuffer = -1;
    for (size_t j = 0; j < ours.bindings.size(); ++j) {
      const int id = static_cast<int>(job["buffers"].size());
      bindings.push_back(id);
      if (j + 1 == ours.bindings.size()) {
        outBuffer = id;
        job["buffers"].push_back({{"size", k.values.size() * 4}, {"dtype", "u32"}, {"data", nullptr}});
        continue;
      }
      int tensor = -1;
      for (int in : op.inputs) {
        if (ir.plan.tensorToBuffer[static_cast<size_t>(in)] == ours.bindings[j]) tensor = in;
      }
      if (tensor < 0) {
        throw std::logic_error("tgparity diff: binding " + std::to_string(j) + " of op " + std::to_string(k.opIndex) +
                               " (" + std::string(opKindName(k.kind)) + ") is none of its inputs");
      }
      const Bits& data = value[static_cast<size_t>(tensor)];
      job["buffers"].push_back({{"size", data.size() * 4}, {"dtype", "u32"}, {"data", data}});
    }
    KernelSpec geometry;
    geometry.threads = up.threads;
    geometry.workgroupSize = up.workgroupSize;
    const auto dispatch = geometry.dispatch();
    job["kernels"].push_back({{"label", "op " + std::to_string(k.opIndex) + " " + std::string(opKindName(k.kind))},
                              {"wgsl", up.wgsl}, {"bindings", bindings}, {"dispatch", {dispatch[0], dispatch[1]}}});
    job["read"].push_back(outBuffer);
    compared.push_back({&k, outBuffer});
  }
  model.training.destroy();

  // Dawn for Node.
  std::filesystem::path dir = options.workDir;
  if (dir.empty()) {
    dir = std::filesystem::temp_directory_path() / ("tgparity-" + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}()));
  }
  std::filesystem::create_directories(dir);
  const auto jobFile = dir / "job.json", resultFile = dir / "result.json", log = dir / "node.log";
  std::ofstream(jobFile) << job.dump();
  const int rc = spawnAndWait({options.node, runner.string(), jobFile.string(), resultFile.string()}, log);
  const std::string output = readFile(log);
  if (rc == -1) {
    throw std::runtime_error("tgparity diff needs Node.js to run upstream's kernels in " + oracleName + ": '" +
                             options.node + "' could not be started (install Debian's nodejs, or pass --node)");
  }
  if (rc != 0) {
    for (const char* package : {"webgpu", "playwright-core"}) {
      const std::string quoted = std::string("'") + package + "'", dquoted = std::string("\"") + package + "\"";
      if (output.find(quoted) != std::string::npos || output.find(dquoted) != std::string::npos) {
        throw std::runtime_error("tgparity diff needs the npm package '" + std::string(package) + "' beside " +
                                 runner.string() + ": run `npm ci --prefix " + runner.parent_path().string() + "`\n" + output);
      }
    }
    throw std::runtime_error("tgparity diff: the kernel runner for " + oracleName + " failed (exit " +
                             std::to_string(rc) + "):\n" + output);
  }
  const nlohmann::json result = nlohmann::json::parse(readFile(resultFile));
  if (!result["errors"].empty())
    throw std::runtime_error("tgparity diff: " + oracleName + " reported errors: " + result["errors"].dump());
  report.oracle = oracleName;
  // The runner's GPUAdapterInfo, as the bundle recorder words it: the description, else vendor
  // and architecture.
  if (const auto a = result.find("adapter"); a != result.end() && a->is_object()) {
    report.oracleAdapter = a->value("description", "");
    if (report.oracleAdapter.empty()) {
      const std::string vendor = a->value("vendor", ""), architecture = a->value("architecture", "");
      report.oracleAdapter = vendor + (vendor.empty() || architecture.empty() ? "" : " ") + architecture;
    }
  }
  if (options.workDir.empty()) std::filesystem::remove_all(dir);

  for (size_t index = 0; index < compared.size(); ++index) {
    const KernelOutput& k = *compared[index].native;
    const Bits dawn = result["buffers"][std::to_string(compared[index].outBuffer)].get<Bits>();
    const Bits native = bitsOf(k.values);
    KernelDifference d = difference(index, k);
    const bool f32 = k.values.dtype() == Dtype::F32 && g.tensor(g.ops[static_cast<size_t>(k.opIndex)].out).dtype == Dtype::F32;
    for (size_t i = 0; i < native.size(); ++i) {
      if (i >= dawn.size() || native[i] != dawn[i]) {
        if (d.differing++ == 0) d.firstIndex = i;
        if (i >= dawn.size() || !f32) {
          d.maxUlps = std::numeric_limits<int64_t>::max();
          continue;
        }
        float a, u;
        std::memcpy(&a, &native[i], 4);
        std::memcpy(&u, &dawn[i], 4);
        d.maxUlps = std::max(d.maxUlps, ulpDistance(a, u));
        const double rel = u == 0 ? std::abs(a) : std::abs((static_cast<double>(a) - u) / u);
        d.maxRelative = std::max(d.maxRelative, std::isnan(rel) ? INFINITY : rel);
      }
    }
    if (d.differing > 0) {
      report.first = std::move(d);
      return report;
    }
  }
  return report;
}

}  // namespace tg::parity
