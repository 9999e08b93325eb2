// The environments the sample apps and parity cases play (tensorgrad/models): the tic-tac-toe engine
// and its rollouts, the cart-pole simulation and its rollouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include <tensorgrad/models/cartpole_env.h>
#include <tensorgrad/models/tic_tac_toe_game.h>

namespace {

namespace ttt = tg_models::tictactoe;

const tg_models::TicTacToeConfig kConfig{.games = 8, .seed = 1};

// A policy playing the first empty cell, counting how often it is asked.
struct FirstEmpty {
  int calls = 0;
  std::vector<int> operator()(const std::vector<float>& boards, const std::vector<const ttt::Game*>& games) {
    ++calls;
    EXPECT_EQ(boards.size(), games.size() * 27);
    std::vector<int> moves;
    for (const ttt::Game* g : games) {
      int cell = 0;
      while (g->cells[static_cast<size_t>(cell)] != 0) ++cell;
      moves.push_back(cell);
    }
    return moves;
  }
};

int count(const std::vector<float>& board, size_t from, size_t to) {
  int n = 0;
  for (size_t i = from; i < to; ++i) n += board[i] != 0.f;
  return n;
}

TEST(TicTacToe, WinsDrawsAndIllegalMoves) {
  ttt::Game g;
  for (int cell : {0, 3, 1, 4}) g = ttt::applyMove(g, cell);
  EXPECT_FALSE(g.done);
  g = ttt::applyMove(g, 2);  // the top row for the first player
  EXPECT_TRUE(g.done);
  EXPECT_EQ(g.winner, 0);
  EXPECT_THROW(ttt::applyMove(g, 5), std::invalid_argument);  // the game is over
  EXPECT_THROW(ttt::applyMove(ttt::applyMove(ttt::Game{}, 4), 4), std::invalid_argument);
  EXPECT_THROW(ttt::applyMove(ttt::Game{}, 9), std::invalid_argument);
  ttt::Game draw;
  for (int cell : {0, 1, 2, 4, 3, 5, 7, 6, 8}) draw = ttt::applyMove(draw, cell);
  EXPECT_TRUE(draw.done);
  EXPECT_EQ(draw.winner, -1);
}

TEST(TicTacToe, BoardsAreFromTheMoversView) {
  const ttt::Game g = ttt::applyMove(ttt::Game{}, 4);  // the second player to move
  std::vector<float> board(27);
  ttt::packState(g, board, 0);
  EXPECT_EQ(board[4], 0.f);       // not empty
  EXPECT_EQ(board[9 + 4], 0.f);   // not the mover's
  EXPECT_EQ(board[18 + 4], 1.f);  // the opponent's
  EXPECT_EQ(count(board, 0, 9), 8);
}

TEST(TicTacToe, SelfPlayRecordsEveryMoveWithNormalizedOutcomes) {
  FirstEmpty policy;
  tg::Mulberry32 rng(3);
  const double before = tg::Mulberry32(3).next();
  const tg::Feed f = ttt::rollout(kConfig, std::ref(policy), ttt::Opponent::Self, rng);
  EXPECT_EQ(rng.next(), before);  // self-play draws nothing
  // First-empty play: the first player takes 0, 2, 4, 6 and wins on the 2-4-6 diagonal at ply 7.
  const std::vector<float>& mask = f.at("mask").f32();
  const std::vector<float>& outcomes = f.at("outcomes").f32();
  double recorded = 0, sum = 0, squares = 0;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0.f) ++recorded, sum += outcomes[i], squares += outcomes[i] * outcomes[i];
  EXPECT_EQ(recorded, 7 * kConfig.games);
  EXPECT_NEAR(sum / recorded, 0, 1e-6);
  EXPECT_NEAR(squares / recorded, 1, 1e-6);
  EXPECT_EQ(policy.calls, 7);
}

TEST(TicTacToe, AgainstARandomPlayerOnlyThePolicysMovesAreRecorded) {
  FirstEmpty policy;
  tg::Mulberry32 rng(5);
  const tg::Feed f = ttt::rollout(kConfig, std::ref(policy), ttt::Opponent::Random, rng);
  const std::vector<float>& states = f.at("states").f32();
  const std::vector<float>& mask = f.at("mask").f32();
  const std::vector<float>& outcomes = f.at("outcomes").f32();
  const auto k = static_cast<size_t>(kConfig.games);
  for (size_t i = 0; i < k; ++i) {
    float outcome = 0;
    int moves = 0;
    for (size_t move = 0; move < 9; ++move) {
      const size_t idx = move * k + i;
      if (mask[idx] == 0.f) continue;
      // The policy plays first in even games: it has as many marks as its opponent when it
      // moves; second in odd games: one fewer.
      EXPECT_EQ(move % 2, i % 2) << "game " << i << " move " << move;
      const size_t at = idx * 27;
      EXPECT_EQ(count(states, at + 18, at + 27) - count(states, at + 9, at + 18), static_cast<int>(i % 2));
      EXPECT_TRUE(outcomes[idx] == 1.f || outcomes[idx] == 0.f || outcomes[idx] == -1.f) << outcomes[idx];
      if (moves++ > 0) {
        EXPECT_EQ(outcomes[idx], outcome);  // one outcome per game
      }
      outcome = outcomes[idx];
    }
    EXPECT_GE(moves, 2);
  }
}

TEST(TicTacToe, RolloutRejectsBadConfigs) {
  FirstEmpty policy;
  tg::Mulberry32 rng(1);
  tg_models::TicTacToeConfig c = kConfig;
  c.games = 0;
  EXPECT_THROW(ttt::rollout(c, std::ref(policy), ttt::Opponent::Self, rng), std::invalid_argument);
  c = kConfig;
  c.stateDim = 18;
  EXPECT_THROW(ttt::rollout(c, std::ref(policy), ttt::Opponent::Self, rng), std::invalid_argument);
}

}  // namespace

namespace {

namespace cp = tg_models::cartpole;

TEST(Cartpole, ResetsNearUprightAndAPushMovesTheCart) {
  tg::Mulberry32 rng(7);
  const cp::Env e = cp::resetEnv(rng);
  for (double v : {e.x, e.xDot, e.theta, e.thetaDot}) {
    EXPECT_GE(v, -0.05);
    EXPECT_LT(v, 0.05);
  }
  const cp::Env upright{};
  const cp::Env right = cp::stepEnv(upright, 1), left = cp::stepEnv(upright, 0);
  EXPECT_GT(right.xDot, 0);  // pushed right, the cart speeds right and the pole tips left
  EXPECT_LT(right.thetaDot, 0);
  EXPECT_DOUBLE_EQ(left.xDot, -right.xDot);
  EXPECT_FALSE(right.done);
}

TEST(Cartpole, PushingOneWayEndsTheEpisodeWithinTheBounds) {
  cp::Env e{};
  int steps = 0;
  while (!e.done && steps < 200) e = cp::stepEnv(e, 1), ++steps;
  EXPECT_TRUE(e.done);
  EXPECT_LT(steps, 200);
  EXPECT_TRUE(std::abs(e.theta) > 12 * std::numbers::pi / 180 || std::abs(e.x) > 2.4);
}

TEST(Cartpole, RolloutRecordsLiveStepsWithNormalizedReturns) {
  const tg_models::CartpoleConfig c{.envs = 4, .maxT = 50, .seed = 1};
  tg::Mulberry32 rng(3);
  int calls = 0;
  const auto alwaysRight = [&](const std::vector<float>& states, const std::vector<bool>& live) {
    ++calls;
    EXPECT_EQ(states.size(), live.size() * 4);
    return std::vector<int32_t>(live.size(), 1);
  };
  const cp::Rollout r = cp::rollout(c, rng, alwaysRight);
  const std::vector<float>& mask = r.feed.at("mask").f32();
  const std::vector<float>& returns = r.feed.at("returns").f32();
  int64_t live = 0;
  double sum = 0, squares = 0;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0.f) ++live, sum += returns[i], squares += returns[i] * returns[i];
  int64_t lengths = 0, longest = 0;
  for (int64_t l : r.episodeLengths) lengths += l, longest = std::max(longest, l);
  EXPECT_EQ(live, lengths);
  EXPECT_EQ(calls, longest);  // not called once every episode has ended
  EXPECT_LT(longest, c.maxT);
  EXPECT_NEAR(sum / static_cast<double>(live), 0, 1e-6);
  EXPECT_NEAR(squares / static_cast<double>(live), 1, 1e-5);
  // Within an episode the return falls with time (fewer steps left).
  const auto k = static_cast<size_t>(c.envs);
  EXPECT_GT(returns[0 * k], returns[1 * k]);
}

}  // namespace
