#include "tensorgrad/lr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>

namespace tg {
namespace lr {
LR linear(double peak, double final, int64_t steps) {
  return Linear{peak, final, steps, std::nullopt};
}
LR cosineAnnealing(double peak, double final, int64_t steps) {
  return CosineAnnealing{peak, final, steps, std::nullopt};
}
LR warmup(double peak, int64_t steps, LR after) {
  return Warmup{peak, steps, std::make_shared<const LR>(std::move(after)), std::nullopt};
}
LR staircase(double peak, int64_t every, double gamma) {
  return Staircase{peak, every, gamma, std::nullopt};
}
LR multiStep(double peak, std::vector<int64_t> milestones, double gamma) {
  return MultiStep{peak, std::move(milestones), gamma, std::nullopt};
}
}  // namespace lr

namespace {
// A schedule's own step: 1 at its start, never below 1.
double intrinsic(const std::optional<int64_t>& startStep, int64_t step) {
  return static_cast<double>(std::max<int64_t>(1, step - startStep.value_or(0)));
}
}  // namespace

namespace {
std::string show(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}
[[noreturn]] void bad(const std::string& field, const std::string& value, const std::string& rule) {
  throw std::invalid_argument("tensorgrad: " + field + " = " + value + " is out of range: " + rule);
}
void rate(double v, const std::string& field) {
  if (!std::isfinite(v) || v < 0) bad(field, show(v), "a learning rate must be finite and >= 0");
}
void positive(int64_t v, const std::string& field) {
  if (v <= 0) bad(field, std::to_string(v), "must be a positive step count");
}
void gammaOk(double v, const std::string& field) {
  if (!std::isfinite(v) || v <= 0) bad(field, show(v), "a decay factor must be finite and > 0");
}
void start(const std::optional<int64_t>& s, const std::string& field) {
  if (s && *s < 0) bad(field + ".startStep", std::to_string(*s), "must be >= 0");
}
}  // namespace

void validateLR(const LR& schedule, const std::string& field) {
  std::visit(
      [&](const auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, double>) {
          rate(s, field);
        } else if constexpr (std::is_same_v<S, lr::Linear> || std::is_same_v<S, lr::CosineAnnealing>) {
          rate(s.peak, field + ".peak");
          rate(s.final, field + ".final");
          positive(s.steps, field + ".steps");
          start(s.startStep, field);
        } else if constexpr (std::is_same_v<S, lr::Warmup>) {
          rate(s.peak, field + ".peak");
          positive(s.steps, field + ".steps");
          start(s.startStep, field);
          if (!s.after) bad(field + ".after", "null", "a warmup needs the schedule that follows it");
          validateLR(*s.after, field + ".after");
        } else if constexpr (std::is_same_v<S, lr::Staircase>) {
          rate(s.peak, field + ".peak");
          positive(s.every, field + ".every");
          gammaOk(s.gamma, field + ".gamma");
          start(s.startStep, field);
        } else {
          rate(s.peak, field + ".peak");
          gammaOk(s.gamma, field + ".gamma");
          start(s.startStep, field);
          for (size_t i = 0; i < s.milestones.size(); ++i) {
            const std::string f = field + ".milestones[" + std::to_string(i) + "]";
            positive(s.milestones[i], f);
            if (i > 0 && s.milestones[i] <= s.milestones[i - 1])
              bad(f, std::to_string(s.milestones[i]), "milestones must increase");
          }
        }
      },
      schedule.schedule);
}

double resolveLR(const LR& schedule, int64_t step) {
  return std::visit(
      [&](const auto& s) -> double {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, double>) {
          return s;
        } else if constexpr (std::is_same_v<S, lr::Linear>) {
          const double f =
              std::min(intrinsic(s.startStep, step) / static_cast<double>(s.steps), 1.0);
          return s.peak + (s.final - s.peak) * f;
        } else if constexpr (std::is_same_v<S, lr::CosineAnnealing>) {
          const double f =
              std::min(intrinsic(s.startStep, step) / static_cast<double>(s.steps), 1.0);
          return s.final + 0.5 * (s.peak - s.final) * (1 + std::cos(std::numbers::pi * f));
        } else if constexpr (std::is_same_v<S, lr::Warmup>) {
          const double t = intrinsic(s.startStep, step);
          if (t <= static_cast<double>(s.steps)) return s.peak * (t / static_cast<double>(s.steps));
          return resolveLR(*s.after, static_cast<int64_t>(t) - s.steps);
        } else if constexpr (std::is_same_v<S, lr::Staircase>) {
          // (t − 1) / every: the first `every` steps are unscaled, like PyTorch's StepLR.
          const double k =
              std::floor((intrinsic(s.startStep, step) - 1) / static_cast<double>(s.every));
          return s.peak * std::pow(s.gamma, k);
        } else {
          const double t = intrinsic(s.startStep, step);
          double k = 0;
          for (int64_t m : s.milestones) k += t >= static_cast<double>(m) ? 1 : 0;
          return s.peak * std::pow(s.gamma, k);
        }
      },
      schedule.schedule);
}

LR rebaseLR(const LR& schedule, int64_t baseStep) {
  LR out = schedule;
  std::visit(
      [&](auto& s) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(s)>, double>) {
          if (!s.startStep) s.startStep = baseStep - 1;
        }
      },
      out.schedule);
  return out;
}

bool isLRDynamic(const LR& schedule) {
  return !std::holds_alternative<double>(schedule.schedule);
}

}  // namespace tg
