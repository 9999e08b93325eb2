// samples/cartpole at small sizes (cases/cartpole.mjs is the upstream side).
#include <algorithm>
#include <array>
#include <cmath>

#include "../../../samples/models/cartpole.h"
#include "../../../samples/models/taylor_trig.h"
#include "../parity_case.h"

namespace tg_parity {
namespace {

using tg_models::cosSeries;
using tg_models::sinSeries;

const tg_models::CartpoleConfig kConfig{
    .envs = 8, .maxT = 40, .stateDim = 4, .actions = 2, .hidden = 16, .seed = 42};

// gym's CartPole, as main.ts steps it.
constexpr double kGamma = 0.99, kGravity = 9.8, kMassCart = 1.0, kMassPole = 0.1,
                 kPoleHalfLength = 0.5;
constexpr double kTotalMass = kMassCart + kMassPole, kPoleMassLength = kMassPole * kPoleHalfLength;
constexpr double kForceMag = 10.0, kTau = 0.02, kXBound = 2.4, kThetaBound = 12 * M_PI / 180;

struct Env {
  double x = 0, xDot = 0, theta = 0, thetaDot = 0;
  bool done = false;
};

Env resetEnv(tg::Mulberry32& rng) {
  Env e;
  e.x = (rng.next() - 0.5) * 0.1;
  e.xDot = (rng.next() - 0.5) * 0.1;
  e.theta = (rng.next() - 0.5) * 0.1;
  e.thetaDot = (rng.next() - 0.5) * 0.1;
  return e;
}

Env stepEnv(const Env& e, int32_t action) {
  const double force = action == 1 ? kForceMag : -kForceMag;
  const double ct = cosSeries(e.theta);
  const double st = sinSeries(e.theta);
  const double temp = (force + kPoleMassLength * e.thetaDot * e.thetaDot * st) / kTotalMass;
  const double thetaAcc = (kGravity * st - ct * temp) /
                          (kPoleHalfLength * (4.0 / 3.0 - kMassPole * ct * ct / kTotalMass));
  const double xAcc = temp - kPoleMassLength * thetaAcc * ct / kTotalMass;
  Env n;
  n.x = e.x + kTau * e.xDot;
  n.xDot = e.xDot + kTau * xAcc;
  n.theta = e.theta + kTau * e.thetaDot;
  n.thetaDot = e.thetaDot + kTau * thetaAcc;
  n.done = std::abs(n.x) > kXBound || std::abs(n.theta) > kThetaBound;
  return n;
}

// main.ts's rollout with a coin-flip policy: states, actions, normalized discounted returns and
// the mask of live slots ([maxT · envs], time-major).
tg::Feed rollout(tg::Mulberry32& rng) {
  const int64_t k = kConfig.envs, maxT = kConfig.maxT, sd = kConfig.stateDim, n = kConfig.slots();
  std::vector<Env> envs;
  for (int64_t i = 0; i < k; ++i) envs.push_back(resetEnv(rng));
  std::vector<float> states(static_cast<size_t>(n * sd), 0.f), rewards(static_cast<size_t>(n), 0.f),
      mask(static_cast<size_t>(n), 0.f), returns(static_cast<size_t>(n), 0.f);
  std::vector<int32_t> actions(static_cast<size_t>(n), 0);
  for (int64_t t = 0; t < maxT; ++t) {
    for (int64_t i = 0; i < k; ++i) {
      Env& e = envs[static_cast<size_t>(i)];
      if (e.done) continue;
      const auto idx = static_cast<size_t>(t * k + i);
      const auto a = static_cast<int32_t>(rng.next() * static_cast<double>(kConfig.actions));
      const size_t s = idx * static_cast<size_t>(sd);
      states[s] = static_cast<float>(e.x);
      states[s + 1] = static_cast<float>(e.xDot);
      states[s + 2] = static_cast<float>(e.theta);
      states[s + 3] = static_cast<float>(e.thetaDot);
      actions[idx] = a;
      rewards[idx] = 1.f;
      mask[idx] = 1.f;
      e = stepEnv(e, a);
    }
  }
  for (int64_t i = 0; i < k; ++i) {
    double acc = 0;
    for (int64_t t = maxT - 1; t >= 0; --t) {
      const auto idx = static_cast<size_t>(t * k + i);
      if (mask[idx] == 0.f) continue;
      acc = static_cast<double>(rewards[idx]) + kGamma * acc;
      returns[idx] = static_cast<float>(acc);
    }
  }
  int64_t count = 0;
  double sum1 = 0;
  for (size_t i = 0; i < returns.size(); ++i)
    if (mask[i] != 0.f) {
      sum1 += static_cast<double>(returns[i]);
      ++count;
    }
  const double meanR = count > 0 ? sum1 / static_cast<double>(count) : 0;
  double varSum = 0;
  for (size_t i = 0; i < returns.size(); ++i)
    if (mask[i] != 0.f) {
      const double d = static_cast<double>(returns[i]) - meanR;
      varSum += d * d;
    }
  const double stdR = std::sqrt(varSum / static_cast<double>(std::max<int64_t>(1, count))) + 1e-8;
  for (size_t i = 0; i < returns.size(); ++i)
    if (mask[i] != 0.f)
      returns[i] = static_cast<float>((static_cast<double>(returns[i]) - meanR) / stdR);
  return {{"states", std::move(states)},
          {"actions", std::move(actions)},
          {"returns", std::move(returns)},
          {"mask", std::move(mask)}};
}

// One state per environment, spread over the region episodes visit.
tg::Feed envStates(tg::Mulberry32& rng) {
  constexpr std::array<std::array<double, 2>, 4> kRange{
      {{-2.4, 2.4}, {-2, 2}, {-0.2, 0.2}, {-2, 2}}};
  std::vector<float> state;
  for (int64_t i = 0; i < kConfig.envs; ++i)
    for (const auto& [lo, hi] : kRange)
      state.push_back(static_cast<float>(lo + (hi - lo) * rng.next()));
  return {{"state", std::move(state)}};
}

Recorded run(const tg::RuntimeOptions& options) {
  tg_models::CartpolePolicy model(kConfig);
  std::vector<ForwardProbe<tg_models::CartpolePolicy>> forwards;
  forwards.push_back({"policy", tg_models::cartpoleActor(kConfig), envStates});
  return recordTraining(tg_models::cartpoleSpec(model, kConfig), 30, 14, rollout,
                        std::move(forwards), options);
}

const Registrar registrar({"cartpole", run});

}  // namespace
}  // namespace tg_parity
