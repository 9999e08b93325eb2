// samples/tic-tac-toe: REINFORCE (tensorgrad/models/tic_tac_toe.h: a 27 → 64 → 64 → 9 tanh MLP,
// Adam; the engine is tensorgrad/models/tic_tac_toe_game.h). Each training step plays 16 games in
// lockstep, moves sampled from the attached policy forward renormalized over the empty cells, and
// trains on every recorded move's log-probability weighted by its game's outcome for the player
// who made it (normalized over the rollout in self-play, as main.ts). --opponent self is main.ts's
// self-play; the default plays a uniformly random player instead and records only the policy's
// moves (main.ts's self-play does not get better against a random player: see samples/README.md).
// Every --eval-every steps the greedy policy plays a random player, half the games as first
// player, half as second (upstream's evalVsRandom, but in lockstep batches). Pictures: the loss
// curve and the win / draw / loss rates against the random player.
#include <cstdio>
#include <map>
#include <string>

#include <tensorgrad/models/tic_tac_toe_game.h>
#include "support/app.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/train_loop.h"

namespace {

using tg_models::TicTacToeConfig;
using tg_models::TicTacToePolicy;
namespace ttt = tg_models::tictactoe;

// tests/parity/cases/tic_tac_toe.cpp: upstream's sizes, parameter seed 42, uniformly random legal
// moves from Mulberry32(15).
int parityRun(tg_samples::CommonOptions& o) {
  const TicTacToeConfig c{.games = 16, .maxMoves = 9, .stateDim = 27, .actions = 9, .hidden = 64, .seed = 42};
  o.steps = tg_samples::goldenSteps(o.parityGolden);
  tg_samples::startApp(o);
  TicTacToePolicy model(c);
  auto train = tg::compile(tg_models::ticTacToeSpec(model, c), tg_samples::runtimeOptions(o));
  tg::Mulberry32 rng(15);
  const auto random = [&](const std::vector<float>&, const std::vector<const ttt::Game*>& games) {
    std::vector<int> moves;
    for (const ttt::Game* g : games) moves.push_back(ttt::randomMove(*g, rng));
    return moves;
  };
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) { return ttt::rollout(c, random, ttt::Opponent::Self, rng); });
  return tg_samples::compareWithGolden(o.parityGolden, stats.losses);
}

int run(tg_samples::CommonOptions& o, TicTacToeConfig c, int evalEvery, int evalGames, double lr, ttt::Opponent opponent) {
  if (!o.parityGolden.empty()) return parityRun(o);
  const std::string adapter = tg_samples::startApp(o);
  c.seed = o.seed;
  TicTacToePolicy model(c);
  tg::TrainingSpec<TicTacToePolicy> spec = tg_models::ticTacToeSpec(model, c);
  spec.optimizer = tg::Adam{{}, lr};
  auto train = tg::compile(spec, tg_samples::runtimeOptions(o));
  auto actor = train.attach(tg_models::ticTacToeActor(c));
  tg::Mulberry32 rng(o.seed ^ 0x9e3779b9u), evalRng(o.seed + 1);
  const auto probs = [&](const std::vector<float>& boards, size_t n) {
    std::vector<float> p = tg_samples::checkRun(actor.run({{"state", boards}}).get(), "policy").f32();
    if (p.size() != n * 9) throw std::runtime_error("policy: unexpected output size");
    return p;
  };
  const auto sampled = [&](const std::vector<float>& boards, const std::vector<const ttt::Game*>& games) {
    const std::vector<float> p = probs(boards, games.size());
    std::vector<int> moves;
    for (size_t j = 0; j < games.size(); ++j) moves.push_back(ttt::sampleLegal(p.data() + 9 * j, *games[j], rng));
    return moves;
  };
  const auto greedy = [&](const std::vector<float>& boards, const std::vector<const ttt::Game*>& games) {
    const std::vector<float> p = probs(boards, games.size());
    std::vector<int> moves;
    for (size_t j = 0; j < games.size(); ++j) moves.push_back(ttt::bestLegal(p.data() + 9 * j, *games[j]));
    return moves;
  };

  tg_samples::Series winS{.label = "win", .color = tg_samples::colors::green};
  tg_samples::Series drawS{.label = "draw", .color = tg_samples::colors::orange};
  tg_samples::Series lossS{.label = "loss", .color = tg_samples::colors::red};
  tg_samples::Series okS{.label = "win + draw", .color = tg_samples::colors::blue, .width = 3};
  ttt::Score last;
  auto evaluate = [&](int step) {
    last = ttt::versusRandom(evalGames / 2, greedy, evalRng);
    const double n = last.games();
    winS.x.push_back(step), winS.y.push_back(last.wins / n);
    drawS.x.push_back(step), drawS.y.push_back(last.draws / n);
    lossS.x.push_back(step), lossS.y.push_back(last.losses / n);
    okS.x.push_back(step), okS.y.push_back((last.wins + last.draws) / n);
  };
  evaluate(0);
  const ttt::Score before = last;
  const auto stats = tg_samples::trainLoop(
      train, o.steps, o.logEvery, [&](int) { return ttt::rollout(c, sampled, opponent, rng); },
      [&](int i, float) {
        if ((i + 1) % evalEvery == 0 || i + 1 == o.steps) evaluate(i + 1);
      });
  const auto pct = [](int k, int n) { return 100.0 * k / n; };
  std::printf("%d rollouts against %s (%.1f ms each, rollout and step)\n", o.steps,
              opponent == ttt::Opponent::Self ? "itself" : "a random player", stats.msPerStep());
  std::printf("greedy policy vs a random player over %d games: before training win %.1f%% draw %.1f%% loss %.1f%%; "
              "after: win %.1f%% draw %.1f%% loss %.1f%%\n",
              last.games(), pct(before.wins, before.games()), pct(before.draws, before.games()),
              pct(before.losses, before.games()), pct(last.wins, last.games()), pct(last.draws, last.games()),
              pct(last.losses, last.games()));

  tg_samples::Results results("tic_tac_toe", o, adapter);
  results.loop(stats);
  results.metric("opponent", opponent == ttt::Opponent::Self ? "self" : "random");
  results.metric("evalGames", last.games());
  results.metric("before", {{"wins", before.wins}, {"draws", before.draws}, {"losses", before.losses}});
  results.metric("after", {{"wins", last.wins}, {"draws", last.draws}, {"losses", last.losses}});
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "TIC-TAC-TOE: REINFORCE SURROGATE LOSS");
  results.picture("loss.png", "REINFORCE surrogate loss per rollout (not a measure of skill)");
  tg_samples::writePng(o.out / "vs_random.png",
                       tg_samples::renderPlot({.title = "GREEDY POLICY VS A RANDOM PLAYER", .xLabel = "step",
                                               .yLabel = "fraction of games", .yRange = std::pair{0.0, 1.0},
                                               .series = {okS, winS, drawS, lossS}}));
  results.picture("vs_random.png", "win, draw and loss rates of the greedy policy against a uniformly random player");
  std::printf("wrote %s, loss.png, vs_random.png\n", results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's tic-tac-toe sample (REINFORCE policy gradient, against a random player or itself) on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 3000, .seed = 42, .out = "out/tic_tac_toe"};
  tg_samples::addCommonOptions(app, o);
  TicTacToeConfig c;  // upstream's sizes
  int evalEvery = 250, evalGames = 200;
  double lr = 5e-3;
  app.add_option("--lr", lr, "Adam's learning rate (upstream: 5e-3)")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--games", c.games, "self-play games per rollout")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{4096}));
  app.add_option("--eval-every", evalEvery, "steps between evaluations against the random player")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--eval-games", evalGames, "games per evaluation (half as each side)")->capture_default_str()->check(CLI::Range(2, 100000));
  ttt::Opponent opponent = ttt::Opponent::Random;
  app.add_option("--opponent", opponent, "who the policy plays while training: random (default) or self (main.ts's self-play)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, ttt::Opponent>{{"random", ttt::Opponent::Random}, {"self", ttt::Opponent::Self}}))
      ->default_str("random");
  CLI11_PARSE(app, argc, argv);
  return tg_samples::runMain([&] { return run(o, c, evalEvery, evalGames, lr, opponent); });
}
