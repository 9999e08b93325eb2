// Reverse-mode autograd: appends the backward pass to the same graph, one adjoint per
// differentiable forward op, walking the forward ops in reverse.
#pragma once

#include <functional>
#include <map>

#include "tensorgrad/tensor.h"

namespace tg {

// Param name → gradient tensor id, in parameter order.
using ParamGrads = std::vector<std::pair<std::string, int>>;

struct GradResult {
  ParamGrads paramGrads{};  // a param the loss does not reach gets zeros
  int loss = -1;
};

// Requires exactly one output, a 0-d f32 loss.
GradResult appendGrad(Graph& graph);
// Global L2 clipping: every grad scaled by min(1, maxNorm / (‖g‖ + 1e-6)).
ParamGrads appendGradClip(Graph& graph, const ParamGrads& grads, double maxNorm);
// Per-parameter g / (‖g‖ + 1e-8) for the params `filter` selects (all when empty).
ParamGrads appendGradNormalize(Graph& graph, const ParamGrads& grads,
                               const std::function<bool(const std::string&)>& filter = {});

}  // namespace tg
