// Adam/AdamW as fused update ops (adam_update_m/v/p); SGD composed from element-wise ops.
// Gradient transforms run first: per-param normalisation, then global clipping.
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "tensorgrad/errors.h"
#include "tensorgrad/ops.h"
#include "tensorgrad/optim.h"

namespace tg {
namespace {

ParamGrads transformGrads(Graph& graph, ParamGrads grads, const GradTransforms& t) {
  if (const auto* all = std::get_if<bool>(&t.normalizeGrads); all && *all)
    grads = appendGradNormalize(graph, grads);
  if (const auto* filter = std::get_if<NameFilter>(&t.normalizeGrads))
    grads = appendGradNormalize(graph, grads, *filter);
  if (t.clipGradNorm && *t.clipGradNorm > 0) grads = appendGradClip(graph, grads, *t.clipGradNorm);
  return grads;
}

const ParamInfo& findParam(const std::vector<ParamInfo>& params, const std::string& name) {
  for (const ParamInfo& p : params) {
    if (p.name == name) return p;
  }
  throw TraceError("optimizer: missing param tensor for '" + name + "'");
}

OptimizerResult appendAdam(Graph& graph, const ParamGrads& grads,
                           const std::vector<ParamInfo>& params, const Adam& c, double weightDecay,
                           const NameFilter& decayFilter) {
  OptimizerResult r;
  r.lrInputName = kAdamLrInput;
  const bool scheduled = isLRDynamic(c.lr);
  std::set<std::string> decayed;
  if (weightDecay > 0) {
    for (const auto& [name, id] : grads) {
      // The param's own flag (from its init) decides; the filter further restricts.
      if (findParam(params, name).decay && (!decayFilter || decayFilter(name)))
        decayed.insert(name);
    }
  }
  traceInto(graph, [&] {
    const Tensor lrt = tensorInput(r.lrInputName, {}, Dtype::F32);
    std::optional<Tensor> shrinkInput;
    if (scheduled && !decayed.empty()) {
      r.decayShrinkInputName = kAdamDecayShrinkInput;
      shrinkInput = tensorInput(*r.decayShrinkInputName, {}, Dtype::F32);
    }
    const double staticShrink = 1 - resolveLR(c.lr, 1) * weightDecay;
    for (const auto& [name, gradId] : grads) {
      const Tensor p(&graph, findParam(params, name).tensor);
      const Tensor g(&graph, gradId);
      const Tensor m = stateInput("adam_m_" + name, p.shape(), Dtype::F32, 0);
      const Tensor v = stateInput("adam_v_" + name, p.shape(), Dtype::F32, 0);
      OpAttrs am;
      am.beta = c.beta1;
      const Tensor mNew =
          emit(OpKind::AdamUpdateM, {m, g}, am, CallSite{"adamUpdateM", Loc::current()});
      OpAttrs av;
      av.beta = c.beta2;
      const Tensor vNew =
          emit(OpKind::AdamUpdateV, {v, g}, av, CallSite{"adamUpdateV", Loc::current()});
      OpAttrs ap;
      ap.eps = c.eps;
      std::vector<Tensor> inputs{p, mNew, vNew, lrt};
      if (decayed.contains(name) && shrinkInput)
        inputs.push_back(*shrinkInput);
      else
        ap.decayShrink = decayed.contains(name) ? staticShrink : 1.0;
      const Tensor pNew =
          emit(OpKind::AdamUpdateP, inputs, ap, CallSite{"adamUpdateP", Loc::current()});
      r.writebacks.push_back({mNew.id(), "adam_m_" + name, WritebackDecl::Kind::State});
      r.writebacks.push_back({vNew.id(), "adam_v_" + name, WritebackDecl::Kind::State});
      r.writebacks.push_back({pNew.id(), name, WritebackDecl::Kind::Param});
    }
  });
  return r;
}

OptimizerResult appendSgd(Graph& graph, const ParamGrads& grads,
                          const std::vector<ParamInfo>& params, const SGD& c) {
  if (c.nesterov && c.momentum <= 0) {
    throw TraceError(
        "sgd: nesterov requires momentum > 0 (got momentum=" + std::to_string(c.momentum) + ")");
  }
  OptimizerResult r;
  r.lrInputName = kSgdLrInput;
  traceInto(graph, [&] {
    const Tensor lr = tensorInput(r.lrInputName, {}, Dtype::F32);
    for (const auto& [name, gradId] : grads) {
      const ParamInfo& info = findParam(params, name);
      const Tensor p(&graph, info.tensor);
      Tensor g(&graph, gradId);
      if (c.weightDecay > 0 && info.decay) g = add(g, mulScalar(p, c.weightDecay));
      Tensor update = g;
      if (c.momentum > 0) {
        const Tensor v = stateInput("sgd_v_" + name, p.shape(), Dtype::F32, 0);
        const Tensor vNew = add(mulScalar(v, c.momentum), g);
        update = c.nesterov ? add(g, mulScalar(vNew, c.momentum)) : vNew;
        r.writebacks.push_back({vNew.id(), "sgd_v_" + name, WritebackDecl::Kind::State});
      }
      const Tensor pNew = sub(p, mul(broadcastTo(lr, p.shape()), update));
      r.writebacks.push_back({pNew.id(), name, WritebackDecl::Kind::Param});
    }
  });
  return r;
}

}  // namespace

OptimizerResult appendOptimizer(Graph& graph, ParamGrads grads,
                                const std::vector<ParamInfo>& params,
                                const OptimizerConfig& config) {
  if (const auto* w = std::get_if<AdamW>(&config)) {
    return appendAdam(graph, transformGrads(graph, grads, *w), params, *w, w->weightDecay,
                      w->decayFilter);
  }
  if (const auto* a = std::get_if<Adam>(&config))
    return appendAdam(graph, transformGrads(graph, grads, *a), params, *a, 0, {});
  const SGD& s = std::get<SGD>(config);
  return appendSgd(graph, transformGrads(graph, grads, s), params, s);
}

namespace {
std::string showValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}
void require(bool ok, const char* field, double v, const char* rule) {
  if (!ok) {
    throw std::invalid_argument(std::string("tensorgrad: optimizer.") + field + " = " +
                                showValue(v) + " is out of range: " + rule);
  }
}
void validateTransforms(const GradTransforms& t) {
  if (t.clipGradNorm) {
    const double c = *t.clipGradNorm;
    require(std::isfinite(c) && c > 0, "clipGradNorm", c, "must be finite and > 0");
  }
}
}  // namespace

void validateOptimizer(const OptimizerConfig& config) {
  std::visit(
      [](const auto& c) {
        using C = std::decay_t<decltype(c)>;
        validateLR(c.lr, "optimizer.lr");
        validateTransforms(c);
        if constexpr (std::is_same_v<C, SGD>) {
          require(std::isfinite(c.momentum) && c.momentum >= 0, "momentum", c.momentum,
                  "must be finite and >= 0");
          require(std::isfinite(c.weightDecay) && c.weightDecay >= 0, "weightDecay",
                  c.weightDecay, "must be finite and >= 0");
        } else {
          require(c.beta1 >= 0 && c.beta1 < 1, "beta1", c.beta1, "must be in [0, 1)");
          require(c.beta2 >= 0 && c.beta2 < 1, "beta2", c.beta2, "must be in [0, 1)");
          require(std::isfinite(c.eps) && c.eps > 0, "eps", c.eps, "must be finite and > 0");
          if constexpr (std::is_same_v<C, AdamW>) {
            require(std::isfinite(c.weightDecay) && c.weightDecay >= 0, "weightDecay",
                    c.weightDecay, "must be finite and >= 0");
          }
        }
      },
      config);
}

StepScalars stepScalars(const OptimizerConfig& config, int64_t t) {
  StepScalars s;
  if (const auto* sgd = std::get_if<SGD>(&config)) {
    s.lr = s.lrInput = resolveLR(sgd->lr, t);
    return s;
  }
  const Adam& a =
      std::holds_alternative<AdamW>(config) ? std::get<AdamW>(config) : std::get<Adam>(config);
  const double wd = std::holds_alternative<AdamW>(config) ? std::get<AdamW>(config).weightDecay : 0;
  s.lr = resolveLR(a.lr, t);
  const auto td = static_cast<double>(t);
  s.lrInput = s.lr * std::sqrt(1 - std::pow(a.beta2, td)) / (1 - std::pow(a.beta1, td));
  s.decayShrink = 1 - s.lr * wd;
  return s;
}

}  // namespace tg
