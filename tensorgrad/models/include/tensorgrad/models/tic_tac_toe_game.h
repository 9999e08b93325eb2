// Tic-tac-toe for upstream's self-play sample: the game engine (as main.ts plays it), the
// mover's-view board encoding the policy sees, the lockstep rollout REINFORCE trains on (self-play
// as main.ts, or against a uniformly random player), and the evaluation against a random player.
// The app and the parity case (tests/parity/cases/tic_tac_toe.cpp) both play with it.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include <tensorgrad/models/tic_tac_toe.h>

namespace tg_models::tictactoe {

struct Game {
  std::array<int8_t, 9> cells{};  // 0 empty, 1 player 0's mark, 2 player 1's
  int turn = 0;                   // the player to move
  bool done = false;
  int winner = -1;  // -1: a draw, or not over
};

// Plays `cell` for the player to move; throws std::invalid_argument unless it is an empty cell of
// a game still on.
Game applyMove(const Game& g, int cell);
// The mover's view into out[offset, offset + 27): 9 empty flags, 9 mine, 9 theirs.
void packState(const Game& g, std::vector<float>& out, size_t offset);
// A uniformly random empty cell (one draw from `rng`).
int randomMove(const Game& g, tg::Mulberry32& rng);

// `policy(boards, games)` returns one cell per game in `games` (all on, the player to move's
// turn), given their packed boards ([games.size(), 27]).
using Policy = std::function<std::vector<int>(const std::vector<float>& boards, const std::vector<const Game*>& games)>;

// Who plays against the policy in a rollout.
enum class Opponent {
  Self,    // the policy plays both sides (main.ts)
  Random,  // a uniformly random player; the policy is the first player in even games, second in odd
};

// One lockstep rollout of c.games games ([9 · games] slots, move-major): the policy's boards and
// moves, each move's outcome for its player (+1 win, −1 loss, 0 draw), and the mask of recorded
// slots. Self-play normalizes the outcomes over the recorded slots (mean 0, deviation 1) as
// main.ts does; against Opponent::Random they stay ±1 / 0, since centring them there made the
// policy learn less (samples/README.md). The random player's moves (drawn from `rng`) are played
// but not recorded; Opponent::Self draws nothing from `rng`.
tg::Feed rollout(const TicTacToeConfig& c, const Policy& policy, Opponent opponent, tg::Mulberry32& rng);

// Samples a legal cell from probabilities `p[0..9)` renormalized over the empty cells (uniform
// over them when their total is ~0), as main.ts's sampleMaskedAction.
int sampleLegal(const float* p, const Game& g, tg::Mulberry32& rng);
// The legal cell with the highest probability.
int bestLegal(const float* p, const Game& g);

struct Score {
  int wins = 0, draws = 0, losses = 0;
  int games() const { return wins + draws + losses; }
};
// `perSide` games with the model as the first player and `perSide` as the second, the model
// playing `policy`, the opponent uniformly random moves from `rng`; all games in lockstep.
Score versusRandom(int perSide, const Policy& policy, tg::Mulberry32& rng);

}  // namespace tg_models::tictactoe
