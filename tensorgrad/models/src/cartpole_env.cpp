#include <tensorgrad/models/cartpole_env.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include <tensorgrad/models/normalize_masked.h>
#include <tensorgrad/models/taylor_trig.h>

namespace tg_models::cartpole {
namespace {

using tg_models::cosSeries;
using tg_models::sinSeries;

constexpr double kGamma = 0.99, kGravity = 9.8, kMassCart = 1.0, kMassPole = 0.1, kPoleHalfLength = 0.5;
constexpr double kTotalMass = kMassCart + kMassPole, kPoleMassLength = kMassPole * kPoleHalfLength;
constexpr double kForceMag = 10.0, kTau = 0.02, kXBound = 2.4, kThetaBound = 12 * std::numbers::pi / 180;

}  // namespace

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
  const double thetaAcc =
      (kGravity * st - ct * temp) / (kPoleHalfLength * (4.0 / 3.0 - kMassPole * ct * ct / kTotalMass));
  const double xAcc = temp - kPoleMassLength * thetaAcc * ct / kTotalMass;
  Env n;
  n.x = e.x + kTau * e.xDot;
  n.xDot = e.xDot + kTau * xAcc;
  n.theta = e.theta + kTau * e.thetaDot;
  n.thetaDot = e.thetaDot + kTau * thetaAcc;
  n.done = std::abs(n.x) > kXBound || std::abs(n.theta) > kThetaBound;
  return n;
}

double Rollout::meanLength() const {
  if (episodeLengths.empty()) return 0;
  double sum = 0;
  for (int64_t l : episodeLengths) sum += static_cast<double>(l);
  return sum / static_cast<double>(episodeLengths.size());
}

Rollout rollout(const tg_models::CartpoleConfig& c, tg::Mulberry32& rng, const Policy& policy) {
  if (c.stateDim != 4) throw std::invalid_argument("cartpole: the state has 4 variables, not " + std::to_string(c.stateDim));
  if (c.envs <= 0 || c.maxT <= 0 || c.envs > (int64_t{1} << 20) / c.maxT)
    throw std::invalid_argument("cartpole: envs " + std::to_string(c.envs) + " × maxT " + std::to_string(c.maxT) +
                                " slots out of range (1 to 2^20)");
  const auto k = static_cast<size_t>(c.envs), n = static_cast<size_t>(c.slots());
  std::vector<Env> envs;
  for (size_t i = 0; i < k; ++i) envs.push_back(resetEnv(rng));
  std::vector<float> states(n * 4, 0.f), mask(n, 0.f), returns(n, 0.f), current(k * 4);
  std::vector<int32_t> actions(n, 0);
  std::vector<bool> live(k);
  Rollout r;
  r.episodeLengths.assign(k, 0);
  for (size_t t = 0; t < static_cast<size_t>(c.maxT); ++t) {
    bool any = false;
    for (size_t i = 0; i < k; ++i) {
      live[i] = !envs[i].done;
      any = any || live[i];
      current[i * 4] = static_cast<float>(envs[i].x);
      current[i * 4 + 1] = static_cast<float>(envs[i].xDot);
      current[i * 4 + 2] = static_cast<float>(envs[i].theta);
      current[i * 4 + 3] = static_cast<float>(envs[i].thetaDot);
    }
    if (!any) break;
    const std::vector<int32_t> chosen = policy(current, live);
    if (chosen.size() != k)
      throw std::runtime_error("cartpole policy returned " + std::to_string(chosen.size()) + " actions for " +
                               std::to_string(k) + " environments");
    for (size_t i = 0; i < k; ++i) {
      if (!live[i]) continue;
      const size_t idx = t * k + i;
      std::copy(current.begin() + static_cast<ptrdiff_t>(i * 4), current.begin() + static_cast<ptrdiff_t>(i * 4 + 4),
                states.begin() + static_cast<ptrdiff_t>(idx * 4));
      actions[idx] = chosen[i];
      mask[idx] = 1.f;
      ++r.episodeLengths[i];
      envs[i] = stepEnv(envs[i], chosen[i]);
    }
  }
  // Discounted returns (reward 1 per live step), per episode by a reverse scan.
  for (size_t i = 0; i < k; ++i) {
    double acc = 0;
    for (size_t t = static_cast<size_t>(c.maxT); t-- > 0;) {
      const size_t idx = t * k + i;
      if (mask[idx] == 0.f) continue;
      acc = 1.0 + kGamma * acc;
      returns[idx] = static_cast<float>(acc);
    }
  }
  normalizeMasked(returns, mask);
  r.feed = {{"states", std::move(states)}, {"actions", std::move(actions)}, {"returns", std::move(returns)},
            {"mask", std::move(mask)}};
  return r;
}

}  // namespace tg_models::cartpole
