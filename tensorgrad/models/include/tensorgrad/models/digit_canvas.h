// samples/digit-canvas: the MNIST MLP behind the draw-a-digit page.
//
// Linear layers 784 → hidden → 10 (hidden 64 by default; the page switches it through
// replaceModel), ReLU between layers with dropout p = 0.1 after each ReLU in training only;
// cross-entropy on i32 labels. AdamW (lr 1e-3 by default, the page changes it through setLR),
// weight decay 0.01, gradient clipping at norm 1. Upstream passes no seed (compile draws one);
// DigitCanvasConfig::seed may fix it. The attached predictor returns softmax probabilities,
// without dropout, for a parametric batch (B = 1 for the canvas, 256 for the accuracy probe).
//
// Initialisation: upstream's N(0, 0.02²) weights by default (the parity case relies on it);
// DigitCanvasConfig::initGain = g draws N(0, g²/fan_in) instead (the app: g = √2, He's), as
// mnist_cnn.h. Biases stay zero.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cmath>
#include <optional>
#include <vector>

namespace tg_models {

struct DigitCanvasConfig {
  int64_t inputDim = 784;
  int64_t hidden = 64;
  int64_t classes = 10;
  int64_t batch = 64;
  int64_t evalBatch = 256;
  double dropP = 0.1;
  double lr = 1e-3;
  std::optional<uint32_t> seed;  // none: a fresh random seed per compile, as upstream
  std::optional<double> initGain;  // none: upstream's N(0, 0.02²); g: N(0, g²/fan_in)
  std::vector<int64_t> sizes() const { return {inputDim, hidden, classes}; }
};

// Upstream's MLP(sizes): one Linear per consecutive pair, named layers.0, layers.1, ...
struct DigitMlp : tg::Module {
  explicit DigitMlp(const std::vector<int64_t>& sizes, double dropoutP = 0.1,
                    std::optional<double> initGain = std::nullopt)
      : layers(*this, "layers"), dropP(dropoutP) {
    for (size_t i = 0; i + 1 < sizes.size(); ++i) {
      tg::LinearOptions opts;
      if (initGain) opts.init = tg::init::randn(*initGain / std::sqrt(static_cast<double>(sizes[i])));
      layers.add(sizes[i], sizes[i + 1], opts);
    }
  }
  explicit DigitMlp(const DigitCanvasConfig& c) : DigitMlp(c.sizes(), c.dropP, c.initGain) {}
  tg::ModuleList<tg::Linear> layers;
  double dropP;
};

inline tg::Tensor digitMlpForward(const DigitMlp& m, const tg::Tensor& x, bool applyDropout) {
  tg::Tensor h = x;
  for (size_t i = 0; i < m.layers.size(); ++i) {
    h = m.layers[i].fwd(h);
    if (i + 1 < m.layers.size()) {
      h = tg::relu(h);
      if (applyDropout) h = tg::dropout(h, m.dropP);
    }
  }
  return h;
}

// Inputs x [B, inputDim] f32 in [0, 1], y [B] i32 labels.
inline tg::Tensor digitCanvasLoss(const DigitMlp& m, const tg::Inputs& in) {
  return tg::crossEntropy(digitMlpForward(m, in["x"], true), in["y"]);
}

// The attached predictor: x → class probabilities.
inline tg::Tensor digitCanvasPredict(const DigitMlp& m, const tg::Inputs& in) {
  return tg::softmax(digitMlpForward(m, in["x"], false));
}

inline tg::InputDecls digitCanvasPredictInputs(const DigitCanvasConfig& c) {
  return {{"x", {{tg::null, c.inputDim}}}};
}

inline tg::TrainingSpec<DigitMlp> digitCanvasSpec(const DigitMlp& model, const DigitCanvasConfig& c) {
  tg::AdamW opt;
  opt.lr = c.lr;
  opt.weightDecay = 0.01;
  opt.clipGradNorm = 1.0;
  return {.model = model,
          .loss = digitCanvasLoss,
          .inputs = {{"x", {{c.batch, c.inputDim}}}, {"y", {{c.batch}, tg::Dtype::I32}}},
          .optimizer = opt,
          .seed = c.seed};
}

}  // namespace tg_models
