// Learning-rate schedules: plain data resolved on the host per step (steps count from 1).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tg {

struct LR;
namespace lr {
struct Linear {
  double peak{}, final{};
  int64_t steps{};
  std::optional<int64_t> startStep{};
};
struct CosineAnnealing {
  double peak{}, final{};
  int64_t steps{};
  std::optional<int64_t> startStep{};
};
struct Warmup {
  double peak{};
  int64_t steps{};
  std::shared_ptr<const LR> after{};
  std::optional<int64_t> startStep{};
};
struct Staircase {
  double peak{};
  int64_t every{};
  double gamma{};
  std::optional<int64_t> startStep{};
};
struct MultiStep {
  double peak{};
  std::vector<int64_t> milestones{};
  double gamma{};
  std::optional<int64_t> startStep{};
};

LR linear(double peak, double final, int64_t steps);
LR cosineAnnealing(double peak, double final, int64_t steps);
LR warmup(double peak, int64_t steps, LR after);
LR staircase(double peak, int64_t every, double gamma);
LR multiStep(double peak, std::vector<int64_t> milestones, double gamma);
}  // namespace lr

struct LR {
  std::variant<double, lr::Linear, lr::CosineAnnealing, lr::Warmup, lr::Staircase, lr::MultiStep>
      schedule;
  // Implicit on purpose: a number is a constant schedule, as upstream's `lr: 0.005`.
  LR(double constant) : schedule(constant) {}
  LR(lr::Linear s) : schedule(std::move(s)) {}
  LR(lr::CosineAnnealing s) : schedule(std::move(s)) {}
  LR(lr::Warmup s) : schedule(std::move(s)) {}
  LR(lr::Staircase s) : schedule(std::move(s)) {}
  LR(lr::MultiStep s) : schedule(std::move(s)) {}
};

// Throws std::invalid_argument naming `field` and the bad part when a rate is non-finite or
// negative, a step count or `every` is not positive, gamma is non-finite or not positive,
// milestones are not positive and increasing, a startStep is negative or a warmup has no `after`.
void validateLR(const LR& schedule, const std::string& field);

double resolveLR(const LR& schedule, int64_t step);
// setLR semantics: a schedule without a startStep restarts so that `baseStep` is its step 1.
LR rebaseLR(const LR& schedule, int64_t baseStep);
bool isLRDynamic(const LR& schedule);

}  // namespace tg
