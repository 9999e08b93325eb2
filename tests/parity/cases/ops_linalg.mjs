// Op coverage, matrices and convolution: matmul as a workgroup tree (K = 300, not a multiple of
// the 16×16 tile, few outputs), batched matmul tiled and one thread per output, a grouped strided
// padded conv whose weight gradient reduces only 9 rows (one thread per weight) and max pooling
// with stride 1 and padding. SGD with Nesterov momentum, weight decay and clipping.
import { uniform } from './feeds.mjs';

export default (tg) => {
  const { Module, add, mean, square, matmul, conv2d, maxPool2d, relu } = tg;
  class Net extends Module {
    W1 = this.param([300, 5]);
    B2 = this.param([2, 16, 16]);
    B3 = this.param([2, 5, 7]);
    Wc = this.param([4, 1, 3, 3], { init: tg.init.kaiming() });
  }
  return {
    name: 'ops_linalg',
    feedSeed: 22,
    steps: 3,
    training: {
      model: new Net(),
      loss: (m, { x, a, c, img }) => {
        const h1 = matmul(x, m.W1);
        const h2 = matmul(a, m.B2);
        const h3 = matmul(c, m.B3);
        const conv = conv2d(img, m.Wc, { stride: 2, padding: 1, groups: 2 });
        const pooled = maxPool2d(relu(conv), 2, { stride: 1, padding: 1 });
        return add(add(add(mean(square(h1)), mean(square(h2))), mean(square(h3))), mean(pooled));
      },
      inputs: { x: [4, 300], a: [2, 16, 16], c: [2, 3, 5], img: [1, 2, 5, 5] },
      optimizer: { kind: 'sgd', lr: 0.05, momentum: 0.9, nesterov: true, weightDecay: 0.01, clipGradNorm: 1.0 },
      seed: 4,
    },
    feed: (rng) => ({
      x: uniform(rng, 4 * 300), a: uniform(rng, 2 * 16 * 16), c: uniform(rng, 2 * 3 * 5),
      img: uniform(rng, 2 * 5 * 5, 0, 1),
    }),
    forwards: [],
  };
};
