// samples/transformer ("learns addition") at small sizes: d = 32, 2 layers of 2 heads, batch 16
// (vocab 12, 9-token sequences, loss on the 3 result digits), AdamW with the sample's linear LR
// schedule, weight decay and clipping; seed 1 as tests/tensorgrad/models.h's transformerSpec.
// Random tokens and targets instead of addition problems; the mask is the sample's RESULT_MASK.
// The attached forward is the sample's B = 1 inference graph.
import { labels } from './feeds.mjs';

export default (tg) => {
  const {
    Module, lr, Linear, LayerNorm, crossEntropy, capture,
    add, mul, sum, swapAxes, relu, matmul, embedding, arange,
    softmaxCausal, splitHeads, mergeHeads,
  } = tg;
  const VOCAB = 12, D = 32, N_LAYERS = 2, N_HEADS = 2, SEQ_LEN = 9, B = 16, N_RESULT_DIGITS = 3;
  const T = SEQ_LEN - 1, RESULT_START = 6, D_HEAD = D / N_HEADS;
  const SCALE_QK = 1 / Math.sqrt(D_HEAD);

  class Attention extends Module {
    q = new Linear(D, D, { bias: false });
    k = new Linear(D, D, { bias: false });
    v = new Linear(D, D, { bias: false });
    o = new Linear(D, D, { bias: false });
  }
  class MLP extends Module {
    up = new Linear(D, 4 * D);
    down = new Linear(4 * D, D);
  }
  class Block extends Module {
    ln1 = new LayerNorm(D);
    attn = new Attention();
    ln2 = new LayerNorm(D);
    mlp = new MLP();
  }
  class Transformer extends Module {
    constructor() {
      super();
      this.tok_emb = this.param([VOCAB, D]);
      this.pos_emb = this.param([SEQ_LEN, D]);
      this.layers = [];
      for (let i = 0; i < N_LAYERS; i++) this.layers.push(new Block());
      this.lnf = new LayerNorm(D);
    }
  }

  const attentionFwd = (p, x, layerIdx) => {
    const q = splitHeads(p.q.fwd(x), N_HEADS);
    const k = splitHeads(p.k.fwd(x), N_HEADS);
    const v = splitHeads(p.v.fwd(x), N_HEADS);
    const scores = mul(matmul(q, swapAxes(k, -1, -2)), SCALE_QK);
    const attn = capture(`attn.${layerIdx}`, softmaxCausal(scores));
    return p.o.fwd(mergeHeads(matmul(attn, v)));
  };
  const mlpFwd = (p, x) => p.down.fwd(relu(p.up.fwd(x)));
  const blockFwd = (p, x, layerIdx) => {
    const a = attentionFwd(p.attn, p.ln1.fwd(x), layerIdx);
    const x1 = add(x, a);
    return add(x1, mlpFwd(p.mlp, p.ln2.fwd(x1)));
  };
  const modelFwd = (p, tokens) => {
    const tokE = embedding(p.tok_emb, tokens);
    const posE = embedding(p.pos_emb, arange(T));
    let x = add(tokE, posE);
    for (let i = 0; i < p.layers.length; i++) {
      x = capture(`residual.${i}`, x);
      x = blockFwd(p.layers[i], x, i);
    }
    const xn = p.lnf.fwd(x);
    return matmul(xn, swapAxes(p.tok_emb, -1, -2));
  };
  const lossFn = (p, { tokens, targets, mask }) => {
    const ce = crossEntropy(modelFwd(p, tokens), targets, { reduction: 'none' });
    return mul(sum(mul(ce, mask)), 1 / (B * N_RESULT_DIGITS));
  };

  const RESULT_MASK = new Float32Array(T);
  for (let t = RESULT_START - 1; t < T; t++) RESULT_MASK[t] = 1;

  return {
    name: 'transformer',
    feedSeed: 11,
    steps: 20,
    training: {
      model: new Transformer(),
      loss: lossFn,
      inputs: {
        tokens: { shape: [B, T], dtype: 'i32' },
        targets: { shape: [B, T], dtype: 'i32' },
        mask: [T],
      },
      optimizer: {
        kind: 'adamw', lr: lr.linear({ peak: 0.005, final: 0.0005, steps: 1500 }),
        weightDecay: 0.01, clipGradNorm: 1.0,
      },
      seed: 1,
    },
    feed: (rng) => ({
      tokens: labels(rng, B * T, VOCAB),
      targets: labels(rng, B * T, VOCAB),
      mask: RESULT_MASK.slice(),
    }),
    forwards: [
      { name: 'predict',
        spec: { forward: (p, { tokens }) => modelFwd(p, tokens),
                inputs: { tokens: { shape: [1, T], dtype: 'i32' } } },
        feed: (rng) => ({ tokens: labels(rng, T, VOCAB) }) },
    ],
  };
};
