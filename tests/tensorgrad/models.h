// Models shared by the tensorgrad tests and benchmarks, ported line by line from upstream's
// samples (mlp-sin, transformer).
#pragma once

#include <tensorgrad/tensorgrad.h>

namespace tg_models {

// samples/mlp-sin: 1 → 64 → 64 → 1, ReLU, MSE; Adam lr 0.005; B = 256.
struct MLP : tg::Module {
  tg::Linear l1{*this, "l1", 1, 64};
  tg::Linear l2{*this, "l2", 64, 64};
  tg::Linear l3{*this, "l3", 64, 1};
};

inline tg::Tensor mlpForward(const MLP& p, const tg::Tensor& x) {
  return p.l3.fwd(tg::relu(p.l2.fwd(tg::relu(p.l1.fwd(x)))));
}

inline tg::Tensor mlpLoss(const MLP& p, const tg::Inputs& in) {
  const tg::Tensor diff = tg::sub(mlpForward(p, in["x"]), in["y"]);
  return tg::mean(tg::mul(diff, diff));
}

inline tg::TrainingSpec<MLP> mlpSpec(const MLP& model, int64_t batch = 256) {
  return {.model = model,
          .loss = mlpLoss,
          .inputs = {{"x", {{batch, 1}}}, {"y", {{batch, 1}}}},
          .optimizer = tg::Adam{{}, 0.005},
          .seed = 42};
}

// samples/transformer: a causal decoder (pre-norm blocks, multi-head attention, GELU MLP).
struct Attention : tg::Module {
  Attention(tg::Module& parent, const std::string& name, int64_t d, int64_t heads)
      : tg::Module(parent, name), q(*this, "q", d, d), k(*this, "k", d, d), v(*this, "v", d, d),
        o(*this, "o", d, d), nHeads(heads) {}
  tg::Linear q, k, v, o;
  int64_t nHeads;
  tg::Tensor fwd(const tg::Tensor& x) const {
    const tg::Tensor qh = tg::splitHeads(q.fwd(x), nHeads);
    const tg::Tensor kh = tg::splitHeads(k.fwd(x), nHeads);
    const tg::Tensor vh = tg::splitHeads(v.fwd(x), nHeads);
    const double scale = 1.0 / std::sqrt(static_cast<double>(x.shape().back() / nHeads));
    const tg::Tensor scores = tg::mul(tg::matmul(qh, tg::swapAxes(kh, -1, -2)), scale);
    return o.fwd(tg::mergeHeads(tg::matmul(tg::softmaxCausal(scores), vh)));
  }
};

struct Block : tg::Module {
  Block(tg::Module& parent, const std::string& name, int64_t d, int64_t heads)
      : tg::Module(parent, name), ln1(*this, "ln1", d), attn(*this, "attn", d, heads), ln2(*this, "ln2", d),
        up(*this, "up", d, 4 * d), down(*this, "down", 4 * d, d) {}
  tg::LayerNorm ln1;
  Attention attn;
  tg::LayerNorm ln2;
  tg::Linear up, down;
  tg::Tensor fwd(const tg::Tensor& x) const {
    const tg::Tensor h = tg::add(x, attn.fwd(ln1.fwd(x)));
    return tg::add(h, down.fwd(tg::gelu(up.fwd(ln2.fwd(h)))));
  }
};

struct Transformer : tg::Module {
  Transformer(int64_t vocab, int64_t d, int64_t layers, int64_t heads, int64_t t)
      : tokEmb(*this, "tokEmb", vocab, d), posEmb(*this, "posEmb", t, d), blocks(*this, "layers"),
        lnF(*this, "lnF", d), head(*this, "head", d, vocab), seqLen(t) {
    for (int64_t i = 0; i < layers; ++i) blocks.add(d, heads);
  }
  tg::Embedding tokEmb, posEmb;
  tg::ModuleList<Block> blocks;
  tg::LayerNorm lnF;
  tg::Linear head;
  int64_t seqLen;
};

inline tg::Tensor transformerLoss(const Transformer& m, const tg::Inputs& in) {
  tg::Tensor h = tg::add(m.tokEmb.fwd(in["tokens"]), m.posEmb.fwd(tg::arange(m.seqLen)));
  for (size_t i = 0; i < m.blocks.size(); ++i) h = m.blocks[i].fwd(h);
  return tg::crossEntropy(m.head.fwd(m.lnF.fwd(h)), in["targets"]);
}

}  // namespace tg_models
