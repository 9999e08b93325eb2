// samples/tic-tac-toe: self-play policy gradient. One tanh MLP plays both sides; a board is
// encoded from the mover's view as 27 binary features (9 cells × empty / mine / theirs) and the
// output is logits over the 9 cells. `games` games run in lockstep for up to 9 moves; each step
// trains on the flattened rollout ([9 · games] slots, move-major): the log-probability of the
// move played, times the game's normalized outcome for the player who made it, times a mask that
// is 0 after the game ended, summed and scaled by −1 / slots. The attached forward gives move
// probabilities for any number of boards (illegal cells are masked on the host). Adam. Upstream
// passes no seed (compile draws one); the config's seed may fix it.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cstdint>
#include <optional>

namespace tg_models {

struct TicTacToeConfig {
  int64_t games = 16;  // upstream's K
  int64_t maxMoves = 9;
  int64_t stateDim = 27;
  int64_t actions = 9;
  int64_t hidden = 64;
  std::optional<uint32_t> seed;  // none: a fresh random seed per compile, as upstream
  int64_t slots() const { return games * maxMoves; }
};

struct TicTacToePolicy : tg::Module {
  explicit TicTacToePolicy(TicTacToeConfig c = {})
      : l1(*this, "l1", c.stateDim, c.hidden),
        l2(*this, "l2", c.hidden, c.hidden),
        out(*this, "out", c.hidden, c.actions),
        cfg(c) {}
  tg::Linear l1, l2, out;
  TicTacToeConfig cfg;
};

// states [N, 27] → logits [N, 9].
inline tg::Tensor ticTacToeLogits(const TicTacToePolicy& m, const tg::Tensor& states) {
  return m.out.fwd(tg::tanh(m.l2.fwd(tg::tanh(m.l1.fwd(states)))));
}

// Inputs states [slots, 27], actions (i32 [slots]), outcomes and mask ([slots]).
inline tg::Tensor ticTacToeLoss(const TicTacToePolicy& m, const tg::Inputs& in) {
  const tg::Tensor logProbs = tg::logSoftmax(ticTacToeLogits(m, in["states"]), -1);
  const tg::Tensor taken =
      tg::sum(tg::mul(logProbs, tg::oneHot(in["actions"], m.cfg.actions, tg::Dtype::F32)), -1);
  return tg::mul(tg::sum(tg::mul(tg::mul(taken, in["outcomes"]), in["mask"])),
                 -1.0 / static_cast<double>(m.cfg.slots()));
}

// Input state [N, 27] → move probabilities [N, 9].
inline tg::Tensor ticTacToePolicyProbs(const TicTacToePolicy& m, const tg::Inputs& in) {
  return tg::softmax(ticTacToeLogits(m, in["state"]), -1);
}

// Upstream's training spec; `c` is the config `model` was built from (it sizes the inputs and
// may fix the seed).
inline tg::TrainingSpec<TicTacToePolicy> ticTacToeSpec(const TicTacToePolicy& model,
                                                       const TicTacToeConfig& c) {
  return {.model = model,
          .loss = ticTacToeLoss,
          .inputs = {{"states", {{c.slots(), c.stateDim}}},
                     {"actions", {{c.slots()}, tg::Dtype::I32}},
                     {"outcomes", {{c.slots()}}},
                     {"mask", {{c.slots()}}}},
          .optimizer = tg::Adam{{}, 5e-3},
          .seed = c.seed};
}

// The forward upstream's main.ts attaches: move probabilities for a batch of boards (all games of
// a rollout, or one board when the model plays a person).
inline tg::AttachSpec<TicTacToePolicy> ticTacToeActor(const TicTacToeConfig& c) {
  return {.forward = ticTacToePolicyProbs, .inputs = {{"state", {{tg::null, c.stateDim}}}}};
}

}  // namespace tg_models
