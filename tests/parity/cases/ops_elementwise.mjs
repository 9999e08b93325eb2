// Op coverage, element-wise: every unary and binary kernel, comparisons and `where`, the const
// kernels, slicing (narrow and its scatter gradient), the row mean in both forms (one thread per
// row, and a workgroup per row for rows of ≥ 256), and, in the forwards, argmax, categorical,
// the causal mask with a -Infinity fill (written as upstream's -1e30) and i32 arithmetic with a
// division by zero. Plain Adam.
import { uniform, labels } from './feeds.mjs';

export default (tg) => {
  const { Module, init, add, sub, mul, div, min, max, clamp, sqrt, rsqrt, log, exp, abs, neg, tanh,
          sigmoid, erf, sin, cos, gelu, silu, softplus, leakyRelu, square, where, less, greater,
          stopGradient, mean, sum, narrow, ones, whereCausal, softmax, argmax, categorical,
          reshape, matmul } = tg;
  const B = 4, D = 20, L = 300;
  class Net extends Module {
    W = this.param([D, D]);
    v = this.param([D], { init: init.ones() });
    u = this.param([L], { init: init.randn({ scale: 0.5 }) });
  }
  const body = (m, x) => {
    const h = matmul(x, m.W);
    const a = mul(h, m.v);
    const p = abs(a);
    const t1 = log(add(p, 1));
    const t2 = rsqrt(add(square(a), 1));
    const t3 = sqrt(add(p, 0.5));
    const t4 = tanh(neg(a));
    const t5 = erf(a);
    const t6 = sigmoid(sin(a));
    const t7 = cos(exp(clamp(a, -3, 3)));
    const t8 = gelu(a);
    const t9 = silu(a);
    const t10 = softplus(a);
    const t11 = leakyRelu(a, 0.1);
    const big = greater(a, 0.01);
    const small = less(a, -0.01);
    const sel = where(big, t1, where(small, t2, t3));
    let acc = add(sel, t4);
    acc = sub(acc, t7);
    acc = add(acc, mul(t8, t9));
    acc = div(acc, add(t10, 1));
    const lo = min(acc, t11);
    const hi = max(lo, t5);
    return add(hi, mul(stopGradient(t6), ones([B, D])));
  };
  const causal = (z) => reshape(narrow(z, 1, 0, 16), [B, 4, 4]);
  return {
    name: 'ops_elementwise',
    feedSeed: 21,
    steps: 3,
    training: {
      model: new Net(),
      loss: (m, { x, xl }) => {
        const z = body(m, x);
        const rows = mean(z, -1);
        const sl = sum(narrow(z, 1, 2, 5), -1);
        const masked = mean(whereCausal(causal(z), 0.5));
        const q = mul(reshape(m.u, [1, L]), xl);
        const long = mean(q, -1);
        return add(add(add(mean(rows), mean(sl)), masked), mean(square(long)));
      },
      inputs: { x: [B, D], xl: [2, L] },
      optimizer: { kind: 'adam', lr: 0.01 },
      seed: 3,
    },
    feed: (rng) => ({ x: uniform(rng, B * D, -2, 2), xl: uniform(rng, 2 * L) }),
    forwards: [
      { name: 'argmax', spec: { forward: (m, { x }) => argmax(body(m, x), -1), inputs: { x: [B, D] }, output: 'i32' },
        feed: (rng) => ({ x: uniform(rng, B * D, -2, 2) }) },
      { name: 'sample', spec: { forward: (m, { x }) => categorical(body(m, x)), inputs: { x: [B, D] }, output: 'i32' },
        feed: (rng) => ({ x: uniform(rng, B * D, -2, 2) }) },
      { name: 'masked_softmax', spec: { forward: (m, { x }) => softmax(whereCausal(causal(body(m, x)), -Infinity)), inputs: { x: [B, D] } },
        feed: (rng) => ({ x: uniform(rng, B * D, -2, 2) }) },
      { name: 'int_math', spec: {
          forward: (m, { k }) => max(min(div(add(mul(k, k), 3), sub(k, 2)), 20), -20),
          inputs: { k: { shape: [16], dtype: 'i32' } }, output: 'i32' },
        feed: (rng) => ({ k: labels(rng, 16, 6) }) },
    ],
  };
};
