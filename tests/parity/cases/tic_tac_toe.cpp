// samples/tic-tac-toe at upstream's sizes (cases/tic_tac_toe.mjs is the upstream side).
#include <tensorgrad/models/tic_tac_toe_game.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

const tg_models::TicTacToeConfig kConfig{
    .games = 16, .maxMoves = 9, .stateDim = 27, .actions = 9, .hidden = 64, .seed = 42};

using tg_models::tictactoe::Game;
using tg_models::tictactoe::packState;
using tg_models::tictactoe::randomMove;

// main.ts's rollout with uniformly random legal moves ([9 · games] slots, move-major).
tg::Feed rollout(tg::Mulberry32& rng) {
  const auto random = [&](const std::vector<float>&, const std::vector<const Game*>& games) {
    std::vector<int> moves;
    for (const Game* g : games) moves.push_back(randomMove(*g, rng));
    return moves;
  };
  return tg_models::tictactoe::rollout(kConfig, random, tg_models::tictactoe::Opponent::Self, rng);
}

// The games boards of a rollout `moves` (0–4) plies in: no game has ended yet.
tg::Feed rolloutBoards(tg::Mulberry32& rng) {
  const auto moves = static_cast<int>(rng.next() * 5);
  const auto sd = static_cast<size_t>(kConfig.stateDim);
  std::vector<float> state(static_cast<size_t>(kConfig.games) * sd, 0.f);
  for (size_t i = 0; i < static_cast<size_t>(kConfig.games); ++i) {
    Game g;
    for (int j = 0; j < moves; ++j) g = tg_models::tictactoe::applyMove(g, randomMove(g, rng));
    packState(g, state, i * sd);
  }
  return {{"state", std::move(state)}};
}

// One board 0–7 plies into a game (fewer if it ended), as when the model plays a person.
tg::Feed oneBoard(tg::Mulberry32& rng) {
  const auto moves = static_cast<int>(rng.next() * 8);
  Game g;
  for (int j = 0; j < moves && !g.done; ++j) g = tg_models::tictactoe::applyMove(g, randomMove(g, rng));
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
