// samples/pokeformer: a tiny Llama-style decoder that invents Pokémon names. RMSNorm pre-norm
// blocks, rotary position embeddings (RoPE) on queries and keys, causal multi-head attention
// without biases, a ReLU MLP, and one token embedding used both as the input table and
// (transposed) as the output head. Tokens are 'a'..'z' = 0..25 and EOS = 26 (also the begin and
// padding token). The loss is the sum of per-token cross-entropy times a mask the host
// normalizes to sum to 1. The sampler draws the next tokens in the graph: categorical sampling of
// logits / temperature, with an i32 output. AdamW with a linear LR decay and gradient clipping.
// Upstream passes no seed (compile draws one); the config's seed may fix it.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace tg_models {

struct PokeformerConfig {
  int64_t vocab = 27;  // a-z + EOS
  int64_t eos = 26;
  int64_t t = 16;  // sequence length
  int64_t d = 64;
  int64_t layers = 2;
  int64_t heads = 4;
  int64_t batch = 32;
  int64_t batchInfer = 1;
  std::optional<uint32_t> seed;  // none: a fresh random seed per compile, as upstream
  int64_t dHead() const { return d / heads; }
  int64_t ffn() const { return 4 * d; }
};

struct PokeformerAttention : tg::Module {
  PokeformerAttention(tg::Module& parent, const std::string& name, const PokeformerConfig& c)
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
    const tg::Tensor qh = tg::splitHeads(q.fwd(x), heads);  // [B, H, T, D/H]
    const tg::Tensor kh = tg::splitHeads(k.fwd(x), heads);
    const tg::Tensor vh = tg::splitHeads(v.fwd(x), heads);
    const auto [qr, kr] = tg::rope(qh, kh);  // values are not rotated
    const tg::Tensor scores = tg::mul(tg::matmul(qr, tg::swapAxes(kr, -1, -2)), scale);
    return o.fwd(tg::mergeHeads(tg::matmul(tg::softmaxCausal(scores), vh)));
  }
};

struct PokeformerMlp : tg::Module {
  PokeformerMlp(tg::Module& parent, const std::string& name, const PokeformerConfig& c)
      : tg::Module(parent, name),
        up(*this, "up", c.d, c.ffn()),
        down(*this, "down", c.ffn(), c.d) {}
  tg::Linear up, down;
  tg::Tensor fwd(const tg::Tensor& x) const { return down.fwd(tg::relu(up.fwd(x))); }
};

struct PokeformerBlock : tg::Module {
  PokeformerBlock(tg::Module& parent, const std::string& name, const PokeformerConfig& c)
      : tg::Module(parent, name),
        n1(*this, "n1", c.d),
        attn(*this, "attn", c),
        n2(*this, "n2", c.d),
        mlp(*this, "mlp", c) {}
  tg::RMSNorm n1;
  PokeformerAttention attn;
  tg::RMSNorm n2;
  PokeformerMlp mlp;

  tg::Tensor fwd(const tg::Tensor& x) const {
    const tg::Tensor a = attn.fwd(n1.fwd(x));
    const tg::Tensor x1 = tg::add(x, a);
    return tg::add(x1, mlp.fwd(n2.fwd(x1)));
  }
};

struct Pokeformer : tg::Module {  // upstream's NameLM
  explicit Pokeformer(PokeformerConfig c = {})
      : tok_emb(param("tok_emb", {c.vocab, c.d})),
        layers(*this, "layers"),
        nf(*this, "nf", c.d),
        cfg(c) {
    for (int64_t i = 0; i < c.layers; ++i) layers.add(c);
  }
  tg::Tensor tok_emb;  // tied: input table and output head
  tg::ModuleList<PokeformerBlock> layers;
  tg::RMSNorm nf;
  PokeformerConfig cfg;
};

// tokens [B, t] i32 → next-token logits [B, t, vocab].
inline tg::Tensor pokeformerLogits(const Pokeformer& m, const tg::Tensor& tokens) {
  tg::Tensor x = tg::embedding(m.tok_emb, tokens);
  for (size_t i = 0; i < m.layers.size(); ++i) x = m.layers[i].fwd(x);
  const tg::Tensor xn = m.nf.fwd(x);
  return tg::matmul(xn, tg::swapAxes(m.tok_emb, -1, -2));
}

// Inputs tokens, targets (i32 [B, t]) and mask (f32 [B, t], summing to 1).
inline tg::Tensor pokeformerLoss(const Pokeformer& m, const tg::Inputs& in) {
  const tg::Tensor ce =
      tg::crossEntropy(pokeformerLogits(m, in["tokens"]), in["targets"], {tg::Reduction::None});
  return tg::sum(tg::mul(ce, in["mask"]));
}

// Inputs tokens (i32 [B, t]) and temperature (f32 [1]) → a sampled next token per position
// (i32 [B, t]); compile with output = I32.
inline tg::Tensor pokeformerSample(const Pokeformer& m, const tg::Inputs& in) {
  const tg::Tensor logits = pokeformerLogits(m, in["tokens"]);
  return tg::categorical(tg::div(logits, in["temperature"]));
}

inline tg::InputDecls pokeformerInputs(const PokeformerConfig& c) {
  return {{"tokens", {{c.batch, c.t}, tg::Dtype::I32}},
          {"targets", {{c.batch, c.t}, tg::Dtype::I32}},
          {"mask", {{c.batch, c.t}}}};
}

// Upstream's training spec; `c` is the config `model` was built from (it sizes the inputs and
// may fix the seed).
inline tg::TrainingSpec<Pokeformer> pokeformerSpec(const Pokeformer& model,
                                                   const PokeformerConfig& c) {
  tg::AdamW opt;
  opt.lr = tg::lr::linear(0.005, 0.0005, 1500);
  opt.weightDecay = 0.01;
  opt.clipGradNorm = 1.0;
  return {.model = model,
          .loss = pokeformerLoss,
          .inputs = pokeformerInputs(c),
          .optimizer = opt,
          .seed = c.seed};
}

// The forward upstream's main.ts attaches: in-graph sampling for batchInfer sequences.
inline tg::AttachSpec<Pokeformer> pokeformerSampler(const PokeformerConfig& c) {
  return {.forward = pokeformerSample,
          .inputs = {{"tokens", {{c.batchInfer, c.t}, tg::Dtype::I32}}, {"temperature", {{1}}}},
          .output = tg::Dtype::I32};
}

}  // namespace tg_models
