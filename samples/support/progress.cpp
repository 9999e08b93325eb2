#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tg_samples {

std::string formatDuration(double seconds) {
  char buf[32];
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds < 1) {
    std::snprintf(buf, sizeof buf, "%.0fms", seconds * 1000);
  } else if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  } else if (seconds < 3600) {
    const auto s = static_cast<long>(seconds);
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  } else {
    const auto s = static_cast<long>(seconds);
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  }
  return buf;
}

Progress::Progress(int total, int logEvery)
    : total_(std::max(total, 0)),
      logEvery_(logEvery),
      mode_(logEvery > 0 ? Mode::Lines : isatty(STDERR_FILENO) ? Mode::Bar : Mode::Plain),
      start_(std::chrono::steady_clock::now()),
      lastDraw_(start_) {}

void Progress::update(int step, float loss) {
  if (mode_ == Mode::Lines) {
    if (step % logEvery_ == 0) std::printf("step %d loss %.17g\n", step, static_cast<double>(loss));
    return;
  }
  const int done = step + 1;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? done / elapsed : 0;
  const double eta = rate > 0 ? (total_ - done) / rate : NAN;
  if (mode_ == Mode::Plain) {
    const int every = std::max(1, total_ / 10);
    if (done % every != 0 && done != total_) return;
    std::fprintf(stderr, "[%3d%%] step %d/%d  loss %.6g  %.2f steps/s  ETA %s\n",
                 total_ ? 100 * done / total_ : 100, done, total_, static_cast<double>(loss), rate,
                 formatDuration(eta).c_str());
    return;
  }
  // Bar: at most 10 redraws a second, and always the last step.
  if (drawn_ && done != total_ && now - lastDraw_ < std::chrono::milliseconds(100)) return;
  lastDraw_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  const int filled = total_ ? kWidth * done / total_ : kWidth;
  std::fprintf(stderr, "\r[%s%s] %d/%d  loss %-10.6g %6.2f it/s  ETA %-8s", std::string(static_cast<size_t>(filled), '#').c_str(),
               std::string(static_cast<size_t>(kWidth - filled), '.').c_str(), done, total_,
               static_cast<double>(loss), rate, formatDuration(eta).c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (mode_ == Mode::Bar && drawn_) std::fprintf(stderr, "\n");
}

}  // namespace tg_samples
