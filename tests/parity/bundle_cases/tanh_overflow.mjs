// Why this case exists: headless Chromium's WebGPU device (SwiftShader) returns NaN from WGSL
// `tanh(x)` for |x| >= ~88.7, and upstream 0.4.6's train.step still answers `completed`, with a
// NaN loss. This case makes that happen on purpose so that a real Chromium recording
// (bundles/tanh_overflow.chromium.tgbundle.json) holds finite steps followed by NaN steps, and a
// forward whose output is NaN, for the native replay to be tested against.
//
// A bundle-only case: it lives in bundle_cases/, not cases/, so the C++ parity tests (which run
// every cases/*.mjs twin) do not enumerate it, and it has no golden. Record it with
//   gen_goldens.sh [CHECKOUT] --bundles --chromium tanh_overflow
//
// Model: x[64,4] → Linear(4,16, Kaiming init: std √2/2, so |x| of 200 reaches the overflow; the
// default randn·0.02 would not) → tanh → Linear(16,1), MSE against y, Adam 0.01. Feeds: per step,
// x uniform in ±SCALES[step] and y uniform in ±1 (x first, row-major, then y), from one Mulberry32
// stream. Steps 0 and 1 keep |x| ≤ 1 and ≤ 10 (every tanh pre-activation well below 88.7: finite
// losses); from step 2, |x| ≤ 200 puts many pre-activations past ±89, so SwiftShader's tanh gives
// NaN, the loss is NaN, and Adam turns every parameter NaN, so every later loss and the attached
// forward's whole output are NaN too. (A backend whose tanh saturates to ±1 there would keep
// training with finite losses; only Chromium's recording is committed.)
// The attached forward 'predict' (x [null, 4]) runs once after the last step on 16 rows uniform in
// ±1, drawn next from the same stream.
import { uniform } from '../cases/feeds.mjs';

export default (tg) => {
  const { Module, Linear, init, tanh, sub, mul, mean } = tg;
  class Net extends Module { l1 = new Linear(4, 16, { init: init.kaiming() }); l2 = new Linear(16, 1) }
  const forward = (m, x) => m.l2.fwd(tanh(m.l1.fwd(x)));
  const B = 64;
  const SCALES = [1, 10, 200, 200, 200, 200, 200, 200];
  let step = 0;  // the feed is called once per step, in order
  return {
    name: 'tanh_overflow',
    feedSeed: 11,
    steps: SCALES.length,
    training: {
      model: new Net(),
      loss: (m, { x, y }) => { const d = sub(forward(m, x), y); return mean(mul(d, d)); },
      inputs: { x: [B, 4], y: [B, 1] },
      optimizer: { kind: 'adam', lr: 0.01 },
      seed: 42,
    },
    feed: (rng) => {
      const s = SCALES[Math.min(step++, SCALES.length - 1)];
      return { x: uniform(rng, B * 4, -s, s), y: uniform(rng, B, -1, 1) };
    },
    forwards: [
      { name: 'predict', spec: { forward: (m, { x }) => forward(m, x), inputs: { x: [null, 4] } },
        feed: (rng) => ({ x: uniform(rng, 16 * 4, -1, 1) }) },
    ],
  };
};
