// The cart-pole simulation (gym's CartPole-v1 physics, as upstream's main.ts steps it) and the
// lockstep rollout of `envs` episodes that REINFORCE trains on. The app and the parity case
// (tests/parity/cases/cartpole.cpp) both play it.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <functional>
#include <vector>

#include <tensorgrad/models/cartpole.h>

namespace tg_models::cartpole {

struct Env {
  double x = 0, xDot = 0, theta = 0, thetaDot = 0;
  bool done = false;
};

// Each state variable uniform in [−0.05, 0.05), four draws from `rng`.
Env resetEnv(tg::Mulberry32& rng);
// One 20 ms Euler step pushing left (action 0) or right (1); done once |x| > 2.4 or |θ| > 12°.
// sin and cos are Taylor series in double, as the parity case computes them, so a run does not
// depend on the C library's last bit.
Env stepEnv(const Env& e, int32_t action);

// One rollout: the states as f32 [maxT · envs, 4] (time-major), the actions, the discounted
// returns normalized over live slots, the live-slot mask, and each episode's length.
struct Rollout {
  tg::Feed feed;
  std::vector<int64_t> episodeLengths;
  double meanLength() const;
};

// `policy(states)` gets the f32 states of all envs ([envs, 4], finished ones included) and the
// live flags, and returns one action per env (entries of finished envs are ignored). It is not
// called once every episode has ended. Resets draw from `rng` first (env order).
using Policy = std::function<std::vector<int32_t>(const std::vector<float>& states, const std::vector<bool>& live)>;
Rollout rollout(const CartpoleConfig& c, tg::Mulberry32& rng, const Policy& policy);

}  // namespace tg_models::cartpole
