// The browser-parity library behind `tgparity`: train a graph bundle natively against the losses
// the browser recorded (runBundle), find the first kernel whose output differs from upstream's
// kernel in Dawn on identical inputs (diffBundle), and golden runs of C++ models (recordGolden,
// checkGolden; tensorgrad/parity_gtest.h wraps them for GoogleTest).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensorgrad/bundle.h"

namespace tg::parity {

// How far apart two f32 values are in units in the last place (0: same bits; +0 and -0 are 0
// apart; a NaN against anything else is INT64_MAX).
int64_t ulpDistance(float a, float b);
// A float's bits as 8 lowercase hex digits, as bundles and golden files write losses.
std::string hexBits(float f);
// "3 ulp", or "NaN against a number" for ulpDistance's INT64_MAX.
std::string describeUlps(int64_t ulps);

// How a native loss is compared with a recorded one.
struct Tolerance {
  bool exact = true;  // same bits
  double rtol = 0;    // when not exact: |a - b| <= rtol * |b|
  bool accepts(float native, float recorded) const;
  std::string describe() const;  // "exact (bit-identical)" or "rtol 1e-06"
};

struct StepComparison {
  int64_t step = 0;  // 1-based
  float native = 0, recorded = 0;
  int64_t ulps = 0;
  double relative = 0;
  bool ok = false;
};

// The native device that gives the bits of the device a bundle was recorded on: Chromium's
// SwiftShader for a recording in Chromium on SwiftShader, lavapipe for Dawn's GL backend on
// llvmpipe, the same GPU vendor's device for a GPU. Bits hold only on the matching device; on
// any other, only a tolerance can apply.
struct ReplayDevice {
  enum class Kind { SwiftShader, Lavapipe, Gpu, Unknown };
  Kind kind = Kind::Unknown;
  std::string recordedOn{};   // the bundle's adapter text ("" when it names none)
  RuntimeOptions runtime{};   // device / vulkanDriver selecting the matching device
  std::string description{};  // the matching device, in words
  std::string missing{};      // non-empty when it is not installed here: what to install
};
ReplayDevice replayDevice(const Bundle& bundle);

struct RunOptions {
  std::optional<int64_t> steps{};  // default: every recorded step
  Tolerance tolerance{};
  RuntimeOptions runtime{};
  std::function<void(const StepComparison&)> onStep{};  // called as each step completes
};

// An array replayed against its recording, over every element.
struct ArrayComparison {
  size_t elements = 0, differing = 0, firstIndex = 0;  // differing: past the tolerance
  int64_t maxUlps = 0;  // INT64_MAX: a NaN against a number, i32 values differ, or another size/dtype
  bool ok = false;
};
ArrayComparison compareArrays(const Array& native, const Array& recorded, const Tolerance& tolerance);

struct RunReport {
  std::vector<StepComparison> steps{};
  std::optional<int64_t> firstFailure{};  // the first step past the tolerance
  std::string error{};                    // a step that did not complete (then `steps` stops)
  struct Forward : ArrayComparison {
    std::string name{};
    int64_t afterStep = 0;
  };
  std::vector<Forward> forwards{};  // recorded forward runs replayed, compared bit for bit
  // Recorded captures (bundle version 2) of steps and forward runs, compared like the outputs.
  struct Capture : ArrayComparison {
    std::string where{};  // "step 3", "forward 'predict' after step 20"
    std::string name{};
  };
  std::vector<Capture> captures{};
  bool passed() const;
};

// Trains the bundle natively on its recorded feeds (and setLR calls), comparing each loss with the
// recorded one (NaN losses included: a step completes with a non-finite loss, as in upstream); the recorded forward runs are replayed after their step and compared exactly
// when the tolerance is exact (else within it, element by element). Throws std::invalid_argument
// when more steps are asked for than were recorded.
RunReport runBundle(const Bundle& bundle, const RunOptions& options = {});

// Where upstream's kernels run for diffBundle: Dawn for Node (GL ES on llvmpipe), or headless
// Chromium (WebGPU on SwiftShader). Auto: where the bundle was recorded (replayDevice).
enum class DiffOracle { Auto, Dawn, Chromium };

struct DiffOptions {
  int64_t step = 1;  // the recorded step whose kernels are compared (1-based)
  RuntimeOptions runtime{};
  DiffOracle oracle = DiffOracle::Auto;
  std::string node = "node";           // the Node.js executable
  // run_kernels.mjs (Chromium's runner, run_kernels_chromium.mjs, lies beside it); empty:
  // defaultDawnRunner().
  std::filesystem::path dawnRunner{};
  std::filesystem::path workDir{};     // for the job files; empty: a temporary directory
};

struct KernelDifference {
  size_t kernel = 0;  // position among the step's dispatched kernels
  int opIndex = -1;
  OpKind kind{};
  std::string site{};  // the user's call site, from the bundle's graph ("" when none)
  std::string buffer{};  // what the output is: "tensor 57 [64, 1] f32"
  size_t elements = 0, differing = 0, firstIndex = 0;
  int64_t maxUlps = 0;
  double maxRelative = 0;
  std::string nativeWgsl{}, upstreamWgsl{};
};

struct DiffReport {
  int64_t step = 0;
  size_t kernels = 0;  // dispatched in the step
  std::optional<KernelDifference> first{};
  std::string oracle{};         // "Dawn for Node" or "headless Chromium"
  std::string oracleAdapter{};  // the WebGPU adapter upstream's kernels ran on, as the runner reports it
};

// Runs steps 1..step natively with every kernel's output read back, rebuilds each kernel's
// inputs at that step, runs upstream's kernel (the bundle's WGSL) on them in the oracle (Dawn for
// Node, or headless Chromium for a Chromium recording), and reports the first kernel whose output
// differs from the native one. Throws std::runtime_error with what to install when Node, the npm
// package `webgpu` or `playwright-core`, or Chromium is missing.
DiffReport diffBundle(const Bundle& bundle, const DiffOptions& options = {});
// $TGPARITY_DAWN_RUNNER, else an installed program's <prefix>/share/tensorgrad/dawn/run_kernels.mjs,
// else the source tree's tests/dawn/run_kernels.mjs this build was configured with.
std::filesystem::path defaultDawnRunner();

// ---- golden runs of C++ models ----

// A training run's fingerprint: the loss bits of each step, a SHA-256 of every parameter after
// the last step, and of every capture of the last step.
struct Golden {
  std::vector<uint32_t> lossBits{};
  std::map<std::string, std::string> params{};  // name → sha256 hex
  std::map<std::string, std::string> captures{};  // name → sha256 hex
  // What made the run, for a tool to make it again (tgparity: a sample model's name, sizes and
  // seeds); null when the caller keeps that itself.
  nlohmann::json source{};
  nlohmann::json toJson() const;
  static Golden fromJson(const nlohmann::json& json);  // throws std::invalid_argument
};

// Steps `training` once per feed and fingerprints the run (throws when a step does not complete).
template <class M>
Golden recordGolden(const CompiledTraining<M>& training, const std::vector<Feed>& feeds);
// Empty when `run` matches `golden`; else what differs, first difference first.
std::string compareGolden(const Golden& golden, const Golden& run);

void saveGolden(const Golden& golden, const std::filesystem::path& file);
Golden loadGolden(const std::filesystem::path& file);  // throws std::invalid_argument naming it

std::string sha256Hex(const void* data, size_t bytes);

namespace detail {
Golden fingerprint(const std::vector<StepResult>& steps, const ParamMap& params);
}

template <class M>
Golden recordGolden(const CompiledTraining<M>& training, const std::vector<Feed>& feeds) {
  std::vector<StepResult> steps;
  for (const Feed& f : feeds) {
    steps.push_back(training.step(f).get());
    if (steps.back().kind != ResultKind::Completed) {
      throw std::runtime_error("recordGolden: step " + std::to_string(steps.size()) + " " +
                               std::string(resultKindName(steps.back().kind)) + ": " +
                               steps.back().error);
    }
  }
  return detail::fingerprint(steps, training.downloadParams().get());
}

}  // namespace tg::parity
