// samples/kan-tiny at upstream's sizes (already small): grid 5, cubic (8 knots), 1 → 4 → 1,
// batch 256 (so the spline-coefficient and residual-weight gradients are K = 256 matmuls, in
// upstream's workgroup-tree form). Adam 0.005, seed 42. Feeds are main.ts's:
// x uniform in [-1, 1), y = sin(πx), the sine taken by its Taylor series in double so both sides
// get the same bits. Forward: the predictor on main.ts's 200-point plot grid.

export default (tg) => {
  const {
    Module, init, add, sub, mul, mean, abs, neg, max, where, less, square, silu, reshape, swapAxes,
    matmul, arange,
  } = tg;
  const G = 5, DEG = 3, KNOTS = G + DEG, HIDDEN = 4, BATCH = 256, PLOT_N = 200;

  class KANLayer extends Module {
    constructor(I, O) {
      super();
      this.I = I;
      this.O = O;
      this.C = this.param([O, I, KNOTS], { init: init.randn({ scale: 0.1 }) });
      this.Wres = this.param([I, O]);
    }
  }
  class KAN extends Module {
    l1 = new KANLayer(1, HIDDEN);
    l2 = new KANLayer(HIDDEN, 1);
  }

  const bsplineBasis = (u) => {
    const absU = abs(u);
    const u2 = mul(u, u);
    const absU3 = mul(absU, u2);
    const case1 = add(sub(mul(absU3, 0.5), u2), 2 / 3);
    const outerBase = max(neg(sub(absU, 2)), 0);
    const case2 = mul(mul(outerBase, mul(outerBase, outerBase)), 1 / 6);
    return where(less(absU, 1), case1, case2);
  };
  const kanFwd = (layer, x) => {
    const B = x.shape[0], I = layer.I, O = layer.O;
    const xScaled = mul(add(x, 1), (KNOTS - 1) / 2);
    const kVec = arange(KNOTS, 'f32');
    const u = sub(reshape(xScaled, [B, I, 1]), reshape(kVec, [1, 1, KNOTS]));
    const basis = bsplineBasis(u);
    const basisFlat = reshape(basis, [B, I * KNOTS]);
    const CFlat = reshape(layer.C, [O, I * KNOTS]);
    const Yspline = matmul(basisFlat, swapAxes(CFlat, 0, 1));
    const Yres = matmul(silu(x), layer.Wres);
    return add(Yspline, Yres);
  };
  const modelFwd = (m, x) => kanFwd(m.l2, kanFwd(m.l1, x));

  // sin(x) for |x| <= π by its Taylor series in double: the same operations on both sides, so
  // the same bits (JS's and C++'s libm sines may differ in the last bit).
  const sinSeries = (x) => {
    const x2 = x * x;
    let term = x, s = x;
    for (let k = 1; k <= 12; k++) { term = -term * x2 / ((2 * k) * (2 * k + 1)); s += term; }
    return s;
  };
  const sineBatch = (rng) => {
    const x = new Float32Array(BATCH), y = new Float32Array(BATCH);
    for (let i = 0; i < BATCH; i++) {
      const v = rng() * 2 - 1;
      x[i] = v;
      y[i] = sinSeries(Math.PI * v);
    }
    return { x, y };
  };
  const plotGrid = () => {
    const x = new Float32Array(PLOT_N);
    for (let i = 0; i < PLOT_N; i++) x[i] = -1 + 2 * i / (PLOT_N - 1);
    return { x };
  };

  return {
    name: 'kan_tiny',
    feedSeed: 13,
    steps: 30,
    training: {
      model: new KAN(),
      loss: (m, { x, y }) => mean(square(sub(modelFwd(m, x), y))),
      inputs: { x: [BATCH, 1], y: [BATCH, 1] },
      optimizer: { kind: 'adam', lr: 0.005 },
      seed: 42,
    },
    feed: sineBatch,
    forwards: [
      { name: 'predict', spec: { forward: (m, { x }) => modelFwd(m, x), inputs: { x: [null, 1] } },
        feed: plotGrid },
    ],
  };
};
