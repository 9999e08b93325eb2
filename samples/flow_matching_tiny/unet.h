// samples/flow_matching_tiny's own velocity network (not upstream's, so not in the model zoo): a two-level U-Net, so that
// the network sees a whole 28×28 garment. Upstream's four 3×3 convolutions see a 9×9 window, a
// third of the image, and generate garment fragments at 28 px (issue 27).
//
//   x_t [B, 1, S, S] → conv 1→C (+ time) → conv C→C = s1                        at S
//     → maxpool → conv C→2C (+ time) → conv 2C→2C = s2                          at S/2
//     → maxpool → conv 2C→2C (+ time) → conv 2C→2C                              at S/4
//     → upsample, + s2 → conv 2C→C → upsample, + s1 → conv C→C → conv C→1       back at S
//
// Every conv is 3×3, pad 1, ReLU after all but the last; skips are added, not concatenated (the
// decoder's convolutions keep their input channels). The time bucket's embedding (Embedding over
// T + 1 buckets, N(0, 1) rows) is projected to each level's channels and added after that level's
// first convolution. Weights start at He's scale N(0, 2/fan_in) (tensorgrad's default N(0, 0.02²)
// is 3 to 24 times smaller at these fan-ins, 9 to 576), the output convolution's at N(0, 0.02²)
// so that the first velocities are small (He there started the loss at 41 instead of 2.4 on
// lavapipe, 2.8 on the H100); biases at zero.
// S must be a multiple of 4.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include <tensorgrad/models/flow_matching_tiny.h>

namespace tg_models {

struct FlowMatchingUnet : tg::Module {
  explicit FlowMatchingUnet(FlowMatchingTinyConfig c)
      : tEmb(*this, "tEmb", c.tSteps + 1, c.embDim, {.init = tg::init::randn(1.0)}),
        tProj1(*this, "tProj1", c.embDim, c.convCh, {.init = he(c.embDim)}),
        tProj2(*this, "tProj2", c.embDim, 2 * c.convCh, {.init = he(c.embDim)}),
        tProj3(*this, "tProj3", c.embDim, 2 * c.convCh, {.init = he(c.embDim)}),
        in1(*this, "in1", 1, c.convCh, 3, conv(1)),
        in2(*this, "in2", c.convCh, c.convCh, 3, conv(c.convCh)),
        down1(*this, "down1", c.convCh, 2 * c.convCh, 3, conv(c.convCh)),
        down2(*this, "down2", 2 * c.convCh, 2 * c.convCh, 3, conv(2 * c.convCh)),
        mid1(*this, "mid1", 2 * c.convCh, 2 * c.convCh, 3, conv(2 * c.convCh)),
        mid2(*this, "mid2", 2 * c.convCh, 2 * c.convCh, 3, conv(2 * c.convCh)),
        up1(*this, "up1", 2 * c.convCh, c.convCh, 3, conv(2 * c.convCh)),
        up2(*this, "up2", c.convCh, c.convCh, 3, conv(c.convCh)),
        out(*this, "out", c.convCh, 1, 3, {.padding = 1}),  // upstream's N(0, 0.02²): a small first velocity
        cfg(c) {
    if (c.imageH % 4 != 0 || c.imageW % 4 != 0)
      throw std::invalid_argument("the U-Net pools twice: image size " + std::to_string(c.imageH) + "×" +
                                  std::to_string(c.imageW) + " is not a multiple of 4");
  }
  static tg::InitSpec he(int64_t fanIn) { return tg::init::randn(std::sqrt(2.0 / static_cast<double>(fanIn))); }
  static tg::Conv2dLayerOptions conv(int64_t inC) { return {.padding = 1, .init = he(inC * 9)}; }

  tg::Embedding tEmb;
  tg::Linear tProj1, tProj2, tProj3;
  tg::Conv2d in1, in2, down1, down2, mid1, mid2, up1, up2, out;
  FlowMatchingTinyConfig cfg;
};

// x_t [B, 1, S, S], t [B] i32 in 1..T → velocity [B, 1, S, S].
inline tg::Tensor flowVelocity(const FlowMatchingUnet& m, const tg::Tensor& xT, const tg::Tensor& t) {
  const int64_t b = xT.shape()[0];
  const tg::Tensor emb = m.tEmb.fwd(t);
  const auto time = [&](const tg::Linear& proj, int64_t ch) { return tg::reshape(proj.fwd(emb), {b, ch, 1, 1}); };
  const int64_t c = m.cfg.convCh;
  tg::Tensor h = tg::add(tg::relu(m.in1.fwd(xT)), time(m.tProj1, c));
  const tg::Tensor s1 = tg::relu(m.in2.fwd(h));
  h = tg::add(tg::relu(m.down1.fwd(tg::maxPool2d(s1, 2))), time(m.tProj2, 2 * c));
  const tg::Tensor s2 = tg::relu(m.down2.fwd(h));
  h = tg::add(tg::relu(m.mid1.fwd(tg::maxPool2d(s2, 2))), time(m.tProj3, 2 * c));
  h = tg::relu(m.mid2.fwd(h));
  h = tg::relu(m.up1.fwd(tg::add(tg::nearestUpsample2d(h, 2), s2)));
  h = tg::relu(m.up2.fwd(tg::add(tg::nearestUpsample2d(h, 2), s1)));
  return m.out.fwd(h);
}

}  // namespace tg_models
