// Training progress on the terminal. Three modes: `--log-every K` prints `step <n> loss <value>`
// (full precision) on stdout every K steps; otherwise a bar with rate and ETA redrawn in place
// on stderr when stderr is a terminal, or plain progress lines (every tenth of the run) when it
// is not, so logs and CI output stay readable.
#pragma once

#include <chrono>
#include <string>

namespace tg_samples {

class Progress {
 public:
  // `total` steps; `logEvery` > 0 selects the `step <n> loss <value>` lines.
  Progress(int total, int logEvery);
  // The step with 0-based index `step` has finished with `loss`.
  void update(int step, float loss);
  // Ends the bar's line (if any). Idempotent.
  void finish();

 private:
  enum class Mode { Lines, Bar, Plain };
  int total_, logEvery_;
  Mode mode_;
  std::chrono::steady_clock::time_point start_, lastDraw_;
  bool drawn_ = false, finished_ = false;
};

// "1m05s", "12.3s", "850ms": for rates and ETAs.
std::string formatDuration(double seconds);

}  // namespace tg_samples
