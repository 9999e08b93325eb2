// samples/vae: a variational autoencoder on MNIST.
//
// Encoder 784 → 256 → 256 (ReLU) → μ, log σ² (8 each); decoder 8 → 256 → 256 (ReLU) → 784 →
// sigmoid. Reparameterization z = μ + exp(½ log σ²) · ε with ε = randn drawn in the graph.
// Loss per image: squared reconstruction error summed over pixels, plus β · KL(q(z|x) ‖ N(0, 1)),
// both averaged over the batch. Adam lr 1e-3, gradient clipping at norm 1. Upstream passes no
// seed (compile draws one); VaeConfig::seed may fix it. main.ts attaches an encoder (x → μ) and a
// decoder (z → image), both with a parametric batch.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <optional>

namespace tg_models {

struct VaeConfig {
  int64_t inputDim = 28 * 28;
  int64_t latent = 8;
  int64_t hidden = 256;
  int64_t batch = 128;
  double beta = 1.0;
  double lr = 1e-3;
  std::optional<uint32_t> seed;  // none: a fresh random seed per compile, as upstream
};

struct Vae : tg::Module {
  explicit Vae(VaeConfig c = {})
      : enc1(*this, "enc1", c.inputDim, c.hidden),
        enc2(*this, "enc2", c.hidden, c.hidden),
        encMu(*this, "encMu", c.hidden, c.latent),
        encLogV(*this, "encLogV", c.hidden, c.latent),
        dec1(*this, "dec1", c.latent, c.hidden),
        dec2(*this, "dec2", c.hidden, c.hidden),
        decOut(*this, "decOut", c.hidden, c.inputDim),
        cfg(c) {}
  tg::Linear enc1, enc2, encMu, encLogV, dec1, dec2, decOut;
  VaeConfig cfg;
};

struct VaeEncoding {
  tg::Tensor mu, logVar;
};

// x [B, inputDim] → μ, log σ² [B, latent].
inline VaeEncoding vaeEncoder(const Vae& m, const tg::Tensor& x) {
  tg::Tensor h = tg::relu(m.enc1.fwd(x));
  h = tg::relu(m.enc2.fwd(h));
  tg::Tensor mu = m.encMu.fwd(h);  // μ before log σ², as upstream
  tg::Tensor logVar = m.encLogV.fwd(h);
  return {std::move(mu), std::move(logVar)};
}

// z [B, latent] → pixels [B, inputDim] in (0, 1).
inline tg::Tensor vaeDecoder(const Vae& m, const tg::Tensor& z) {
  tg::Tensor h = tg::relu(m.dec1.fwd(z));
  h = tg::relu(m.dec2.fwd(h));
  return tg::sigmoid(m.decOut.fwd(h));
}

// Input x [B, inputDim] f32 in [0, 1].
inline tg::Tensor vaeLoss(const Vae& m, const tg::Inputs& in) {
  const tg::Tensor& x = in["x"];
  const double b = static_cast<double>(x.shape()[0]);
  const VaeEncoding e = vaeEncoder(m, x);
  const tg::Tensor eps = tg::randn({x.shape()[0], m.cfg.latent});
  const tg::Tensor sigma = tg::exp(tg::mul(e.logVar, 0.5));
  const tg::Tensor z = tg::add(e.mu, tg::mul(sigma, eps));
  const tg::Tensor xHat = vaeDecoder(m, z);
  const tg::Tensor recon = tg::mul(tg::sum(tg::square(tg::sub(xHat, x))), 1 / b);
  // −½ (1 + log σ² − μ² − σ²), with upstream's order of ops.
  const tg::Tensor onePlus = tg::add(e.logVar, 1.0);
  const tg::Tensor muSq = tg::square(e.mu);
  const tg::Tensor diff = tg::sub(onePlus, muSq);
  const tg::Tensor var = tg::exp(e.logVar);
  const tg::Tensor klElem = tg::mul(tg::sub(diff, var), -0.5);
  const tg::Tensor kl = tg::mul(tg::sum(klElem), 1 / b);
  return tg::add(recon, tg::mul(kl, m.cfg.beta));
}

// main.ts's encode forward: x [B, inputDim] → μ [B, latent].
inline tg::Tensor vaeEncode(const Vae& m, const tg::Inputs& in) {
  return vaeEncoder(m, in["x"]).mu;
}

// main.ts's decode forward: z [B, latent] → pixels [B, inputDim].
inline tg::Tensor vaeDecode(const Vae& m, const tg::Inputs& in) {
  return vaeDecoder(m, in["z"]);
}

inline tg::InputDecls vaeEncodeInputs(const VaeConfig& c) {
  return {{"x", {{tg::null, c.inputDim}}}};
}
inline tg::InputDecls vaeDecodeInputs(const VaeConfig& c) {
  return {{"z", {{tg::null, c.latent}}}};
}

inline tg::TrainingSpec<Vae> vaeSpec(const Vae& model, const VaeConfig& c) {
  tg::Adam opt;
  opt.lr = c.lr;
  opt.clipGradNorm = 1.0;
  return {.model = model,
          .loss = vaeLoss,
          .inputs = {{"x", {{c.batch, c.inputDim}}}},
          .optimizer = opt,
          .seed = c.seed};
}

}  // namespace tg_models
