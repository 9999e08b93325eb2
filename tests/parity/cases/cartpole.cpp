// samples/cartpole at small sizes (cases/cartpole.mjs is the upstream side).
#include <array>

#include <tensorgrad/models/cartpole_env.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

const tg_models::CartpoleConfig kConfig{
    .envs = 8, .maxT = 40, .stateDim = 4, .actions = 2, .hidden = 16, .seed = 42};

// main.ts's rollout with a coin-flip policy: states, actions, normalized discounted returns and
// the mask of live slots ([maxT · envs], time-major).
tg::Feed rollout(tg::Mulberry32& rng) {
  const auto coin = [&](const std::vector<float>&, const std::vector<bool>& live) {
    std::vector<int32_t> a(live.size(), 0);
    for (size_t i = 0; i < live.size(); ++i)
      if (live[i]) a[i] = static_cast<int32_t>(rng.next() * static_cast<double>(kConfig.actions));
    return a;
  };
  return tg_models::cartpole::rollout(kConfig, rng, coin).feed;
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
