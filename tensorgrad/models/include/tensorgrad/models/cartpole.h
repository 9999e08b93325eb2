// samples/cartpole: REINFORCE on CartPole. A tanh MLP policy maps the state (cart position and
// velocity, pole angle and angular velocity) to logits over two actions (push left, push right).
// `envs` environments run in lockstep for up to `maxT` steps; each step trains on the flattened
// rollout ([maxT · envs] slots): the log-probability of the action taken, times its normalized
// discounted return, times a mask that is 0 for slots after an episode ended, summed and scaled
// by −1 / (maxT · envs). The attached forward gives action probabilities for one state per
// environment. Adam. Upstream passes no seed (compile draws one); the config's seed may fix it.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cstdint>
#include <optional>

namespace tg_models {

struct CartpoleConfig {
  int64_t envs = 16;  // upstream's K
  int64_t maxT = 200;
  int64_t stateDim = 4;
  int64_t actions = 2;
  int64_t hidden = 16;
  std::optional<uint32_t> seed;  // none: a fresh random seed per compile, as upstream
  int64_t slots() const { return maxT * envs; }
};

struct CartpolePolicy : tg::Module {
  explicit CartpolePolicy(CartpoleConfig c = {})
      : l1(*this, "l1", c.stateDim, c.hidden), l2(*this, "l2", c.hidden, c.actions), cfg(c) {}
  tg::Linear l1, l2;
  CartpoleConfig cfg;
};

// states [N, stateDim] → logits [N, actions].
inline tg::Tensor cartpoleLogits(const CartpolePolicy& m, const tg::Tensor& states) {
  return m.l2.fwd(tg::tanh(m.l1.fwd(states)));
}

// Inputs states [slots, stateDim], actions (i32 [slots]), returns and mask ([slots]).
inline tg::Tensor cartpoleLoss(const CartpolePolicy& m, const tg::Inputs& in) {
  const tg::Tensor logProbs = tg::logSoftmax(cartpoleLogits(m, in["states"]), -1);
  const tg::Tensor taken =
      tg::sum(tg::mul(logProbs, tg::oneHot(in["actions"], m.cfg.actions, tg::Dtype::F32)), -1);
  return tg::mul(tg::sum(tg::mul(tg::mul(taken, in["returns"]), in["mask"])),
                 -1.0 / static_cast<double>(m.cfg.slots()));
}

// Input state [N, stateDim] → action probabilities [N, actions].
inline tg::Tensor cartpolePolicyProbs(const CartpolePolicy& m, const tg::Inputs& in) {
  return tg::softmax(cartpoleLogits(m, in["state"]), -1);
}

// Upstream's training spec; `c` is the config `model` was built from (it sizes the inputs and
// may fix the seed).
inline tg::TrainingSpec<CartpolePolicy> cartpoleSpec(const CartpolePolicy& model,
                                                     const CartpoleConfig& c) {
  return {.model = model,
          .loss = cartpoleLoss,
          .inputs = {{"states", {{c.slots(), c.stateDim}}},
                     {"actions", {{c.slots()}, tg::Dtype::I32}},
                     {"returns", {{c.slots()}}},
                     {"mask", {{c.slots()}}}},
          .optimizer = tg::Adam{{}, 5e-3},
          .seed = c.seed};
}

// The forward upstream's main.ts attaches: the policy for one state per environment.
inline tg::AttachSpec<CartpolePolicy> cartpoleActor(const CartpoleConfig& c) {
  return {.forward = cartpolePolicyProbs, .inputs = {{"state", {{c.envs, c.stateDim}}}}};
}

}  // namespace tg_models
