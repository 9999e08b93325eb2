// Runs the parity cases on any device and reports how far each lands from upstream's golden
// (Dawn on llvmpipe): the first step and kernel whose output differs, the loss at the last step
// (relative difference) and how many final parameters are bit-equal. For GPUs, whose arithmetic
// (fused multiply-adds, transcendental approximations) is not the CPU's, so bit-equality is not
// expected there; parity_test asserts it on lavapipe.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>

#include "parity_golden.h"

namespace {

using tg_parity::json;

std::string firstDifferingStep(const tg_parity::Recorded& r, const json& golden) {
  for (size_t s = 0; s < r.trace.size(); ++s) {
    const auto d = tg_parity::firstDifference(r.trace[s], golden["trace"][s].get<std::string>());
    if (d.kernel < 0) continue;
    const tg::KernelOutput& k = r.trace[s][static_cast<size_t>(d.kernel)];
    return std::to_string(s) + " (kernel " + std::to_string(d.kernel) + ", op " +
           std::to_string(k.opIndex) + " " + std::string(tg::opKindName(k.kind)) + ")";
  }
  return "none";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs the parity cases (tests/parity) and reports each one's deviation from upstream's golden."};
  std::string device;
  std::vector<std::string> names;
  app.add_option("--device", device, "Adapter whose name contains this text (default: the best adapter)");
  app.add_option("cases", names, "Case names (default: every case)");
  CLI11_PARSE(app, argc, argv);

  tg::RuntimeOptions options;
  options.device = device;
  const tg::WebGPUSupport support = tg::checkWebGPU(options);
  if (!support.ok) {
    std::fprintf(stderr, "%s\n", support.message.c_str());
    return 2;
  }
  std::printf("device: %s\n\n", support.adapter.c_str());
  std::printf("| case | steps | first differing step (kernel) | loss at the last step, ours / upstream | rel | final params bit-equal |\n");
  std::printf("|---|---|---|---|---|---|\n");
  int status = 0;
  for (const tg_parity::Case& c : tg_parity::cases()) {
    if (!names.empty() && std::find(names.begin(), names.end(), c.name) == names.end()) continue;
    try {
      const json golden = tg_parity::loadGolden(c.name);
      const tg_parity::Recorded r = c.run(options);
      std::string loss = "-", rel = "-";
      if (!r.losses.empty()) {
        const double ours = r.losses.back(), theirs = golden["lossValues"].back().get<double>();
        char b[96];
        std::snprintf(b, sizeof b, "%.9g / %.9g", ours, theirs);
        loss = b;
        std::snprintf(b, sizeof b, "%.2e", std::fabs(ours - theirs) / std::max(std::fabs(theirs), 1e-30));
        rel = b;
      }
      const size_t bad = tg_parity::paramsDiffering(r.finalParams, golden["finalParams"]).size();
      std::printf("| %s | %zu | %s | %s | %s | %zu of %zu |\n", c.name.c_str(), r.trace.size(),
                  firstDifferingStep(r, golden).c_str(), loss.c_str(), rel.c_str(),
                  r.finalParams.size() - std::min(bad, r.finalParams.size()), r.finalParams.size());
    } catch (const std::exception& e) {
      std::printf("| %s | failed: %s |\n", c.name.c_str(), e.what());
      status = 1;
    }
    std::fflush(stdout);
  }
  return status;
}
