// samples/tic-tac-toe at upstream's sizes (cases/tic_tac_toe.mjs is the upstream side).
#include <algorithm>
#include <array>
#include <cmath>

#include "../../../samples/models/tic_tac_toe.h"
#include "../parity_case.h"

namespace tg_parity {
namespace {

const tg_models::TicTacToeConfig kConfig{
    .games = 16, .maxMoves = 9, .stateDim = 27, .actions = 9, .hidden = 64, .seed = 42};

// The game engine of main.ts: cells 0 = empty, 1 = player 0, 2 = player 1.
struct Game {
  std::array<int8_t, 9> cells{};
  int turn = 0;
  bool done = false;
  int winner = -1;  // -1 draw (or not over), else the winning player
};

constexpr int kLines[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                              {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};

bool checkWin(const std::array<int8_t, 9>& cells, int p) {
  for (const auto& l : kLines)
    if (cells[static_cast<size_t>(l[0])] == p && cells[static_cast<size_t>(l[1])] == p &&
        cells[static_cast<size_t>(l[2])] == p)
      return true;
  return false;
}

Game applyMove(const Game& g, int cell) {
  Game n;
  n.cells = g.cells;
  const int piece = g.turn == 0 ? 1 : 2;
  n.cells[static_cast<size_t>(cell)] = static_cast<int8_t>(piece);
  if (checkWin(n.cells, piece)) {
    n.done = true;
    n.winner = g.turn;
  } else if (std::all_of(n.cells.begin(), n.cells.end(), [](int8_t c) { return c != 0; })) {
    n.done = true;
  }
  n.turn = g.turn ^ 1;
  return n;
}

// The mover's view: 9 empty, 9 mine, 9 theirs.
void packState(const Game& g, std::vector<float>& out, size_t offset) {
  const int me = g.turn == 0 ? 1 : 2;
  for (size_t i = 0; i < 9; ++i) {
    const int c = g.cells[i];
    out[offset + i] = c == 0 ? 1.f : 0.f;
    out[offset + 9 + i] = c == me ? 1.f : 0.f;
    out[offset + 18 + i] = c != 0 && c != me ? 1.f : 0.f;
  }
}

int randomMove(const Game& g, tg::Mulberry32& rng) {
  std::vector<int> empties;
  for (int i = 0; i < 9; ++i)
    if (g.cells[static_cast<size_t>(i)] == 0) empties.push_back(i);
  return empties[static_cast<size_t>(rng.next() * static_cast<double>(empties.size()))];
}

// main.ts's rollout with uniformly random legal moves ([9 · games] slots, move-major).
tg::Feed rollout(tg::Mulberry32& rng) {
  const int64_t k = kConfig.games, maxMoves = kConfig.maxMoves, n = kConfig.slots();
  const auto sd = static_cast<size_t>(kConfig.stateDim);
  std::vector<Game> games(static_cast<size_t>(k));
  std::vector<float> states(static_cast<size_t>(n) * sd, 0.f), mask(static_cast<size_t>(n), 0.f),
      outcomes(static_cast<size_t>(n), 0.f);
  std::vector<int32_t> actions(static_cast<size_t>(n), 0);
  std::vector<int> player(static_cast<size_t>(n), 0);
  for (int64_t move = 0; move < maxMoves; ++move) {
    for (int64_t i = 0; i < k; ++i) {
      Game& g = games[static_cast<size_t>(i)];
      if (g.done) continue;
      const auto idx = static_cast<size_t>(move * k + i);
      const int a = randomMove(g, rng);
      packState(g, states, idx * sd);
      actions[idx] = a;
      player[idx] = g.turn;
      mask[idx] = 1.f;
      g = applyMove(g, a);
    }
  }
  for (int64_t i = 0; i < k; ++i) {
    const int w = games[static_cast<size_t>(i)].winner;
    for (int64_t move = 0; move < maxMoves; ++move) {
      const auto idx = static_cast<size_t>(move * k + i);
      if (mask[idx] == 0.f) continue;
      outcomes[idx] = w == -1 ? 0.f : player[idx] == w ? 1.f : -1.f;
    }
  }
  int64_t count = 0;
  double s1 = 0;
  for (size_t i = 0; i < outcomes.size(); ++i)
    if (mask[i] != 0.f) {
      s1 += static_cast<double>(outcomes[i]);
      ++count;
    }
  const double meanO = count > 0 ? s1 / static_cast<double>(count) : 0;
  double vs = 0;
  for (size_t i = 0; i < outcomes.size(); ++i)
    if (mask[i] != 0.f) {
      const double d = static_cast<double>(outcomes[i]) - meanO;
      vs += d * d;
    }
  const double stdO = std::sqrt(vs / static_cast<double>(std::max<int64_t>(1, count))) + 1e-8;
  for (size_t i = 0; i < outcomes.size(); ++i)
    if (mask[i] != 0.f)
      outcomes[i] = static_cast<float>((static_cast<double>(outcomes[i]) - meanO) / stdO);
  return {{"states", std::move(states)},
          {"actions", std::move(actions)},
          {"outcomes", std::move(outcomes)},
          {"mask", std::move(mask)}};
}

// The games boards of a rollout `moves` (0–4) plies in: no game has ended yet.
tg::Feed rolloutBoards(tg::Mulberry32& rng) {
  const auto moves = static_cast<int>(rng.next() * 5);
  const auto sd = static_cast<size_t>(kConfig.stateDim);
  std::vector<float> state(static_cast<size_t>(kConfig.games) * sd, 0.f);
  for (size_t i = 0; i < static_cast<size_t>(kConfig.games); ++i) {
    Game g;
    for (int j = 0; j < moves; ++j) g = applyMove(g, randomMove(g, rng));
    packState(g, state, i * sd);
  }
  return {{"state", std::move(state)}};
}

// One board 0–7 plies into a game (fewer if it ended), as when the model plays a person.
tg::Feed oneBoard(tg::Mulberry32& rng) {
  const auto moves = static_cast<int>(rng.next() * 8);
  Game g;
  for (int j = 0; j < moves && !g.done; ++j) g = applyMove(g, randomMove(g, rng));
  std::vector<float> state(static_cast<size_t>(kConfig.stateDim), 0.f);
  packState(g, state, 0);
  return {{"state", std::move(state)}};
}

Recorded run(const tg::RuntimeOptions& options) {
  tg_models::TicTacToePolicy model(kConfig);
  std::vector<ForwardProbe<tg_models::TicTacToePolicy>> forwards;
  forwards.push_back({"rollout", tg_models::ticTacToeActor(kConfig), rolloutBoards});
  forwards.push_back({"move", tg_models::ticTacToeActor(kConfig), oneBoard});
  return recordTraining(tg_models::ticTacToeSpec(model, kConfig), 30, 15, rollout,
                        std::move(forwards), options);
}

const Registrar registrar({"tic_tac_toe", run});

}  // namespace
}  // namespace tg_parity
