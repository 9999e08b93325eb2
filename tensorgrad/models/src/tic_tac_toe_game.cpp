#include <tensorgrad/models/tic_tac_toe_game.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <tensorgrad/models/normalize_masked.h>

namespace tg_models::tictactoe {
namespace {

constexpr int kLines[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};

bool wins(const std::array<int8_t, 9>& cells, int piece) {
  for (const auto& l : kLines)
    if (cells[static_cast<size_t>(l[0])] == piece && cells[static_cast<size_t>(l[1])] == piece &&
        cells[static_cast<size_t>(l[2])] == piece)
      return true;
  return false;
}

std::vector<int> empties(const Game& g) {
  std::vector<int> e;
  for (int i = 0; i < 9; ++i)
    if (g.cells[static_cast<size_t>(i)] == 0) e.push_back(i);
  return e;
}

}  // namespace

Game applyMove(const Game& g, int cell) {
  if (g.done) throw std::invalid_argument("tic-tac-toe: a move in a finished game");
  if (cell < 0 || cell > 8 || g.cells[static_cast<size_t>(cell)] != 0)
    throw std::invalid_argument("tic-tac-toe: cell " + std::to_string(cell) + " is not an empty cell");
  Game n = g;
  const int piece = g.turn == 0 ? 1 : 2;
  n.cells[static_cast<size_t>(cell)] = static_cast<int8_t>(piece);
  if (wins(n.cells, piece)) {
    n.done = true;
    n.winner = g.turn;
  } else if (std::all_of(n.cells.begin(), n.cells.end(), [](int8_t c) { return c != 0; })) {
    n.done = true;
  }
  n.turn = g.turn ^ 1;
  return n;
}

void packState(const Game& g, std::vector<float>& out, size_t offset) {
  if (offset + 27 > out.size()) throw std::out_of_range("tic-tac-toe: board offset past the buffer");
  const int me = g.turn == 0 ? 1 : 2;
  for (size_t i = 0; i < 9; ++i) {
    const int c = g.cells[i];
    out[offset + i] = c == 0 ? 1.f : 0.f;
    out[offset + 9 + i] = c == me ? 1.f : 0.f;
    out[offset + 18 + i] = c != 0 && c != me ? 1.f : 0.f;
  }
}

int randomMove(const Game& g, tg::Mulberry32& rng) {
  const std::vector<int> e = empties(g);
  if (e.empty()) throw std::invalid_argument("tic-tac-toe: no empty cell");
  return e[static_cast<size_t>(rng.next() * static_cast<double>(e.size()))];
}

int sampleLegal(const float* p, const Game& g, tg::Mulberry32& rng) {
  double total = 0;
  for (int i = 0; i < 9; ++i)
    if (g.cells[static_cast<size_t>(i)] == 0) total += static_cast<double>(p[i]);
  if (total < 1e-12) return randomMove(g, rng);
  double u = rng.next() * total;
  for (int i = 0; i < 9; ++i) {
    if (g.cells[static_cast<size_t>(i)] != 0) continue;
    u -= static_cast<double>(p[i]);
    if (u < 0) return i;
  }
  return empties(g).back();  // rounding: the last legal cell
}

int bestLegal(const float* p, const Game& g) {
  int best = -1;
  for (int i = 0; i < 9; ++i)
    if (g.cells[static_cast<size_t>(i)] == 0 && (best < 0 || p[i] > p[best])) best = i;
  if (best < 0) throw std::invalid_argument("tic-tac-toe: no empty cell");
  return best;
}

tg::Feed rollout(const TicTacToeConfig& c, const Policy& policy, Opponent opponent, tg::Mulberry32& rng) {
  if (c.stateDim != 27 || c.actions != 9 || c.maxMoves != 9)
    throw std::invalid_argument("tic-tac-toe: the board needs stateDim 27, actions 9, maxMoves 9");
  if (c.games <= 0 || c.games > 65536)
    throw std::invalid_argument("tic-tac-toe: games " + std::to_string(c.games) + " out of range (1 to 65536)");
  const auto k = static_cast<size_t>(c.games), n = static_cast<size_t>(c.slots());
  const auto randomMoves = [&](size_t game, int turn) {
    return opponent == Opponent::Random && turn != static_cast<int>(game % 2);
  };
  std::vector<Game> games(k);
  std::vector<float> states(n * 27, 0.f), mask(n, 0.f), outcomes(n, 0.f), boards;
  std::vector<int32_t> actions(n, 0);
  std::vector<int> player(n, 0);
  for (size_t move = 0; move < 9; ++move) {
    std::vector<const Game*> live;
    std::vector<size_t> which;
    for (size_t i = 0; i < k; ++i) {
      if (games[i].done) continue;
      if (randomMoves(i, games[i].turn)) games[i] = applyMove(games[i], randomMove(games[i], rng));
      else live.push_back(&games[i]), which.push_back(i);
    }
    if (live.empty()) continue;
    boards.assign(live.size() * 27, 0.f);
    for (size_t j = 0; j < live.size(); ++j) packState(*live[j], boards, j * 27);
    const std::vector<int> chosen = policy(boards, live);
    if (chosen.size() != live.size()) throw std::runtime_error("tic-tac-toe policy: wrong number of moves");
    for (size_t j = 0; j < live.size(); ++j) {
      const size_t i = which[j], idx = move * k + i;
      std::copy(boards.begin() + static_cast<ptrdiff_t>(j * 27), boards.begin() + static_cast<ptrdiff_t>(j * 27 + 27),
                states.begin() + static_cast<ptrdiff_t>(idx * 27));
      actions[idx] = chosen[j];
      player[idx] = games[i].turn;
      mask[idx] = 1.f;
      games[i] = applyMove(games[i], chosen[j]);
    }
  }
  for (size_t i = 0; i < k; ++i)
    for (size_t move = 0; move < 9; ++move) {
      const size_t idx = move * k + i;
      if (mask[idx] == 0.f) continue;
      const int w = games[i].winner;
      outcomes[idx] = w == -1 ? 0.f : player[idx] == w ? 1.f : -1.f;
    }
  if (opponent == Opponent::Self) normalizeMasked(outcomes, mask);
  return {{"states", std::move(states)}, {"actions", std::move(actions)}, {"outcomes", std::move(outcomes)},
          {"mask", std::move(mask)}};
}

Score versusRandom(int perSide, const Policy& policy, tg::Mulberry32& rng) {
  if (perSide <= 0 || perSide > 65536) throw std::invalid_argument("tic-tac-toe: games per side out of range");
  const auto total = static_cast<size_t>(2 * perSide);
  std::vector<Game> games(total);
  const auto modelSide = [&](size_t i) { return i < static_cast<size_t>(perSide) ? 0 : 1; };
  for (;;) {
    std::vector<const Game*> mine;
    std::vector<size_t> which;
    bool any = false;
    for (size_t i = 0; i < total; ++i) {
      if (games[i].done) continue;
      any = true;
      if (games[i].turn == modelSide(i)) mine.push_back(&games[i]), which.push_back(i);
      else games[i] = applyMove(games[i], randomMove(games[i], rng));
    }
    if (!any) break;
    if (mine.empty()) continue;
    std::vector<float> boards(mine.size() * 27, 0.f);
    for (size_t j = 0; j < mine.size(); ++j) packState(*mine[j], boards, j * 27);
    const std::vector<int> chosen = policy(boards, mine);
    if (chosen.size() != mine.size()) throw std::runtime_error("tic-tac-toe policy: wrong number of moves");
    for (size_t j = 0; j < mine.size(); ++j) games[which[j]] = applyMove(games[which[j]], chosen[j]);
  }
  Score s;
  for (size_t i = 0; i < total; ++i) {
    if (games[i].winner == -1) ++s.draws;
    else if (games[i].winner == modelSide(i)) ++s.wins;
    else ++s.losses;
  }
  return s;
}

}  // namespace tg_models::tictactoe
