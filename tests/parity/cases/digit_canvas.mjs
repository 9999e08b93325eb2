// samples/digit-canvas at small sizes: 784 → 16 → 10 with dropout 0.1 after the ReLU in training,
// B = 16 (so the first layer's matmuls are tile-aligned, as upstream's 64 × 784 × 64);
// cross-entropy, AdamW 1e-3 (decay 0.01, clip 1). Pixels are sparse like MNIST's (and like a
// drawn canvas). The predictor (softmax, no dropout, parametric batch) is attached twice and run
// as main.ts runs it: B = 1 for the canvas and B = 32 for the accuracy probe.
import { labels, pixels } from './feeds.mjs';

export default (tg) => {
  const { Module, Linear, crossEntropy, relu, dropout, softmax } = tg;
  const IN = 784, H = 16, K = 10, B = 16, EVAL = 32, DROP_P = 0.1;
  class MLP extends Module {
    layers;
    constructor(sizes) {
      super();
      this.layers = [];
      for (let i = 0; i < sizes.length - 1; i++) this.layers.push(new Linear(sizes[i], sizes[i + 1]));
    }
  }
  const net = (m, x, applyDropout) => {
    let h = x;
    for (let i = 0; i < m.layers.length; i++) {
      h = m.layers[i].fwd(h);
      if (i < m.layers.length - 1) {
        h = relu(h);
        if (applyDropout) h = dropout(h, DROP_P);
      }
    }
    return h;
  };
  const predict = { forward: (m, { x }) => softmax(net(m, x, false)), inputs: { x: [null, IN] } };
  return {
    name: 'digit_canvas',
    feedSeed: 13,
    steps: 20,
    training: {
      model: new MLP([IN, H, K]),
      loss: (m, { x, y }) => crossEntropy(net(m, x, true), y),
      inputs: { x: [B, IN], y: { shape: [B], dtype: 'i32' } },
      optimizer: { kind: 'adamw', lr: 1e-3, weightDecay: 0.01, clipGradNorm: 1.0 },
      seed: 7,
    },
    feed: (rng) => {
      const x = pixels(rng, B * IN);
      return { x, y: labels(rng, B, K) };
    },
    forwards: [
      { name: 'predict_canvas', spec: predict, feed: (rng) => ({ x: pixels(rng, IN) }) },
      { name: 'predict_eval', spec: predict, feed: (rng) => ({ x: pixels(rng, EVAL * IN) }) },
    ],
  };
};
