// samples/transformer, ported line by line from upstream's sample.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cmath>
#include <vector>

namespace tg_models {

// samples/transformer ("learns addition"): token + position embeddings, pre-norm blocks of
// causal multi-head attention (no biases) and a ReLU MLP, tied output embedding; AdamW with a
// linear LR schedule and clipping. Upstream's sizes are the defaults.
struct TransformerConfig {
  int64_t vocab = 12, d = 64, layers = 3, heads = 4, seqLen = 9, batch = 128, resultDigits = 3;
  // The sample captures every layer's attention and residual stream (read back each step for its
  // pictures); benchmarks that compare with a model reading back only the loss turn this off.
  bool captures = true;
  int64_t t() const { return seqLen - 1; }
};

struct Attention : tg::Module {
  Attention(tg::Module& parent, const std::string& name, const TransformerConfig& c)
      : tg::Module(parent, name),
        q(*this, "q", c.d, c.d, {.bias = false}),
        k(*this, "k", c.d, c.d, {.bias = false}),
        v(*this, "v", c.d, c.d, {.bias = false}),
        o(*this, "o", c.d, c.d, {.bias = false}),
        cfg(c) {}
  tg::Linear q, k, v, o;
  TransformerConfig cfg;
  tg::Tensor fwd(const tg::Tensor& x, size_t layer) const {
    const tg::Tensor qh = tg::splitHeads(q.fwd(x), cfg.heads);
    const tg::Tensor kh = tg::splitHeads(k.fwd(x), cfg.heads);
    const tg::Tensor vh = tg::splitHeads(v.fwd(x), cfg.heads);
    const double scale = 1.0 / std::sqrt(static_cast<double>(cfg.d / cfg.heads));
    const tg::Tensor scores = tg::mul(tg::matmul(qh, tg::swapAxes(kh, -1, -2)), scale);
    const tg::Tensor probs = tg::softmaxCausal(scores);
    const tg::Tensor attn = cfg.captures ? tg::capture("attn." + std::to_string(layer), probs) : probs;
    return o.fwd(tg::mergeHeads(tg::matmul(attn, vh)));
  }
};

struct Mlp : tg::Module {
  Mlp(tg::Module& parent, const std::string& name, const TransformerConfig& c)
      : tg::Module(parent, name),
        up(*this, "up", c.d, 4 * c.d),
        down(*this, "down", 4 * c.d, c.d) {}
  tg::Linear up, down;
  tg::Tensor fwd(const tg::Tensor& x) const { return down.fwd(tg::relu(up.fwd(x))); }
};

struct Block : tg::Module {
  Block(tg::Module& parent, const std::string& name, const TransformerConfig& c)
      : tg::Module(parent, name),
        ln1(*this, "ln1", c.d),
        attn(*this, "attn", c),
        ln2(*this, "ln2", c.d),
        mlp(*this, "mlp", c) {}
  tg::LayerNorm ln1;
  Attention attn;
  tg::LayerNorm ln2;
  Mlp mlp;
  tg::Tensor fwd(const tg::Tensor& x, size_t layer) const {
    const tg::Tensor x1 = tg::add(x, attn.fwd(ln1.fwd(x), layer));
    return tg::add(x1, mlp.fwd(ln2.fwd(x1)));
  }
};

struct Transformer : tg::Module {
  explicit Transformer(TransformerConfig c = {})
      : tok_emb(param("tok_emb", {c.vocab, c.d})),
        pos_emb(param("pos_emb", {c.seqLen, c.d})),
        layers(*this, "layers"),
        lnf(*this, "lnf", c.d),
        cfg(c) {
    for (int64_t i = 0; i < c.layers; ++i) layers.add(c);
  }
  tg::Tensor tok_emb, pos_emb;
  tg::ModuleList<Block> layers;
  tg::LayerNorm lnf;
  TransformerConfig cfg;
};

inline tg::Tensor transformerForward(const Transformer& p, const tg::Tensor& tokens) {
  // Separate statements: C++ does not order the evaluation of function arguments.
  const tg::Tensor tokE = tg::embedding(p.tok_emb, tokens);
  const tg::Tensor posE = tg::embedding(p.pos_emb, tg::arange(p.cfg.t()));
  tg::Tensor x = tg::add(tokE, posE);
  for (size_t i = 0; i < p.layers.size(); ++i) {
    if (p.cfg.captures) x = tg::capture("residual." + std::to_string(i), x);
    x = p.layers[i].fwd(x, i);
  }
  const tg::Tensor xn = p.lnf.fwd(x);
  return tg::matmul(xn, tg::swapAxes(p.tok_emb, -1, -2));
}

inline tg::Tensor transformerLoss(const Transformer& p, const tg::Inputs& in) {
  const tg::Tensor ce =
      tg::crossEntropy(transformerForward(p, in["tokens"]), in["targets"], {tg::Reduction::None});
  return tg::mul(tg::sum(tg::mul(ce, in["mask"])),
                 1.0 / static_cast<double>(p.cfg.batch * p.cfg.resultDigits));
}

// A batch of random tokens and targets, with the mask on the result digits.
struct TransformerBatch {
  std::vector<int32_t> tokens, targets;
  std::vector<float> mask;
};
inline TransformerBatch randomTransformerBatch(const TransformerConfig& c, tg::Mulberry32& rng) {
  TransformerBatch b;
  for (int64_t i = 0; i < c.batch * c.t(); ++i) {
    b.tokens.push_back(static_cast<int32_t>(rng.next() * static_cast<double>(c.vocab)));
    b.targets.push_back(static_cast<int32_t>(rng.next() * static_cast<double>(c.vocab)));
  }
  b.mask.assign(static_cast<size_t>(c.t()), 0.f);
  for (int64_t i = c.t() - c.resultDigits; i < c.t(); ++i) b.mask[static_cast<size_t>(i)] = 1.f;
  return b;
}

inline tg::TrainingSpec<Transformer> transformerSpec(const Transformer& model) {
  tg::AdamW opt;
  opt.lr = tg::lr::linear(0.005, 0.0005, 1500);
  opt.weightDecay = 0.01;
  opt.clipGradNorm = 1.0;
  const TransformerConfig& c = model.cfg;
  return {.model = model,
          .loss = transformerLoss,
          .inputs = {{"tokens", {{c.batch, c.t()}, tg::Dtype::I32}},
                     {"targets", {{c.batch, c.t()}, tg::Dtype::I32}},
                     {"mask", {{c.t()}}}},
          .optimizer = opt,
          .seed = 1};
}

}  // namespace tg_models
