// samples/flow-matching-tiny at small sizes: 16×16 images, 10 time buckets, conv channels 16,
// embedding 16, B = 16 (tProj's 16 × 16 × 16 matmul stays tile-aligned, as upstream's
// 64 × 32 × 32); Adam 2e-4, clip 1; x_1 from in-graph randn. Reductions of ≥ 256 rows as at full
// size: the conv weight/bias gradients (B·H·W = 4096), the time feature's broadcast gradient
// (H·W = 256 per [b, c]) and the loss mean (4096). Feeds as main.ts: sparse MNIST-like x_0,
// t uniform in 1..T, the constant table t / T. The predictor is attached as main.ts does (one
// image, static shape) and run on a noise image (sum of 12 uniforms − 6) at a random bucket.
import { pixels, gauss } from './feeds.mjs';

export default (tg) => {
  const { Module, Linear, Embedding, Conv2d, add, mul, sub, mean, reshape, relu, randn, takeAlongAxis, square } = tg;
  const IMG = 16, T = 10, B = 16, C = 16, E = 16;
  class TinyFlow extends Module {
    tEmb = new Embedding(T + 1, E);
    tProj = new Linear(E, C);
    conv1 = new Conv2d(1, C, 3, { padding: 1 });
    conv2 = new Conv2d(C, C, 3, { padding: 1 });
    conv3 = new Conv2d(C, C, 3, { padding: 1 });
    conv4 = new Conv2d(C, 1, 3, { padding: 1 });
  }
  const velocity = (m, x_t, t) => {
    const b = x_t.shape[0];
    const tFeat = reshape(m.tProj.fwd(m.tEmb.fwd(t)), [b, C, 1, 1]);
    let h = relu(m.conv1.fwd(x_t));
    h = add(h, tFeat);
    h = relu(m.conv2.fwd(h));
    h = relu(m.conv3.fwd(h));
    return m.conv4.fwd(h);
  };
  const loss = (m, { x_0, t, tNorm_table }) => {
    const b = x_0.shape[0];
    const x_1 = randn([b, 1, IMG, IMG]);
    const tNorm = reshape(takeAlongAxis(tNorm_table, t, 0), [b, 1, 1, 1]);
    const v_target = sub(x_1, x_0);
    const x_t = add(x_0, mul(tNorm, v_target));
    return mean(square(sub(velocity(m, x_t, t), v_target)));
  };
  const tNormTable = new Float32Array(T + 1);
  for (let t = 1; t <= T; t++) tNormTable[t] = t / T;
  const buckets = (rng, n) => {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = 1 + Math.floor(rng() * T);
    return out;
  };
  return {
    name: 'flow_matching_tiny',
    feedSeed: 14,
    steps: 20,
    training: {
      model: new TinyFlow(),
      loss,
      inputs: {
        x_0: [B, 1, IMG, IMG],
        t: { shape: [B], dtype: 'i32' },
        tNorm_table: [T + 1],
      },
      optimizer: { kind: 'adam', lr: 2e-4, clipGradNorm: 1.0 },
      seed: 8,
    },
    feed: (rng) => {
      const x_0 = pixels(rng, B * IMG * IMG);
      const t = buckets(rng, B);
      return { x_0, t, tNorm_table: tNormTable };
    },
    forwards: [
      { name: 'predict',
        spec: { forward: (m, { x_t, t }) => velocity(m, x_t, t),
                inputs: { x_t: [1, 1, IMG, IMG], t: { shape: [1], dtype: 'i32' } } },
        feed: (rng) => {
          const x_t = gauss(rng, IMG * IMG);
          return { x_t, t: buckets(rng, 1) };
        } },
    ],
  };
};
