// samples/pokeformer at small sizes: d 32, 2 heads of 16 (RoPE rotates pairs of 16), 2 layers,
// T 16, batch 16 (B·T = 256 rows, so the bias, embedding and tied-head gradients keep
// upstream's ≥256-row reductions). RMSNorm, RoPE, tied embedding; AdamW (linear 0.005 → 0.0005
// over 1500, decay 0.01, clip 1), seed 42. Feeds are random names encoded as the sample encodes
// them. Forward: the in-graph sampler (categorical over logits / temperature, i32 output) on one
// partial name at temperature 0.8, as main.ts attaches and runs it.

export default (tg) => {
  const {
    Module, Linear, RMSNorm, crossEntropy, lr,
    add, mul, sum, div, matmul, swapAxes, embedding, splitHeads, mergeHeads, rope, softmaxCausal,
    categorical, relu,
  } = tg;
  const VOCAB = 27, EOS = 26, T = 16, D = 32, N_LAYERS = 2, N_HEADS = 2, FFN = 4 * D, B = 16, B_INFER = 1;
  const SCALE_QK = 1 / Math.sqrt(D / N_HEADS);

  class Attention extends Module {
    q = new Linear(D, D, { bias: false });
    k = new Linear(D, D, { bias: false });
    v = new Linear(D, D, { bias: false });
    o = new Linear(D, D, { bias: false });
  }
  class MLP extends Module {
    up = new Linear(D, FFN);
    down = new Linear(FFN, D);
  }
  class Block extends Module {
    n1 = new RMSNorm(D);
    attn = new Attention();
    n2 = new RMSNorm(D);
    mlp = new MLP();
  }
  class NameLM extends Module {
    constructor() {
      super();
      this.tok_emb = this.param([VOCAB, D]);
      this.layers = [];
      for (let i = 0; i < N_LAYERS; i++) this.layers.push(new Block());
      this.nf = new RMSNorm(D);
    }
  }

  const attnFwd = (p, x) => {
    const q = splitHeads(p.q.fwd(x), N_HEADS);
    const k = splitHeads(p.k.fwd(x), N_HEADS);
    const v = splitHeads(p.v.fwd(x), N_HEADS);
    const [qr, kr] = rope(q, k);
    const scores = mul(matmul(qr, swapAxes(kr, -1, -2)), SCALE_QK);
    return p.o.fwd(mergeHeads(matmul(softmaxCausal(scores), v)));
  };
  const mlpFwd = (p, x) => p.down.fwd(relu(p.up.fwd(x)));
  const blockFwd = (p, x) => {
    const a = attnFwd(p.attn, p.n1.fwd(x));
    const x1 = add(x, a);
    return add(x1, mlpFwd(p.mlp, p.n2.fwd(x1)));
  };
  const logitsFwd = (m, tokens) => {
    let x = embedding(m.tok_emb, tokens);
    for (const block of m.layers) x = blockFwd(block, x);
    const xn = m.nf.fwd(x);
    return matmul(xn, swapAxes(m.tok_emb, -1, -2));
  };
  const lossFn = (m, { tokens, targets, mask }) => {
    const ce = crossEntropy(logitsFwd(m, tokens), targets, { reduction: 'none' });
    return sum(mul(ce, mask));
  };
  const predictFn = (m, { tokens, temperature }) => {
    const logits = logitsFwd(m, tokens);
    return categorical(div(logits, temperature));
  };

  // makeBatch of main.ts on random names of 2..T−2 letters ('a'..'z' = 0..25): EOS, the name,
  // then EOS padding; mask 1 on the first min(len + 1, T) positions, normalized to sum 1.
  const nameBatch = (rng) => {
    const tokens = new Int32Array(B * T), targets = new Int32Array(B * T), mask = new Float32Array(B * T);
    let totalValid = 0;
    for (let i = 0; i < B; i++) {
      const len = 2 + Math.floor(rng() * (T - 3));
      const seq = [EOS];
      for (let c = 0; c < len; c++) seq.push(Math.floor(rng() * 26));
      while (seq.length < T + 1) seq.push(EOS);
      const validCount = Math.min(len + 1, T);
      for (let t = 0; t < T; t++) {
        tokens[i * T + t] = seq[t];
        targets[i * T + t] = seq[t + 1];
        if (t < validCount) { mask[i * T + t] = 1; totalValid++; }
      }
    }
    const inv = 1 / totalValid;
    for (let i = 0; i < mask.length; i++) mask[i] = mask[i] * inv;
    return { tokens, targets, mask };
  };
  // sampleName's input: EOS, 0–7 letters sampled so far, EOS fill; temperature 0.8.
  const partialName = (rng) => {
    const tokens = new Int32Array(B_INFER * T).fill(EOS);
    const len = Math.floor(rng() * 8);
    for (let i = 0; i < len; i++) tokens[i + 1] = Math.floor(rng() * 26);
    return { tokens, temperature: new Float32Array([0.8]) };
  };

  return {
    name: 'pokeformer',
    feedSeed: 12,
    steps: 20,
    training: {
      model: new NameLM(),
      loss: lossFn,
      inputs: {
        tokens: { shape: [B, T], dtype: 'i32' },
        targets: { shape: [B, T], dtype: 'i32' },
        mask: [B, T],
      },
      optimizer: {
        kind: 'adamw', lr: lr.linear({ peak: 0.005, final: 0.0005, steps: 1500 }),
        weightDecay: 0.01, clipGradNorm: 1.0,
      },
      seed: 42,
    },
    feed: nameBatch,
    forwards: [
      { name: 'sample',
        spec: {
          forward: predictFn,
          inputs: { tokens: { shape: [B_INFER, T], dtype: 'i32' }, temperature: { shape: [1], dtype: 'f32' } },
          output: 'i32',
        },
        feed: partialName },
    ],
  };
};
