// samples/mnist-cnn: a small convolutional MNIST classifier.
//
//   [B, 1, 28, 28] → Conv2d(1→16, 3×3, pad 1) → ReLU → MaxPool 2 → [B, 16, 14, 14]
//                  → Conv2d(16→32, 3×3, pad 1) → ReLU → MaxPool 2 → [B, 32, 7, 7]
//                  → flatten [B, 1568] → Linear(1568→64) → ReLU → Linear(64→10) logits
//
// Cross-entropy on i32 labels; AdamW lr 1e-3, weight decay 0.01, gradient clipping at norm 1.
// Upstream passes no seed (compile draws one); MnistCnnConfig::seed may fix it.
//
// Divergence from upstream's spec.ts: upstream flattens with reshape(h, [BATCH_SIZE, -1]), which
// only fits inputs of the training batch (its main.ts attaches the predictor at B = 256, where
// that reshape leaves a [64, 6272] matrix that fc1 cannot take). Here the flatten keeps the
// input's own batch, so any batch works; at the training batch the graph is the same.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <optional>

namespace tg_models {

struct MnistCnnConfig {
  int64_t batch = 64;       // training batch
  int64_t evalBatch = 256;  // the batch main.ts attaches the predictor at
  int64_t imageSize = 28;   // square images; two 2×2 pools need a multiple of 4
  int64_t classes = 10;
  int64_t conv1Out = 16, conv2Out = 32, hidden = 64;
  double lr = 1e-3;
  std::optional<uint32_t> seed;  // none: a fresh random seed per compile, as upstream
  int64_t pooledSize() const { return imageSize / 4; }
};

struct MnistCnn : tg::Module {
  explicit MnistCnn(MnistCnnConfig c = {})
      : conv1(*this, "conv1", 1, c.conv1Out, 3, {.padding = 1}),
        conv2(*this, "conv2", c.conv1Out, c.conv2Out, 3, {.padding = 1}),
        fc1(*this, "fc1", c.conv2Out * c.pooledSize() * c.pooledSize(), c.hidden),
        fc2(*this, "fc2", c.hidden, c.classes),
        cfg(c) {}
  tg::Conv2d conv1, conv2;
  tg::Linear fc1, fc2;
  MnistCnnConfig cfg;
};

// x [B, 1, H, W] → logits [B, classes].
inline tg::Tensor mnistCnnLogits(const MnistCnn& m, const tg::Tensor& x) {
  tg::Tensor h = tg::relu(m.conv1.fwd(x));
  h = tg::maxPool2d(h, 2);
  h = tg::relu(m.conv2.fwd(h));
  h = tg::maxPool2d(h, 2);
  h = tg::reshape(h, {x.shape()[0], -1});
  h = tg::relu(m.fc1.fwd(h));
  return m.fc2.fwd(h);
}

// Inputs x [B, 1, H, W] f32 in [0, 1], y [B] i32 labels.
inline tg::Tensor mnistCnnLoss(const MnistCnn& m, const tg::Inputs& in) {
  return tg::crossEntropy(mnistCnnLogits(m, in["x"]), in["y"]);
}

// The attached predictor: x → logits.
inline tg::Tensor mnistCnnPredict(const MnistCnn& m, const tg::Inputs& in) {
  return mnistCnnLogits(m, in["x"]);
}

inline tg::InputDecls mnistCnnPredictInputs(const MnistCnnConfig& c) {
  return {{"x", {{c.evalBatch, 1, c.imageSize, c.imageSize}}}};
}

inline tg::TrainingSpec<MnistCnn> mnistCnnSpec(const MnistCnn& model, const MnistCnnConfig& c) {
  tg::AdamW opt;
  opt.lr = c.lr;
  opt.weightDecay = 0.01;
  opt.clipGradNorm = 1.0;
  return {.model = model,
          .loss = mnistCnnLoss,
          .inputs = {{"x", {{c.batch, 1, c.imageSize, c.imageSize}}},
                     {"y", {{c.batch}, tg::Dtype::I32}}},
          .optimizer = opt,
          .seed = c.seed};
}

}  // namespace tg_models
