// samples/tic-tac-toe at upstream's sizes (already small: 16 games × 9 moves = 144 rollout slots,
// 27 → 64 → 64 → 9 tanh policy; the full model has no reduction of 256 rows or more). Adam 5e-3,
// seed 42. Feeds are self-play rollouts as main.ts builds them, with uniformly random legal moves
// instead of the network's: mover's-view board encodings, the moves played, each game's outcome
// for the player who moved (+1 / 0 / −1) normalized over the live slots, and the live-slot mask.
// Forwards: the policy on the 16 boards of a rollout (4 or fewer moves in) and on one board, as
// main.ts runs its attached forward (inputs [null, 27]) for rollouts and for play.

export default (tg) => {
  const { Module, Linear, mul, sum, tanh, oneHot, logSoftmax, softmax } = tg;
  const K = 16, MAX_MOVES = 9, N_SLOTS = K * MAX_MOVES, STATE_DIM = 27, N_ACTIONS = 9, HIDDEN = 64;

  class Policy extends Module {
    l1 = new Linear(STATE_DIM, HIDDEN);
    l2 = new Linear(HIDDEN, HIDDEN);
    out = new Linear(HIDDEN, N_ACTIONS);
  }
  const policyLogits = (m, state) => m.out.fwd(tanh(m.l2.fwd(tanh(m.l1.fwd(state)))));
  const lossFn = (m, { states, actions, outcomes, mask }) => {
    const logProbs = logSoftmax(policyLogits(m, states), -1);
    const taken = sum(mul(logProbs, oneHot(actions, N_ACTIONS, 'f32')), -1);
    return mul(sum(mul(mul(taken, outcomes), mask)), -1 / N_SLOTS);
  };
  const predictFn = (m, { state }) => softmax(policyLogits(m, state), -1);

  // The game engine of main.ts: cells 0 = empty, 1 = player 0, 2 = player 1.
  const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
  const newGame = () => ({ cells: new Int8Array(9), turn: 0, done: false, winner: -1 });
  const checkWin = (cells, p) => {
    for (const [a, b, c] of LINES) if (cells[a] === p && cells[b] === p && cells[c] === p) return true;
    return false;
  };
  const applyMove = (g, cell) => {
    const cells = new Int8Array(g.cells);
    const piece = g.turn === 0 ? 1 : 2;
    cells[cell] = piece;
    let done = false, winner = -1;
    if (checkWin(cells, piece)) { done = true; winner = g.turn; }
    else if (cells.every((c) => c !== 0)) { done = true; winner = -1; }
    return { cells, turn: g.turn ^ 1, done, winner };
  };
  const packState = (g, out, offset) => {
    const me = g.turn === 0 ? 1 : 2;
    for (let i = 0; i < 9; i++) {
      out[offset + i] = g.cells[i] === 0 ? 1 : 0;
      out[offset + 9 + i] = g.cells[i] === me ? 1 : 0;
      out[offset + 18 + i] = g.cells[i] !== 0 && g.cells[i] !== me ? 1 : 0;
    }
  };
  const randomMove = (g, rng) => {
    const empties = [];
    for (let i = 0; i < 9; i++) if (g.cells[i] === 0) empties.push(i);
    return empties[Math.floor(rng() * empties.length)];
  };

  const rollout = (rng) => {
    const games = [];
    for (let k = 0; k < K; k++) games.push(newGame());
    const states = new Float32Array(N_SLOTS * STATE_DIM), actions = new Int32Array(N_SLOTS);
    const player = new Int8Array(N_SLOTS), mask = new Float32Array(N_SLOTS), outcomes = new Float32Array(N_SLOTS);
    for (let move = 0; move < MAX_MOVES; move++) {
      for (let k = 0; k < K; k++) {
        const g = games[k];
        if (g.done) continue;
        const idx = move * K + k;
        const a = randomMove(g, rng);
        packState(g, states, idx * STATE_DIM);
        actions[idx] = a;
        player[idx] = g.turn;
        mask[idx] = 1;
        games[k] = applyMove(g, a);
      }
    }
    for (let k = 0; k < K; k++) {
      const w = games[k].winner;
      for (let move = 0; move < MAX_MOVES; move++) {
        const idx = move * K + k;
        if (mask[idx] === 0) continue;
        outcomes[idx] = w === -1 ? 0 : player[idx] === w ? 1 : -1;
      }
    }
    let count = 0, s1 = 0;
    for (let i = 0; i < N_SLOTS; i++) if (mask[i]) { s1 += outcomes[i]; count++; }
    const meanO = count > 0 ? s1 / count : 0;
    let vs = 0;
    for (let i = 0; i < N_SLOTS; i++) if (mask[i]) { const d = outcomes[i] - meanO; vs += d * d; }
    const stdO = Math.sqrt(vs / Math.max(1, count)) + 1e-8;
    for (let i = 0; i < N_SLOTS; i++) if (mask[i]) outcomes[i] = (outcomes[i] - meanO) / stdO;
    return { states, actions, outcomes, mask };
  };
  // The K boards of a rollout `moves` (0–4) plies in: no game has ended yet.
  const rolloutBoards = (rng) => {
    const moves = Math.floor(rng() * 5);
    const state = new Float32Array(K * STATE_DIM);
    for (let k = 0; k < K; k++) {
      let g = newGame();
      for (let j = 0; j < moves; j++) g = applyMove(g, randomMove(g, rng));
      packState(g, state, k * STATE_DIM);
    }
    return { state };
  };
  // One board 0–7 plies into a game (fewer if it ended), as when the model plays a person.
  const oneBoard = (rng) => {
    const moves = Math.floor(rng() * 8);
    let g = newGame();
    for (let j = 0; j < moves && !g.done; j++) g = applyMove(g, randomMove(g, rng));
    const state = new Float32Array(STATE_DIM);
    packState(g, state, 0);
    return { state };
  };

  const actor = { forward: predictFn, inputs: { state: [null, STATE_DIM] } };
  return {
    name: 'tic_tac_toe',
    feedSeed: 15,
    steps: 30,
    training: {
      model: new Policy(),
      loss: lossFn,
      inputs: {
        states: [N_SLOTS, STATE_DIM],
        actions: { shape: [N_SLOTS], dtype: 'i32' },
        outcomes: [N_SLOTS],
        mask: [N_SLOTS],
      },
      optimizer: { kind: 'adam', lr: 5e-3 },
      seed: 42,
    },
    feed: rollout,
    forwards: [
      { name: 'rollout', spec: actor, feed: rolloutBoards },
      { name: 'move', spec: actor, feed: oneBoard },
    ],
  };
};
