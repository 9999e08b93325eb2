// samples/nerf-tiny at small sizes: a 16×16 target image, B = 256 random pixels per step, L = 4
// frequency bands (so 4L = 16 and l1's matmuls stay tile-aligned, as upstream's 1024 × 32 × 64),
// hidden 16; Adam 1e-3. B = 256 keeps the ≥ 256-row reductions of the full model: l4's weight
// gradient (K = 256, N = 3: the workgroup-tree matmul), every bias gradient and the loss mean.
// Feeds as main.ts: coords of random pixel centres in [-1, 1], their RGB from a synthetic target
// (red and green ramps, blue a disc), the constant freqs π·2^k. The predictor is attached as
// main.ts does (every pixel, static shape) and run on the full grid.

export default (tg) => {
  const { Module, Linear, mul, sub, mean, reshape, relu, sigmoid, concat, sin, cos, square } = tg;
  const W = 16, H = 16, N = W * H, B = 256, L = 4, HID = 16;
  class NeRFTiny extends Module {
    l1 = new Linear(4 * L, HID);
    l2 = new Linear(HID, HID);
    l3 = new Linear(HID, HID);
    l4 = new Linear(HID, 3);
  }
  const posEnc = (coords, freqs) => {
    const b = coords.shape[0];
    const scaled = mul(reshape(coords, [b, 2, 1]), reshape(freqs, [1, 1, L]));
    const sinF = reshape(sin(scaled), [b, 2 * L]);
    const cosF = reshape(cos(scaled), [b, 2 * L]);
    return concat([sinF, cosF], 1);
  };
  const rgbOf = (m, coords, freqs) => {
    let h = posEnc(coords, freqs);
    h = relu(m.l1.fwd(h));
    h = relu(m.l2.fwd(h));
    h = relu(m.l3.fwd(h));
    return sigmoid(m.l4.fwd(h));
  };
  const FREQS = new Float32Array(L);
  for (let k = 0; k < L; k++) FREQS[k] = Math.PI * Math.pow(2, k);
  const GRID = new Float32Array(N * 2);
  const TARGET = new Float32Array(N * 3);
  for (let row = 0; row < H; row++) {
    for (let col = 0; col < W; col++) {
      const i = row * W + col;
      const x = 2 * (col + 0.5) / W - 1, y = 2 * (row + 0.5) / H - 1;
      GRID[i * 2] = x;
      GRID[i * 2 + 1] = y;
      TARGET[i * 3] = (col + 0.5) / W;
      TARGET[i * 3 + 1] = (row + 0.5) / H;
      TARGET[i * 3 + 2] = x * x + y * y < 0.5 ? 1 : 0.2;
    }
  }
  return {
    name: 'nerf_tiny',
    feedSeed: 15,
    steps: 20,
    training: {
      model: new NeRFTiny(),
      loss: (m, { coords, rgb, freqs }) => mean(square(sub(rgbOf(m, coords, freqs), rgb))),
      inputs: { coords: [B, 2], rgb: [B, 3], freqs: [L] },
      optimizer: { kind: 'adam', lr: 1e-3 },
      seed: 9,
    },
    feed: (rng) => {
      const coords = new Float32Array(B * 2), rgb = new Float32Array(B * 3);
      for (let b = 0; b < B; b++) {
        const idx = Math.floor(rng() * N);
        coords[b * 2] = GRID[idx * 2];
        coords[b * 2 + 1] = GRID[idx * 2 + 1];
        rgb[b * 3] = TARGET[idx * 3];
        rgb[b * 3 + 1] = TARGET[idx * 3 + 1];
        rgb[b * 3 + 2] = TARGET[idx * 3 + 2];
      }
      return { coords, rgb, freqs: FREQS };
    },
    forwards: [
      { name: 'render',
        spec: { forward: (m, { coords, freqs }) => rgbOf(m, coords, freqs), inputs: { coords: [N, 2], freqs: [L] } },
        feed: () => ({ coords: GRID, freqs: FREQS }) },
    ],
  };
};
