// samples/mlp-sin: 1 → 64 → 64 → 1, ReLU, MSE, Adam 0.005, on sin(x) with x uniform in [-π, π).
// Upstream's batch of 256 (its bias gradients sum 256 rows: the workgroup-tree form); the attached forward is the sample's parametric-batch predictor.
import { uniform } from './feeds.mjs';

export default (tg) => {
  const { Module, Linear, relu, sub, mul, mean } = tg;
  class MLP extends Module { l1 = new Linear(1, 64); l2 = new Linear(64, 64); l3 = new Linear(64, 1) }
  const forward = (m, x) => m.l3.fwd(relu(m.l2.fwd(relu(m.l1.fwd(x)))));
  const B = 256;
  const sine = (rng, n) => {
    const x = new Float32Array(n), y = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      x[i] = Math.fround((2 * rng() - 1) * Math.PI);
      y[i] = Math.fround(Math.sin(x[i]));
    }
    return { x, y };
  };
  return {
    name: 'mlp_sin',
    feedSeed: 7,
    steps: 30,
    training: {
      model: new MLP(),
      loss: (m, { x, y }) => { const d = sub(forward(m, x), y); return mean(mul(d, d)); },
      inputs: { x: [B, 1], y: [B, 1] },
      optimizer: { kind: 'adam', lr: 0.005 },
      seed: 42,
    },
    feed: (rng) => sine(rng, B),
    forwards: [
      { name: 'predict', spec: { forward: (m, { x }) => forward(m, x), inputs: { x: [null, 1] } },
        feed: (rng) => ({ x: uniform(rng, 50, -Math.PI, Math.PI) }) },
    ],
  };
};
