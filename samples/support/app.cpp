#include "app.h"

#include <tensorgrad/tensorgrad.h>

#include <cstdio>

#include "errors.h"

namespace tg_samples {

void addCommonOptions(CLI::App& app, CommonOptions& o) {
  app.add_option("--steps", o.steps, "training steps")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the parameters and the data order")->capture_default_str();
  app.add_option("--device", o.device, "adapter name (substring, case-insensitive); default: the best adapter");
  app.add_option("--log-every", o.logEvery, "print `step <n> loss <value>` every K steps instead of a progress bar")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--out", o.out, "folder for the pictures and results.json")->capture_default_str();
  app.add_option("--parity-golden", o.parityGolden,
                 "run the parity case's sizes and synthetic feeds through this app's training loop and compare "
                 "the losses with this golden file (tests/parity/golden/<case>.json) bit for bit");
  app.add_option("--kernels", o.kernels,
                 "kernel set: fast (our own tiled matmuls, reductions and fused element-wise kernels) or upstream "
                 "(upstream's kernels, its bits); --parity-golden always runs upstream")
      ->check(CLI::IsMember({"fast", "upstream"}))
      ->capture_default_str();
}

tg::RuntimeOptions runtimeOptions(const CommonOptions& o) {
  tg::RuntimeOptions r{.device = o.device};
  r.emit.kernels = o.kernels == "upstream" || !o.parityGolden.empty() ? tg::KernelSet::Upstream : tg::KernelSet::Fast;
  return r;
}

std::string startApp(const CommonOptions& o) {
  const tg::WebGPUSupport gpu = tg::checkWebGPU({.device = o.device});
  if (!gpu.ok) throw std::runtime_error(gpu.message);
  std::printf("device: %s\nkernels: %s\n", gpu.adapter.c_str(),
              o.parityGolden.empty() ? o.kernels.c_str() : "upstream (parity)");
  std::fflush(stdout);
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (ec) throw std::runtime_error("cannot create output folder " + o.out.string() + ": " + ec.message());
  return gpu.adapter;
}

bool onCpuDevice(const CommonOptions& o) { return tg::checkWebGPU({.device = o.device}).cpu; }

int runMain(const std::function<int()>& body) {
  try {
    return body();
  } catch (const MissingData& e) {
    std::fprintf(stderr, "\n%s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\nerror: %s\n", e.what());
    return 1;
  }
}

}  // namespace tg_samples
