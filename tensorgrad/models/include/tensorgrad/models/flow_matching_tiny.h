// samples/flow-matching-tiny: a rectified-flow model on MNIST.
//
// The network predicts the velocity v(x_t, t) of the straight path from an image x_0 to noise
// x_1: four 3×3 convolutions (1 → 32 → 32 → 32 → 1, pad 1, ReLU between), with a timestep
// embedding (Embedding over T + 1 buckets → Linear to the conv channels) added after the first
// ReLU. Training draws x_1 = randn in the graph, mixes x_t = x_0 + t·(x_1 − x_0) with
// t = tNorm_table[t] (the host's table t / T), and regresses the target x_1 − x_0 with MSE.
// Adam lr 2e-4, gradient clipping at norm 1. Upstream passes no seed (compile draws one);
// FlowMatchingTinyConfig::seed may fix it. main.ts samples with the predictor attached at
// B = 1 and Euler steps x ← x − v / 25 from noise.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <optional>
#include <vector>

namespace tg_models {

struct FlowMatchingTinyConfig {
  int64_t imageH = 28, imageW = 28;
  int64_t tSteps = 100;  // time buckets 1..T (index 0 unused)
  int64_t batch = 64;
  int64_t convCh = 32;
  int64_t embDim = 32;
  double lr = 2e-4;
  int64_t cosineSteps = 0;  // > 0: Adam's rate falls by a cosine to a tenth over these steps (ours)
  std::optional<uint32_t> seed;  // none: a fresh random seed per compile, as upstream
};

struct FlowMatchingTiny : tg::Module {
  explicit FlowMatchingTiny(FlowMatchingTinyConfig c = {})
      : tEmb(*this, "tEmb", c.tSteps + 1, c.embDim),
        tProj(*this, "tProj", c.embDim, c.convCh),
        conv1(*this, "conv1", 1, c.convCh, 3, {.padding = 1}),
        conv2(*this, "conv2", c.convCh, c.convCh, 3, {.padding = 1}),
        conv3(*this, "conv3", c.convCh, c.convCh, 3, {.padding = 1}),
        conv4(*this, "conv4", c.convCh, 1, 3, {.padding = 1}),
        cfg(c) {}
  tg::Embedding tEmb;
  tg::Linear tProj;
  tg::Conv2d conv1, conv2, conv3, conv4;
  FlowMatchingTinyConfig cfg;
};

// x_t [B, 1, H, W], t [B] i32 in 1..T → velocity [B, 1, H, W].
inline tg::Tensor flowVelocity(const FlowMatchingTiny& m, const tg::Tensor& xT, const tg::Tensor& t) {
  const int64_t b = xT.shape()[0];
  const tg::Tensor tFeat = tg::reshape(m.tProj.fwd(m.tEmb.fwd(t)), {b, m.cfg.convCh, 1, 1});
  tg::Tensor h = tg::relu(m.conv1.fwd(xT));
  h = tg::add(h, tFeat);
  h = tg::relu(m.conv2.fwd(h));
  h = tg::relu(m.conv3.fwd(h));
  return m.conv4.fwd(h);
}

// Inputs x_0 [B, 1, H, W] f32 in [0, 1], t [B] i32 in 1..T, tNorm_table [T + 1] (t / T). `Net` is
// upstream's FlowMatchingTiny or the app's FlowMatchingUnet (flow_matching_unet.h): any module
// with a flowVelocity overload and a cfg.
template <class Net>
tg::Tensor flowMatchingLoss(const Net& m, const tg::Inputs& in) {
  const tg::Tensor& x0 = in["x_0"];
  const int64_t b = x0.shape()[0];
  const tg::Tensor x1 = tg::randn({b, 1, m.cfg.imageH, m.cfg.imageW});
  const tg::Tensor tNorm = tg::reshape(tg::takeAlongAxis(in["tNorm_table"], in["t"], 0), {b, 1, 1, 1});
  const tg::Tensor vTarget = tg::sub(x1, x0);
  const tg::Tensor xT = tg::add(x0, tg::mul(tNorm, vTarget));
  return tg::mean(tg::square(tg::sub(flowVelocity(m, xT, in["t"]), vTarget)));
}

// The attached predictor: (x_t, t) → velocity.
template <class Net>
tg::Tensor flowMatchingPredict(const Net& m, const tg::Inputs& in) {
  return flowVelocity(m, in["x_t"], in["t"]);
}

// main.ts attaches the predictor for one image at a time.
inline tg::InputDecls flowMatchingPredictInputs(const FlowMatchingTinyConfig& c, int64_t batch = 1) {
  return {{"x_t", {{batch, 1, c.imageH, c.imageW}}}, {"t", {{batch}, tg::Dtype::I32}}};
}

// The tNorm_table input: t / T for t = 1..T, 0 at index 0.
inline std::vector<float> flowTNormTable(const FlowMatchingTinyConfig& c) {
  std::vector<float> out(static_cast<size_t>(c.tSteps + 1), 0.f);
  for (int64_t t = 1; t <= c.tSteps; ++t)
    out[static_cast<size_t>(t)] = static_cast<float>(static_cast<double>(t) / static_cast<double>(c.tSteps));
  return out;
}

template <class Net>
tg::TrainingSpec<Net> flowMatchingTinySpec(const Net& model, const FlowMatchingTinyConfig& c) {
  tg::Adam opt;
  opt.lr = c.cosineSteps > 0 ? tg::lr::cosineAnnealing(c.lr, c.lr / 10, c.cosineSteps) : tg::LR(c.lr);
  opt.clipGradNorm = 1.0;
  return {.model = model,
          .loss = flowMatchingLoss<Net>,
          .inputs = {{"x_0", {{c.batch, 1, c.imageH, c.imageW}}},
                     {"t", {{c.batch}, tg::Dtype::I32}},
                     {"tNorm_table", {{c.tSteps + 1}}}},
          .optimizer = opt,
          .seed = c.seed};
}

}  // namespace tg_models
