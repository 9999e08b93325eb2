// runBundle: a bundle trained natively on its recorded feeds, loss by loss against the browser's.
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "tensorgrad/parity.h"

namespace tg::parity {

namespace {

// f32 bits mapped so that adjacent floats are adjacent integers, -0 and +0 both 0.
int64_t ordered(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : static_cast<int64_t>(i);
}

}  // namespace

std::string hexBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  char b[9];
  std::snprintf(b, sizeof b, "%08x", u);
  return b;
}

int64_t ulpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) {
    uint32_t x, y;
    std::memcpy(&x, &a, 4);
    std::memcpy(&y, &b, 4);
    return x == y ? 0 : std::numeric_limits<int64_t>::max();
  }
  return std::abs(ordered(a) - ordered(b));
}

bool Tolerance::accepts(float native, float recorded) const {
  if (exact) return ulpDistance(native, recorded) == 0;
  // Non-finite values agree only with their own kind: NaN with NaN, an infinity with itself.
  if (!std::isfinite(native) || !std::isfinite(recorded))
    return (std::isnan(native) && std::isnan(recorded)) || native == recorded;
  return std::abs(static_cast<double>(native) - recorded) <= rtol * std::abs(static_cast<double>(recorded));
}

std::string describeUlps(int64_t ulps) {
  if (ulps == std::numeric_limits<int64_t>::max()) return "NaN against a number";
  return std::to_string(ulps) + " ulp";
}

std::string Tolerance::describe() const {
  if (exact) return "exact (bit-identical)";
  std::ostringstream os;
  os << "rtol " << rtol;
  return os.str();
}

bool RunReport::passed() const {
  if (!error.empty() || firstFailure) return false;
  for (const Forward& f : forwards) {
    if (!f.ok) return false;
  }
  for (const Capture& c : captures) {
    if (!c.ok) return false;
  }
  return true;
}

ArrayComparison compareArrays(const Array& native, const Array& recorded, const Tolerance& tolerance) {
  ArrayComparison c;
  c.elements = recorded.size();
  c.ok = native.size() == recorded.size() && native.dtype() == recorded.dtype();
  if (!c.ok) {
    c.maxUlps = std::numeric_limits<int64_t>::max();
    return c;
  }
  // Every element is compared, so maxUlps and `differing` describe the whole array.
  for (size_t i = 0; i < native.size(); ++i) {
    bool same = true;
    if (native.dtype() == Dtype::F32) {
      const float x = native.f32()[i], y = recorded.f32()[i];
      c.maxUlps = std::max(c.maxUlps, ulpDistance(x, y));
      same = tolerance.accepts(x, y);
    } else if (native.i32()[i] != recorded.i32()[i]) {
      c.maxUlps = std::numeric_limits<int64_t>::max();
      same = false;
    }
    if (!same) {
      if (c.differing++ == 0) c.firstIndex = i;
      c.ok = false;
    }
  }
  return c;
}

RunReport runBundle(const Bundle& b, const RunOptions& options) {
  const int64_t recorded = static_cast<int64_t>(b.steps.size());
  const int64_t steps = options.steps.value_or(recorded);
  if (steps < 0 || steps > recorded) {
    throw std::invalid_argument(b.source + ": " + std::to_string(steps) + " steps asked for; the bundle recorded " +
                                std::to_string(recorded));
  }
  // Replay what the browser did: a NaN loss completes its step there (upstream 0.4.6), so it
  // must here too, and is compared bit for bit like any other.
  RuntimeOptions runtime = options.runtime;
  runtime.failOnNonFiniteLoss = false;
  Imported model = compileImported(b, runtime);
  RunReport report;
  // The recorded captures against the run's: each recorded one must be there, element for element.
  auto compareCaptures = [&](const std::string& where, const Captures& native,
                             const std::map<std::string, Array>& want) {
    for (const auto& [name, values] : want) {
      RunReport::Capture c;
      c.where = where;
      c.name = name;
      if (native.has(name)) {
        static_cast<ArrayComparison&>(c) = compareArrays(native.get(name), values, options.tolerance);
      } else {
        c.elements = values.size();
        c.ok = false;
        c.maxUlps = std::numeric_limits<int64_t>::max();
      }
      report.captures.push_back(std::move(c));
    }
  };
  auto replayForwards = [&](int64_t afterStep) {
    for (const BundleForward& f : b.forwards) {
      for (const RecordedRun& run : f.runs) {
        if (run.afterStep != afterStep) continue;
        RunReport::Forward out;
        out.name = f.name;
        out.afterStep = afterStep;
        const RunResult r = model.forward(f.name).run(run.feeds).get();
        if (r.kind != ResultKind::Completed) {
          report.error = "forward '" + f.name + "' after step " + std::to_string(afterStep) + ": " +
                         std::string(resultKindName(r.kind)) + (r.error.empty() ? "" : ": " + r.error);
          return false;
        }
        static_cast<ArrayComparison&>(out) = compareArrays(r.output, run.output, options.tolerance);
        if (!run.captures.empty())
          compareCaptures("forward '" + f.name + "' after step " + std::to_string(afterStep), r.captures, run.captures);
        report.forwards.push_back(out);
      }
    }
    return true;
  };
  if (!replayForwards(0)) return report;
  for (int64_t n = 1; n <= steps; ++n) {
    const RecordedStep& s = b.steps[static_cast<size_t>(n - 1)];
    if (s.setLR) model.training.setLR(*s.setLR).get();
    const StepResult r = model.training.step(s.feeds).get();
    if (r.kind != ResultKind::Completed) {
      report.error = "step " + std::to_string(n) + ": " + std::string(resultKindName(r.kind)) +
                     (r.error.empty() ? "" : ": " + r.error);
      return report;
    }
    StepComparison c;
    c.step = n;
    c.native = r.loss;
    c.recorded = s.loss();
    // The recorded loss passed through a JavaScript number, which keeps no NaN payload: any NaN
    // the step computes matches a recorded NaN.
    const bool bothNaN = std::isnan(c.native) && std::isnan(c.recorded);
    c.ulps = bothNaN ? 0 : ulpDistance(c.native, c.recorded);
    c.relative = bothNaN ? 0
                 : c.recorded == 0 ? std::abs(c.native)
                                   : std::abs((static_cast<double>(c.native) - c.recorded) / c.recorded);
    c.ok = bothNaN || options.tolerance.accepts(c.native, c.recorded);
    if (!c.ok && !report.firstFailure) report.firstFailure = n;
    report.steps.push_back(c);
    if (!s.captures.empty()) compareCaptures("step " + std::to_string(n), r.captures, s.captures);
    if (options.onStep) options.onStep(c);
    if (!replayForwards(n)) return report;
  }
  model.training.destroy();
  return report;
}

}  // namespace tg::parity
