// samples/cartpole: REINFORCE on the cart-pole (tensorgrad/models/cartpole.h: a 4 → 16 → 2 tanh MLP
// policy, Adam 5e-3). Each training step plays 16 episodes in lockstep for up to 200 steps, the
// actions sampled from the attached policy forward (one run per time step for all 16 states, as
// upstream's main.ts), then trains on the log-probabilities of the actions taken weighted by their
// normalized discounted returns. The return of an episode is its length (reward 1 per step, 200
// at most). Pictures: the loss curve and the mean episode length per rollout.
#include <algorithm>
#include <cstdio>

#include <tensorgrad/models/cartpole_env.h>
#include "support/app.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/train_loop.h"

namespace {

using tg_models::CartpoleConfig;
using tg_models::CartpolePolicy;
namespace cp = tg_models::cartpole;

// tests/parity/cases/cartpole.cpp: 8 envs × 40 steps, parameter seed 42, a coin-flip policy on
// Mulberry32(14) (the same stream as the resets).
int parityRun(tg_samples::CommonOptions& o) {
  const CartpoleConfig c{.envs = 8, .maxT = 40, .stateDim = 4, .actions = 2, .hidden = 16, .seed = 42};
  o.steps = tg_samples::goldenSteps(o.parityGolden);
  tg_samples::startApp(o);
  CartpolePolicy model(c);
  auto train = tg::compile(tg_models::cartpoleSpec(model, c), tg_samples::runtimeOptions(o));
  tg::Mulberry32 rng(14);
  const auto coin = [&](const std::vector<float>&, const std::vector<bool>& live) {
    std::vector<int32_t> a(live.size(), 0);
    for (size_t i = 0; i < live.size(); ++i)
      if (live[i]) a[i] = static_cast<int32_t>(rng.next() * static_cast<double>(c.actions));
    return a;
  };
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) { return cp::rollout(c, rng, coin).feed; });
  return tg_samples::compareWithGolden(o.parityGolden, stats.losses);
}

// Draws from the categorical distribution `p[0..n)` with one uniform, as main.ts's sampleCategorical.
int32_t sampleCategorical(const float* p, int64_t n, double u) {
  for (int64_t i = 0; i < n; ++i) {
    u -= static_cast<double>(p[i]);
    if (u < 0) return static_cast<int32_t>(i);
  }
  return static_cast<int32_t>(n - 1);
}

int run(tg_samples::CommonOptions& o, CartpoleConfig c, int evalEpisodes) {
  if (!o.parityGolden.empty()) return parityRun(o);
  const std::string adapter = tg_samples::startApp(o);
  c.seed = o.seed;
  CartpolePolicy model(c);
  auto train = tg::compile(tg_models::cartpoleSpec(model, c), tg_samples::runtimeOptions(o));
  auto actor = train.attach(tg_models::cartpoleActor(c));
  tg::Mulberry32 rng(o.seed ^ 0x9e3779b9u);
  const auto probs = [&](const std::vector<float>& states) {
    std::vector<float> p = tg_samples::checkRun(actor.run({{"state", states}}).get(), "policy").f32();
    if (p.size() != static_cast<size_t>(c.envs * c.actions)) throw std::runtime_error("policy: unexpected output size");
    return p;
  };
  const auto sampled = [&](const std::vector<float>& states, const std::vector<bool>& live) {
    const std::vector<float> p = probs(states);
    std::vector<int32_t> a(live.size(), 0);
    for (size_t i = 0; i < live.size(); ++i)
      if (live[i]) a[i] = sampleCategorical(p.data() + i * static_cast<size_t>(c.actions), c.actions, rng.next());
    return a;
  };
  const auto greedy = [&](const std::vector<float>& states, const std::vector<bool>& live) {
    const std::vector<float> p = probs(states);
    std::vector<int32_t> a(live.size(), 0);
    for (size_t i = 0; i < live.size(); ++i) {
      const float* row = p.data() + i * static_cast<size_t>(c.actions);
      a[i] = static_cast<int32_t>(std::max_element(row, row + c.actions) - row);
    }
    return a;
  };

  tg_samples::Series lengths{.label = "mean episode length per rollout", .color = tg_samples::colors::lightBlue, .width = 1};
  tg_samples::Series smooth{.label = "moving average (10 rollouts)", .color = tg_samples::colors::blue};
  const auto stats = tg_samples::runLoop(o.steps, o.logEvery, [&](int i) {
    cp::Rollout r = cp::rollout(c, rng, sampled);
    lengths.x.push_back(i + 1), lengths.y.push_back(r.meanLength());
    const size_t from = lengths.y.size() >= 10 ? lengths.y.size() - 10 : 0;
    double avg = 0;
    for (size_t j = from; j < lengths.y.size(); ++j) avg += lengths.y[j] / static_cast<double>(lengths.y.size() - from);
    smooth.x.push_back(i + 1), smooth.y.push_back(avg);
    const tg::StepResult s = train.step(std::move(r.feed)).get();
    tg_samples::checkStep(s, i);
    return s.loss;
  });
  // The trained policy acting greedily (argmax), on fresh episodes.
  double greedyLength = 0;
  const int rounds = (evalEpisodes + static_cast<int>(c.envs) - 1) / static_cast<int>(c.envs);
  for (int i = 0; i < rounds; ++i) greedyLength += cp::rollout(c, rng, greedy).meanLength() / rounds;
  const double first = lengths.y.empty() ? 0 : lengths.y.front(), last = smooth.y.empty() ? 0 : smooth.y.back();
  std::printf("%d rollouts (%.1f ms each, rollout and step); mean episode length %.1f at the first rollout, %.1f over "
              "the last 10 (of %lld)\n",
              o.steps, stats.msPerStep(), first, last, static_cast<long long>(c.maxT));
  std::printf("greedy policy: mean episode length %.1f over %lld episodes\n", greedyLength,
              static_cast<long long>(rounds * c.envs));

  tg_samples::Results results("cartpole", o, adapter);
  results.loop(stats);
  results.metric("firstMeanEpisodeLength", first);
  results.metric("lastMeanEpisodeLength10", last);
  results.metric("greedyMeanEpisodeLength", greedyLength);
  results.metric("maxEpisodeLength", c.maxT);
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "CARTPOLE: REINFORCE SURROGATE LOSS");
  results.picture("loss.png", "REINFORCE surrogate loss per rollout (not a measure of skill)");
  tg_samples::writePng(o.out / "returns.png",
                       tg_samples::renderPlot({.title = "CARTPOLE: EPISODE RETURN (LENGTH) PER ROLLOUT",
                                               .xLabel = "rollout", .yLabel = "steps balanced",
                                               .yRange = std::pair{0.0, static_cast<double>(c.maxT)},
                                               .series = {lengths, smooth}}));
  results.picture("returns.png", "mean episode return (= length, at most 200) of the 16 episodes of each rollout");
  std::printf("wrote %s, loss.png, returns.png\n", results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's cartpole sample (REINFORCE with a small policy MLP) on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 150, .seed = 42, .out = "out/cartpole"};
  tg_samples::addCommonOptions(app, o);
  CartpoleConfig c;  // upstream's sizes
  int evalEpisodes = 32;
  app.add_option("--envs", c.envs, "episodes per rollout")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{1024}));
  app.add_option("--max-t", c.maxT, "longest episode")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{1000}));
  app.add_option("--eval-episodes", evalEpisodes, "greedy episodes after training")->capture_default_str()->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  return tg_samples::runMain([&] { return run(o, c, evalEpisodes); });
}
