// Optimizers as graph ops: the update for every parameter is appended to the training graph,
// with writebacks that copy the new values over the persistent param/state buffers.
#pragma once

#include <functional>
#include <variant>

#include "tensorgrad/grad.h"
#include "tensorgrad/lr.h"

namespace tg {

using NameFilter = std::function<bool(const std::string&)>;

struct GradTransforms {
  std::optional<double> clipGradNorm{};
  std::variant<bool, NameFilter> normalizeGrads = false;
};

struct Adam : GradTransforms {
  LR lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
};
struct AdamW : Adam {
  double weightDecay = 0.01;
  NameFilter decayFilter{};  // empty: every param whose own decay flag allows it
};
struct SGD : GradTransforms {
  LR lr = 1e-2;
  double momentum = 0;
  bool nesterov = false;
  double weightDecay = 0;  // classic L2: g += weightDecay · p
};
using OptimizerConfig = std::variant<Adam, AdamW, SGD>;

struct WritebackDecl {
  int source = -1;  // tensor holding the new value
  std::string destName{};
  enum class Kind { Param, State } destKind = Kind::Param;
};

// The per-step tensor inputs the optimizers add (upstream's names).
inline constexpr const char* kAdamLrInput = "_adam_lrt";
inline constexpr const char* kAdamDecayShrinkInput = "_adam_decay_shrink";
inline constexpr const char* kSgdLrInput = "_sgd_lr";

// What the host feeds each step, besides the user's inputs.
struct OptimizerResult {
  std::vector<WritebackDecl> writebacks{};
  std::string lrInputName{};                        // kAdamLrInput or kSgdLrInput
  std::optional<std::string> decayShrinkInputName{};  // AdamW under a schedule
};

struct ParamInfo {
  std::string name{};
  int tensor = -1;
  bool decay = true;
};

OptimizerResult appendOptimizer(Graph& graph, ParamGrads grads,
                                const std::vector<ParamInfo>& params,
                                const OptimizerConfig& config);

// Throws std::invalid_argument naming the field ("optimizer.beta2 = 1 is out of range: ...")
// when a hyperparameter is non-finite or out of range: lr and its schedule (see validateLR),
// beta1/beta2 in [0, 1), eps > 0, weightDecay >= 0, momentum >= 0, clipGradNorm > 0.
// traceTraining (so compile) and replaceModel check the config before anything is traced.
void validateOptimizer(const OptimizerConfig& config);

// Host-side per-step scalars for step t (from 1).
struct StepScalars {
  double lr = 0;           // the schedule's value
  double lrInput = 0;      // Adam: lrt = lr·√(1−β2ᵗ)/(1−β1ᵗ); SGD: lr
  double decayShrink = 1;  // AdamW: 1 − lr·weightDecay
};
StepScalars stepScalars(const OptimizerConfig& config, int64_t t);

}  // namespace tg
