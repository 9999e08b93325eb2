// samples/cartpole at small sizes: 8 environments × 40 steps (320 rollout slots, so the loss
// sum, the bias gradients and the weight gradients keep upstream's ≥256-row reductions); the
// policy is upstream's (4 → 16 tanh → 2). Adam 5e-3, seed 42. Feeds are rollouts as main.ts
// builds them, with a coin-flip policy instead of the network's: gym's CartPole physics (sin and
// cos by their Taylor series in double, so both sides get the same bits), masked slots after
// an episode ends, discounted returns (γ 0.99) normalized over the unmasked slots. Forward: the
// policy's action probabilities for one state per environment.

export default (tg) => {
  const { Module, Linear, mul, sum, tanh, oneHot, logSoftmax, softmax } = tg;
  const K = 8, MAX_T = 40, STATE_DIM = 4, N_ACTIONS = 2, HIDDEN = 16, N = MAX_T * K;

  class Policy extends Module {
    l1 = new Linear(STATE_DIM, HIDDEN);
    l2 = new Linear(HIDDEN, N_ACTIONS);
  }
  const policyLogits = (m, state) => m.l2.fwd(tanh(m.l1.fwd(state)));
  const lossFn = (m, { states, actions, returns, mask }) => {
    const logits = policyLogits(m, states);
    const logProbs = logSoftmax(logits, -1);
    const taken = sum(mul(logProbs, oneHot(actions, N_ACTIONS, 'f32')), -1);
    return mul(sum(mul(mul(taken, returns), mask)), -1 / (MAX_T * K));
  };
  const predictFn = (m, { state }) => softmax(policyLogits(m, state), -1);

  // Taylor series in double, the same operations on both sides.
  const sinSeries = (x) => {
    const x2 = x * x;
    let term = x, s = x;
    for (let k = 1; k <= 12; k++) { term = -term * x2 / ((2 * k) * (2 * k + 1)); s += term; }
    return s;
  };
  const cosSeries = (x) => {
    const x2 = x * x;
    let term = 1, s = 1;
    for (let k = 1; k <= 12; k++) { term = -term * x2 / ((2 * k - 1) * (2 * k)); s += term; }
    return s;
  };

  const GAMMA = 0.99, GRAVITY = 9.8, MASSCART = 1.0, MASSPOLE = 0.1, POLE_HALF_LENGTH = 0.5;
  const TOTAL_MASS = MASSCART + MASSPOLE, POLEMASS_LENGTH = MASSPOLE * POLE_HALF_LENGTH;
  const FORCE_MAG = 10.0, TAU = 0.02, X_BOUND = 2.4, THETA_BOUND = 12 * Math.PI / 180;

  const resetEnv = (rng) => {
    const x = (rng() - 0.5) * 0.1;
    const xDot = (rng() - 0.5) * 0.1;
    const theta = (rng() - 0.5) * 0.1;
    const thetaDot = (rng() - 0.5) * 0.1;
    return { x, xDot, theta, thetaDot, done: false };
  };
  const stepEnv = (e, action) => {
    const force = action === 1 ? FORCE_MAG : -FORCE_MAG;
    const ct = cosSeries(e.theta);
    const st = sinSeries(e.theta);
    const temp = (force + POLEMASS_LENGTH * e.thetaDot * e.thetaDot * st) / TOTAL_MASS;
    const thetaAcc = (GRAVITY * st - ct * temp) / (POLE_HALF_LENGTH * (4 / 3 - MASSPOLE * ct * ct / TOTAL_MASS));
    const xAcc = temp - POLEMASS_LENGTH * thetaAcc * ct / TOTAL_MASS;
    const x = e.x + TAU * e.xDot;
    const xDot = e.xDot + TAU * xAcc;
    const theta = e.theta + TAU * e.thetaDot;
    const thetaDot = e.thetaDot + TAU * thetaAcc;
    const done = Math.abs(x) > X_BOUND || Math.abs(theta) > THETA_BOUND;
    return { x, xDot, theta, thetaDot, done };
  };

  const rollout = (rng) => {
    const envs = [];
    for (let k = 0; k < K; k++) envs.push(resetEnv(rng));
    const states = new Float32Array(N * STATE_DIM), actions = new Int32Array(N);
    const rewards = new Float32Array(N), mask = new Float32Array(N);
    for (let t = 0; t < MAX_T; t++) {
      for (let k = 0; k < K; k++) {
        const e = envs[k];
        if (e.done) continue;
        const idx = t * K + k;
        const a = Math.floor(rng() * N_ACTIONS);
        states[idx * STATE_DIM] = e.x;
        states[idx * STATE_DIM + 1] = e.xDot;
        states[idx * STATE_DIM + 2] = e.theta;
        states[idx * STATE_DIM + 3] = e.thetaDot;
        actions[idx] = a;
        rewards[idx] = 1;
        mask[idx] = 1;
        envs[k] = stepEnv(e, a);
      }
    }
    const returns = new Float32Array(N);
    for (let k = 0; k < K; k++) {
      let acc = 0;
      for (let t = MAX_T - 1; t >= 0; t--) {
        const idx = t * K + k;
        if (mask[idx] === 0) continue;
        acc = rewards[idx] + GAMMA * acc;
        returns[idx] = acc;
      }
    }
    let count = 0, sum1 = 0;
    for (let i = 0; i < N; i++) if (mask[i]) { sum1 += returns[i]; count++; }
    const meanR = count > 0 ? sum1 / count : 0;
    let varSum = 0;
    for (let i = 0; i < N; i++) if (mask[i]) { const d = returns[i] - meanR; varSum += d * d; }
    const stdR = Math.sqrt(varSum / Math.max(1, count)) + 1e-8;
    for (let i = 0; i < N; i++) if (mask[i]) returns[i] = (returns[i] - meanR) / stdR;
    return { states, actions, returns, mask };
  };
  // One state per environment, spread over the region episodes visit.
  const STATE_RANGE = [[-2.4, 2.4], [-2, 2], [-0.2, 0.2], [-2, 2]];
  const envStates = (rng) => {
    const state = new Float32Array(K * STATE_DIM);
    for (let k = 0; k < K; k++) {
      for (let j = 0; j < STATE_DIM; j++) {
        const [lo, hi] = STATE_RANGE[j];
        state[k * STATE_DIM + j] = lo + (hi - lo) * rng();
      }
    }
    return { state };
  };

  return {
    name: 'cartpole',
    feedSeed: 14,
    steps: 30,
    training: {
      model: new Policy(),
      loss: lossFn,
      inputs: {
        states: [N, STATE_DIM],
        actions: { shape: [N], dtype: 'i32' },
        returns: [N],
        mask: [N],
      },
      optimizer: { kind: 'adam', lr: 5e-3 },
      seed: 42,
    },
    feed: rollout,
    forwards: [
      { name: 'policy', spec: { forward: predictFn, inputs: { state: [K, STATE_DIM] } }, feed: envStates },
    ],
  };
};
