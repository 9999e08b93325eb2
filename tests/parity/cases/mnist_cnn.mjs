// samples/mnist-cnn at small sizes: 16×16 images, conv 1→4→8 (3×3, pad 1), two 2×2 max-pools,
// 128 → 16 → 10 MLP head; cross-entropy, AdamW 1e-3 (decay 0.01, clip 1). B = 16 keeps fc1's
// matmuls tile-aligned like upstream's 64 × 1568 × 64; the conv weight and bias gradients reduce
// over B·H·W = 4096 and 1024 rows (workgroup-tree kernels, as at full size). Pixels are sparse
// like MNIST's. The attached predictor is main.ts's accuracy probe (static batch, here 32).
// Divergence kept on both sides: the flatten uses the input's batch (upstream's [BATCH_SIZE, -1]
// would reject the probe's batch).

import { labels, pixels } from './feeds.mjs';

export default (tg) => {
  const { Module, Linear, Conv2d, crossEntropy, relu, reshape, maxPool2d } = tg;
  const B = 16, EVAL = 32, S = 16, K = 10, C1 = 4, C2 = 8, H = 16;
  class CNN extends Module {
    conv1 = new Conv2d(1, C1, 3, { padding: 1 });
    conv2 = new Conv2d(C1, C2, 3, { padding: 1 });
    fc1 = new Linear(C2 * (S / 4) * (S / 4), H);
    fc2 = new Linear(H, K);
  }
  const logits = (m, x) => {
    let h = relu(m.conv1.fwd(x));
    h = maxPool2d(h, 2);
    h = relu(m.conv2.fwd(h));
    h = maxPool2d(h, 2);
    h = reshape(h, [x.shape[0], -1]);
    h = relu(m.fc1.fwd(h));
    return m.fc2.fwd(h);
  };
  return {
    name: 'mnist_cnn',
    feedSeed: 11,
    steps: 20,
    training: {
      model: new CNN(),
      loss: (m, { x, y }) => crossEntropy(logits(m, x), y),
      inputs: { x: [B, 1, S, S], y: { shape: [B], dtype: 'i32' } },
      optimizer: { kind: 'adamw', lr: 1e-3, weightDecay: 0.01, clipGradNorm: 1.0 },
      seed: 5,
    },
    feed: (rng) => {
      const x = pixels(rng, B * S * S);
      return { x, y: labels(rng, B, K) };
    },
    forwards: [
      { name: 'predict', spec: { forward: (m, { x }) => logits(m, x), inputs: { x: [EVAL, 1, S, S] } },
        feed: (rng) => ({ x: pixels(rng, EVAL * S * S) }) },
    ],
  };
};
