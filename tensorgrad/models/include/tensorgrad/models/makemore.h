// samples/makemore: a character-level name generator (Karpathy's makemore). A pre-LayerNorm
// decoder transformer: token and learned position embeddings, causal multi-head attention without
// biases, a ReLU MLP, and the token embedding reused (transposed) as the output head. Tokens are
// '.' = 0 (begin, end and padding) and 'a'..'z' = 1..26. The loss is the sum of per-token
// cross-entropy times a mask that the host normalizes to sum to 1 over the predicted positions.
// AdamW with a linear LR decay and gradient clipping. Upstream passes no seed (compile draws
// one); the config's seed may fix it.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace tg_models {

struct MakemoreConfig {
  int64_t vocab = 27;
  int64_t d = 64;
  int64_t layers = 3;
  int64_t heads = 4;
  int64_t seqLen = 17;  // '.' + name + '.', padded with '.'
  int64_t batch = 32;
  std::optional<uint32_t> seed;             // none: a fresh random seed per compile, as upstream
  int64_t t() const { return seqLen - 1; }  // positions the model sees
  int64_t dHead() const { return d / heads; }
};

struct MakemoreAttention : tg::Module {
  MakemoreAttention(tg::Module& parent, const std::string& name, const MakemoreConfig& c)
      : tg::Module(parent, name),
        q(*this, "q", c.d, c.d, {.bias = false}),
        k(*this, "k", c.d, c.d, {.bias = false}),
        v(*this, "v", c.d, c.d, {.bias = false}),
        o(*this, "o", c.d, c.d, {.bias = false}),
        heads(c.heads),
        scale(1.0 / std::sqrt(static_cast<double>(c.dHead()))) {}
  tg::Linear q, k, v, o;
  int64_t heads;
  double scale;

  tg::Tensor fwd(const tg::Tensor& x) const {
    const tg::Tensor qh = tg::splitHeads(q.fwd(x), heads);
    const tg::Tensor kh = tg::splitHeads(k.fwd(x), heads);
    const tg::Tensor vh = tg::splitHeads(v.fwd(x), heads);
    const tg::Tensor scores = tg::mul(tg::matmul(qh, tg::swapAxes(kh, -1, -2)), scale);
    return o.fwd(tg::mergeHeads(tg::matmul(tg::softmaxCausal(scores), vh)));
  }
};

struct MakemoreMlp : tg::Module {
  MakemoreMlp(tg::Module& parent, const std::string& name, const MakemoreConfig& c)
      : tg::Module(parent, name),
        up(*this, "up", c.d, 4 * c.d),
        down(*this, "down", 4 * c.d, c.d) {}
  tg::Linear up, down;
  tg::Tensor fwd(const tg::Tensor& x) const { return down.fwd(tg::relu(up.fwd(x))); }
};

struct MakemoreBlock : tg::Module {
  MakemoreBlock(tg::Module& parent, const std::string& name, const MakemoreConfig& c)
      : tg::Module(parent, name),
        ln1(*this, "ln1", c.d),
        attn(*this, "attn", c),
        ln2(*this, "ln2", c.d),
        mlp(*this, "mlp", c) {}
  tg::LayerNorm ln1;
  MakemoreAttention attn;
  tg::LayerNorm ln2;
  MakemoreMlp mlp;

  tg::Tensor fwd(const tg::Tensor& x) const {
    const tg::Tensor a = attn.fwd(ln1.fwd(x));
    const tg::Tensor x1 = tg::add(x, a);
    return tg::add(x1, mlp.fwd(ln2.fwd(x1)));
  }
};

struct Makemore : tg::Module {
  explicit Makemore(MakemoreConfig c = {})
      : tok_emb(param("tok_emb", {c.vocab, c.d})),
        pos_emb(param("pos_emb", {c.seqLen, c.d})),
        layers(*this, "layers"),
        lnf(*this, "lnf", c.d),
        cfg(c) {
    for (int64_t i = 0; i < c.layers; ++i) layers.add(c);
  }
  tg::Tensor tok_emb, pos_emb;
  tg::ModuleList<MakemoreBlock> layers;
  tg::LayerNorm lnf;
  MakemoreConfig cfg;
};

// tokens [B, t()] i32 → next-token logits [B, t(), vocab].
inline tg::Tensor makemoreLogits(const Makemore& m, const tg::Tensor& tokens) {
  // One statement per op-producing argument: C++ leaves argument evaluation order open, and op
  // order must be upstream's.
  const tg::Tensor tokE = tg::embedding(m.tok_emb, tokens);
  const tg::Tensor posE = tg::embedding(m.pos_emb, tg::arange(m.cfg.t()));
  tg::Tensor x = tg::add(tokE, posE);
  for (size_t i = 0; i < m.layers.size(); ++i) x = m.layers[i].fwd(x);
  const tg::Tensor xn = m.lnf.fwd(x);
  return tg::matmul(xn, tg::swapAxes(m.tok_emb, -1, -2));
}

// Inputs tokens, targets (i32 [B, t()]) and mask (f32 [B, t()], summing to 1).
inline tg::Tensor makemoreLoss(const Makemore& m, const tg::Inputs& in) {
  const tg::Tensor ce =
      tg::crossEntropy(makemoreLogits(m, in["tokens"]), in["targets"], {tg::Reduction::None});
  return tg::sum(tg::mul(ce, in["mask"]));
}

// The sampler's forward: logits for `tokens` (upstream samples on the host from one row).
inline tg::Tensor makemorePredict(const Makemore& m, const tg::Inputs& in) {
  return makemoreLogits(m, in["tokens"]);
}

inline tg::InputDecls makemoreInputs(const MakemoreConfig& c) {
  return {{"tokens", {{c.batch, c.t()}, tg::Dtype::I32}},
          {"targets", {{c.batch, c.t()}, tg::Dtype::I32}},
          {"mask", {{c.batch, c.t()}}}};
}

// Upstream's training spec; `c` is the config `model` was built from (it sizes the inputs and
// may fix the seed).
inline tg::TrainingSpec<Makemore> makemoreSpec(const Makemore& model, const MakemoreConfig& c) {
  tg::AdamW opt;
  opt.lr = tg::lr::linear(0.005, 0.0005, 1500);
  opt.weightDecay = 0.01;
  opt.clipGradNorm = 1.0;
  return {.model = model,
          .loss = makemoreLoss,
          .inputs = makemoreInputs(c),
          .optimizer = opt,
          .seed = c.seed};
}

// The forwards upstream's main.ts attaches: the sampler (one sequence) and the validation loss
// (the training loss at the training batch shape).
inline tg::AttachSpec<Makemore> makemoreSampler(const MakemoreConfig& c) {
  return {.forward = makemorePredict, .inputs = {{"tokens", {{1, c.t()}, tg::Dtype::I32}}}};
}
inline tg::AttachSpec<Makemore> makemoreValLoss(const MakemoreConfig& c) {
  return {.forward = makemoreLoss, .inputs = makemoreInputs(c)};
}

}  // namespace tg_models
