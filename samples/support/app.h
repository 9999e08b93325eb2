// What every sample app shares around its model and loop: the common flags, the device probe,
// the output folder, and main()'s error handling (missing data → exit 2 naming the package).
#pragma once

#include <CLI/CLI.hpp>
#include <tensorgrad/tensorgrad.h>

#include <filesystem>
#include <functional>
#include <string>

namespace tg_samples {

struct CommonOptions {
  int steps = 0;       // training steps (the app's default unless --steps)
  uint32_t seed = 42;  // parameter-init seed and data/shuffle seed
  std::string device;  // adapter name (substring); empty: the best adapter
  int logEvery = 0;    // > 0: `step <n> loss <value>` lines instead of a progress bar
  std::filesystem::path out;
  // Non-empty: run the parity suite's case instead (its sizes, synthetic feeds and step count)
  // through the app's training loop and compare the losses with this golden file bit for bit.
  std::filesystem::path parityGolden;
  // "fast" (our own kernels, the default) or "upstream" (upstream's kernels, bit for bit).
  std::string kernels = "fast";
};

// Adds --steps --seed --device --log-every --out --parity-golden --kernels with `defaults` as
// defaults.
void addCommonOptions(CLI::App& app, CommonOptions& options);

// The runtime options of the app's compiles: its device and kernel set. A --parity-golden run
// always takes upstream's kernels: matching upstream bit for bit is its point.
tg::RuntimeOptions runtimeOptions(const CommonOptions& options);

// Probes the device (throws naming the problem), prints it, creates the output folder. Returns
// the adapter's name.
std::string startApp(const CommonOptions& options);

// Whether the adapter --device picks runs on the CPU (lavapipe). Apps whose upstream sizes take
// many minutes there default to smaller sizes or fewer steps on such a device.
bool onCpuDevice(const CommonOptions& options);

// Sets `value` to `cpuDefault` unless `flag` was given on the command line.
template <class T>
void useCpuDefault(const CLI::App& app, const std::string& flag, T& value, T cpuDefault) {
  if (app.get_option(flag)->count() == 0) value = cpuDefault;
}

// Runs an app's body: a MissingData exception exits 2 with its message, any other exception 1.
int runMain(const std::function<int()>& body);

}  // namespace tg_samples
