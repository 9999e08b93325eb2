// samples/nerf-tiny: an implicit neural representation of one 64×64 RGB image.
//
// Pixel coordinates (x, y) in [-1, 1] go through a Fourier positional encoding — sin and cos of
// each coordinate times L frequencies π·2^k, fed as the `freqs` input — into an MLP
// 4L → 64 → 64 → 64 → 3 (ReLU, sigmoid output). MSE against the pixels' RGB on random pixel
// batches; Adam lr 1e-3. Upstream passes no seed (compile draws one); NerfTinyConfig::seed may
// fix it. main.ts renders with the predictor attached at every pixel of the image.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <optional>
#include <vector>

namespace tg_models {

struct NerfTinyConfig {
  int64_t imageW = 64, imageH = 64;
  int64_t batch = 1024;  // random pixels per step
  int64_t freqs = 8;     // L
  int64_t hidden = 64;
  double lr = 1e-3;
  std::optional<uint32_t> seed;  // none: a fresh random seed per compile, as upstream
  int64_t pixels() const { return imageW * imageH; }
};

struct NerfTiny : tg::Module {
  explicit NerfTiny(NerfTinyConfig c = {})
      : l1(*this, "l1", 4 * c.freqs, c.hidden),
        l2(*this, "l2", c.hidden, c.hidden),
        l3(*this, "l3", c.hidden, c.hidden),
        l4(*this, "l4", c.hidden, 3),
        cfg(c) {}
  tg::Linear l1, l2, l3, l4;
  NerfTinyConfig cfg;
};

// coords [B, 2], freqs [L] → [sin(c·f) | cos(c·f)] flattened to [B, 4L].
inline tg::Tensor nerfPosEnc(const tg::Tensor& coords, const tg::Tensor& freqs) {
  const int64_t b = coords.shape()[0];
  const int64_t l = freqs.shape()[0];
  const tg::Tensor c = tg::reshape(coords, {b, 2, 1});
  const tg::Tensor f = tg::reshape(freqs, {1, 1, l});
  const tg::Tensor scaled = tg::mul(c, f);
  const tg::Tensor sinF = tg::reshape(tg::sin(scaled), {b, 2 * l});
  const tg::Tensor cosF = tg::reshape(tg::cos(scaled), {b, 2 * l});
  return tg::concat({sinF, cosF}, 1);
}

// coords [B, 2], freqs [L] → RGB [B, 3] in (0, 1).
inline tg::Tensor nerfRgb(const NerfTiny& m, const tg::Tensor& coords, const tg::Tensor& freqs) {
  tg::Tensor h = nerfPosEnc(coords, freqs);
  h = tg::relu(m.l1.fwd(h));
  h = tg::relu(m.l2.fwd(h));
  h = tg::relu(m.l3.fwd(h));
  return tg::sigmoid(m.l4.fwd(h));
}

// Inputs coords [B, 2] in [-1, 1], rgb [B, 3] in [0, 1], freqs [L].
inline tg::Tensor nerfTinyLoss(const NerfTiny& m, const tg::Inputs& in) {
  return tg::mean(tg::square(tg::sub(nerfRgb(m, in["coords"], in["freqs"]), in["rgb"])));
}

// The attached predictor: (coords, freqs) → RGB.
inline tg::Tensor nerfTinyPredict(const NerfTiny& m, const tg::Inputs& in) {
  return nerfRgb(m, in["coords"], in["freqs"]);
}

// main.ts attaches the predictor for the whole image at once.
inline tg::InputDecls nerfTinyPredictInputs(const NerfTinyConfig& c) {
  return {{"coords", {{c.pixels(), 2}}}, {"freqs", {{c.freqs}}}};
}

// The freqs input: π·2^k for k = 0..L-1.
inline std::vector<float> nerfFreqs(const NerfTinyConfig& c) {
  std::vector<float> out(static_cast<size_t>(c.freqs));
  for (size_t k = 0; k < out.size(); ++k)
    out[k] = static_cast<float>(3.141592653589793 * static_cast<double>(uint64_t{1} << k));
  return out;
}

// Every pixel centre in [-1, 1], row-major: (x, y) per pixel.
inline std::vector<float> nerfGridCoords(const NerfTinyConfig& c) {
  std::vector<float> out;
  out.reserve(static_cast<size_t>(2 * c.pixels()));
  for (int64_t row = 0; row < c.imageH; ++row) {
    for (int64_t col = 0; col < c.imageW; ++col) {
      out.push_back(static_cast<float>(2 * (static_cast<double>(col) + 0.5) / static_cast<double>(c.imageW) - 1));
      out.push_back(static_cast<float>(2 * (static_cast<double>(row) + 0.5) / static_cast<double>(c.imageH) - 1));
    }
  }
  return out;
}

inline tg::TrainingSpec<NerfTiny> nerfTinySpec(const NerfTiny& model, const NerfTinyConfig& c) {
  return {.model = model,
          .loss = nerfTinyLoss,
          .inputs = {{"coords", {{c.batch, 2}}}, {"rgb", {{c.batch, 3}}}, {"freqs", {{c.freqs}}}},
          .optimizer = tg::Adam{{}, c.lr},
          .seed = c.seed};
}

}  // namespace tg_models
