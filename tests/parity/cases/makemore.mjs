// samples/makemore at small sizes: d 32, 2 heads of 16, 2 layers, T 16, batch 16 (B·T = 256
// rows, so the bias, embedding and tied-head gradients keep upstream's ≥256-row reductions).
// AdamW (linear 0.005 → 0.0005 over 1500, decay 0.01, clip 1), seed 42. Feeds are random names
// encoded as the sample encodes them. Forwards: the sampler (one partial name) and the
// validation loss, as main.ts attaches them.

export default (tg) => {
  const {
    Module, Linear, LayerNorm, crossEntropy, lr,
    add, mul, sum, swapAxes, relu, matmul, embedding, arange, softmaxCausal, splitHeads, mergeHeads,
  } = tg;
  const VOCAB = 27, D = 32, N_LAYERS = 2, N_HEADS = 2, SEQ_LEN = 17, T = SEQ_LEN - 1, B = 16;
  const SCALE_QK = 1 / Math.sqrt(D / N_HEADS);

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

  const attentionFwd = (p, x) => {
    const q = splitHeads(p.q.fwd(x), N_HEADS);
    const k = splitHeads(p.k.fwd(x), N_HEADS);
    const v = splitHeads(p.v.fwd(x), N_HEADS);
    const scores = mul(matmul(q, swapAxes(k, -1, -2)), SCALE_QK);
    return p.o.fwd(mergeHeads(matmul(softmaxCausal(scores), v)));
  };
  const mlpFwd = (p, x) => p.down.fwd(relu(p.up.fwd(x)));
  const blockFwd = (p, x) => {
    const a = attentionFwd(p.attn, p.ln1.fwd(x));
    const x1 = add(x, a);
    return add(x1, mlpFwd(p.mlp, p.ln2.fwd(x1)));
  };
  const modelFwd = (p, tokens) => {
    const tokE = embedding(p.tok_emb, tokens);
    const posE = embedding(p.pos_emb, arange(T));
    let x = add(tokE, posE);
    for (let i = 0; i < p.layers.length; i++) x = blockFwd(p.layers[i], x);
    return matmul(p.lnf.fwd(x), swapAxes(p.tok_emb, -1, -2));
  };
  const lossFn = (p, { tokens, targets, mask }) =>
    sum(mul(crossEntropy(modelFwd(p, tokens), targets, { reduction: 'none' }), mask));

  // makeBatch of main.ts on random names: 2–12 letters, full = '.' + name + '.' + padding,
  // tokens = full[0, T), targets = full[1, T], mask 1 on positions 0..min(len, T−1), normalized.
  const PAD = 0;
  const nameBatch = (rng) => {
    const tokens = new Int32Array(B * T), targets = new Int32Array(B * T), mask = new Float32Array(B * T);
    const full = new Int32Array(SEQ_LEN);
    let valid = 0;
    for (let bi = 0; bi < B; bi++) {
      const len = 2 + Math.floor(rng() * 11);
      full.fill(PAD);
      for (let i = 0; i < len; i++) full[i + 1] = 1 + Math.floor(rng() * 26);
      const lastValid = Math.min(len, T - 1);
      for (let t = 0; t < T; t++) {
        tokens[bi * T + t] = full[t];
        targets[bi * T + t] = full[t + 1];
        if (t <= lastValid) { mask[bi * T + t] = 1; valid++; }
      }
    }
    const inv = 1 / valid;
    for (let i = 0; i < mask.length; i++) mask[i] = mask[i] * inv;
    return { tokens, targets, mask };
  };
  // The sampler's input: '.' then 0–7 letters generated so far, '.'-padded.
  const partialName = (rng) => {
    const tokens = new Int32Array(T);
    const len = Math.floor(rng() * 8);
    for (let i = 0; i < len; i++) tokens[i + 1] = 1 + Math.floor(rng() * 26);
    return { tokens };
  };

  const inputs = {
    tokens: { shape: [B, T], dtype: 'i32' },
    targets: { shape: [B, T], dtype: 'i32' },
    mask: [B, T],
  };
  return {
    name: 'makemore',
    feedSeed: 11,
    steps: 20,
    training: {
      model: new Transformer(),
      loss: lossFn,
      inputs,
      optimizer: {
        kind: 'adamw', lr: lr.linear({ peak: 0.005, final: 0.0005, steps: 1500 }),
        weightDecay: 0.01, clipGradNorm: 1.0,
      },
      seed: 42,
    },
    feed: nameBatch,
    forwards: [
      { name: 'sample',
        spec: { forward: (p, { tokens }) => modelFwd(p, tokens), inputs: { tokens: { shape: [1, T], dtype: 'i32' } } },
        feed: partialName },
      { name: 'valLoss', spec: { forward: lossFn, inputs }, feed: nameBatch },
    ],
  };
};
