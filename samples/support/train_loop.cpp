#include "train_loop.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "progress.h"

namespace tg_samples {

void checkStep(const tg::StepResult& r, int step) {
  if (r.kind != tg::ResultKind::Completed)
    throw std::runtime_error("step " + std::to_string(step) + " " + std::string(tg::resultKindName(r.kind)) + ": " +
                             r.error);
  if (!std::isfinite(r.loss)) throw std::runtime_error("step " + std::to_string(step) + ": the loss is not finite");
}

const tg::Array& checkRun(const tg::RunResult& r, const std::string& what) {
  if (r.kind != tg::ResultKind::Completed)
    throw std::runtime_error(what + " " + std::string(tg::resultKindName(r.kind)) + ": " + r.error);
  return r.output;
}

LoopStats runLoop(int steps, int logEvery, const std::function<float(int)>& step,
                  const std::function<void(int, float)>& after) {
  LoopStats stats;
  stats.losses.reserve(static_cast<size_t>(std::max(steps, 0)));
  Progress progress(steps, logEvery);
  for (int i = 0; i < steps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const float loss = step(i);
    stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stats.losses.push_back(loss);
    progress.update(i, loss);
    if (after) after(i, loss);
  }
  progress.finish();
  return stats;
}

}  // namespace tg_samples
