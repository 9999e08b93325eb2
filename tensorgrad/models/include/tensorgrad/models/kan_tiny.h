// samples/kan-tiny: a Kolmogorov-Arnold network fitting y = sin(πx) on x in [-1, 1]. Every edge
// of a layer is a learnable cubic B-spline (coefficients on `knots()` integer-spaced centres over
// the input range) plus a SiLU residual through a linear weight:
//   out = Σ_i Σ_k C[o, i, k] · N(x_i scaled to [0, knots−1] − k) + silu(x) · Wres.
// Two layers, 1 → hidden → 1; MSE loss; Adam. Upstream passes no seed (compile draws one); the
// config's seed may fix it.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cstdint>
#include <optional>
#include <string>

namespace tg_models {

struct KanConfig {
  int64_t grid = 5;    // spline intervals
  int64_t degree = 3;  // cubic
  int64_t hidden = 4;
  int64_t batch = 256;
  std::optional<uint32_t> seed;  // none: a fresh random seed per compile, as upstream
  int64_t knots() const { return grid + degree; }
};

struct KanLayer : tg::Module {
  KanLayer(tg::Module& parent, const std::string& name, int64_t in, int64_t out, int64_t knots_)
      : tg::Module(parent, name),
        C(param("C", {out, in, knots_}, {.init = tg::init::randn(0.1)})),
        Wres(param("Wres", {in, out})),
        I(in),
        O(out),
        knots(knots_) {}
  tg::Tensor C;     // spline coefficients [O, I, knots]
  tg::Tensor Wres;  // residual weight [I, O]
  int64_t I, O, knots;
};

// The uniform cubic B-spline basis N(u), nonzero on |u| < 2.
inline tg::Tensor kanBsplineBasis(const tg::Tensor& u) {
  const tg::Tensor absU = tg::abs(u);
  const tg::Tensor u2 = tg::mul(u, u);
  const tg::Tensor absU3 = tg::mul(absU, u2);
  const tg::Tensor inner = tg::add(tg::sub(tg::mul(absU3, 0.5), u2), 2.0 / 3.0);  // |u| < 1
  const tg::Tensor outerBase = tg::max(tg::neg(tg::sub(absU, 2.0)), 0.0);
  const tg::Tensor outer =
      tg::mul(tg::mul(outerBase, tg::mul(outerBase, outerBase)), 1.0 / 6.0);  // 1 <= |u| < 2
  return tg::where(tg::less(absU, 1.0), inner, outer);
}

// x [B, I] → [B, O].
inline tg::Tensor kanLayerFwd(const KanLayer& l, const tg::Tensor& x) {
  const int64_t b = x.shape()[0];
  const tg::Tensor xScaled = tg::mul(tg::add(x, 1.0), static_cast<double>(l.knots - 1) / 2.0);
  const tg::Tensor kVec = tg::arange(l.knots, tg::Dtype::F32);
  const tg::Tensor xCol = tg::reshape(xScaled, {b, l.I, 1});
  const tg::Tensor kRow = tg::reshape(kVec, {1, 1, l.knots});
  const tg::Tensor basis = kanBsplineBasis(tg::sub(xCol, kRow));  // [B, I, knots]
  const tg::Tensor basisFlat = tg::reshape(basis, {b, l.I * l.knots});
  const tg::Tensor cFlat = tg::reshape(l.C, {l.O, l.I * l.knots});
  const tg::Tensor ySpline = tg::matmul(basisFlat, tg::swapAxes(cFlat, 0, 1));
  const tg::Tensor yRes = tg::matmul(tg::silu(x), l.Wres);
  return tg::add(ySpline, yRes);
}

struct Kan : tg::Module {
  explicit Kan(KanConfig c = {})
      : l1(*this, "l1", 1, c.hidden, c.knots()), l2(*this, "l2", c.hidden, 1, c.knots()), cfg(c) {}
  KanLayer l1, l2;
  KanConfig cfg;
};

// x [B, 1] → y [B, 1].
inline tg::Tensor kanForward(const Kan& m, const tg::Tensor& x) {
  return kanLayerFwd(m.l2, kanLayerFwd(m.l1, x));
}

inline tg::Tensor kanLoss(const Kan& m, const tg::Inputs& in) {
  return tg::mean(tg::square(tg::sub(kanForward(m, in["x"]), in["y"])));
}

inline tg::Tensor kanPredict(const Kan& m, const tg::Inputs& in) {
  return kanForward(m, in["x"]);
}

// Upstream's training spec; `c` is the config `model` was built from (it sizes the inputs and
// may fix the seed).
inline tg::TrainingSpec<Kan> kanSpec(const Kan& model, const KanConfig& c) {
  return {.model = model,
          .loss = kanLoss,
          .inputs = {{"x", {{c.batch, 1}}}, {"y", {{c.batch, 1}}}},
          .optimizer = tg::Adam{{}, 0.005},
          .seed = c.seed};
}

// The forward upstream's main.ts attaches: the fitted curve at any number of points.
inline tg::AttachSpec<Kan> kanPredictor() {
  return {.forward = kanPredict, .inputs = {{"x", {{tg::null, 1}}}}};
}

}  // namespace tg_models
