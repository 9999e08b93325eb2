// The training loop every app runs: draw a feed, step, record the loss, show progress, time it.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <functional>
#include <string>
#include <vector>

namespace tg_samples {

struct LoopStats {
  std::vector<float> losses;  // per step
  double seconds = 0;         // wall time of the steps (feeds included, `after` not)
  double msPerStep() const { return losses.empty() ? 0 : seconds * 1000 / static_cast<double>(losses.size()); }
  float finalLoss() const { return losses.empty() ? NAN : losses.back(); }
};

// Throws naming the step unless `r` completed with a finite loss.
void checkStep(const tg::StepResult& r, int step);
// Throws naming `what` unless `r` completed.
const tg::Array& checkRun(const tg::RunResult& r, const std::string& what);

// `steps` calls of `step(i)` (which returns the loss), with progress (see Progress) and timing;
// `after(i, loss)` runs after each step when given (evaluations, schedules).
LoopStats runLoop(int steps, int logEvery, const std::function<float(int)>& step,
                  const std::function<void(int, float)>& after = {});

// runLoop over train.step(feed(i)).
template <class M>
LoopStats trainLoop(const tg::CompiledTraining<M>& train, int steps, int logEvery,
                    const std::function<tg::Feed(int)>& feed, const std::function<void(int, float)>& after = {}) {
  return runLoop(
      steps, logEvery,
      [&](int i) {
        const tg::StepResult r = train.step(feed(i)).get();
        checkStep(r, i);
        return r.loss;
      },
      after);
}

}  // namespace tg_samples
