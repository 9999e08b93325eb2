"""PyTorch reference for samples/tic_tac_toe: REINFORCE for upstream's tic-tac-toe policy, with the
engine, the random player and the evaluation written again in Python from their description
(tensorgrad/models/tic_tac_toe_game.h). Folds in the former tic_tac_toe/reinforce_check.py.

  * board: the mover's view, 27 features (9 empty, 9 mine, 9 theirs); policy (tic_tac_toe.h)
    27 -> 64 -> 64 (tanh) -> 9 logits; moves drawn among the empty cells in proportion to the
    softmax (uniform over them when their total is < 1e-12, as main.ts's sampleMaskedAction).
  * rollout: --games games in lockstep, one move per game per round (9 rounds). --opponent
    random (the app's default): the policy is the first player in even games, second in odd;
    the random player's moves are played but not recorded; outcomes +1 / 0 / -1 for the policy.
    --opponent self (main.ts): the policy plays both sides, outcomes normalized over the recorded
    moves (mean 0, population deviation + 1e-8).
  * loss = -sum(log p(move) * outcome) / (9 * games); Adam --lr (tensorgrad's: common.Adam).
  * init: tensorgrad's numbers for a seed (Mulberry32(seed), Box-Muller, W ~ N(0, 0.02^2), b = 0;
    --init torch: PyTorch's own, as reinforce_check.py had); rollouts draw from
    Mulberry32(seed ^ 0x9e3779b9), the evaluation from Mulberry32(seed + 1), in the app's order,
    so seed 42 starts as the app's default run (runs part ways once rounding flips a move).
  * evaluation: the greedy policy (the most probable empty cell) against a random player,
    --eval-games / 2 games as each side, before training, every --eval-every steps and at the
    end; metrics before.wins / draws / losses and after.*, counts as the app's results.json.

  /usr/bin/python3 samples/reference/tic_tac_toe.py --steps 3000 --seeds 3 --json /tmp/refs/tic_tac_toe.json
  /usr/bin/python3 samples/reference/tic_tac_toe.py --opponent self --steps 6000 --seeds 1
"""
import argparse

from common import Adam, Mulberry32, init_linears, torch, write

torch.set_num_threads(1)

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class Game:
    def __init__(self):
        self.cells, self.turn, self.done, self.winner = [0] * 9, 0, False, -1  # cell: 0, or player + 1

    def play(self, cell):
        assert not self.done and self.cells[cell] == 0
        piece = self.turn + 1
        self.cells[cell] = piece
        if any(all(self.cells[i] == piece for i in line) for line in LINES):
            self.done, self.winner = True, self.turn
        elif all(self.cells):
            self.done = True
        self.turn ^= 1

    def empty(self):
        return [i for i in range(9) if self.cells[i] == 0]

    def board(self):  # the mover's view
        me = self.turn + 1
        return ([float(c == 0) for c in self.cells] + [float(c == me) for c in self.cells]
                + [float(c not in (0, me)) for c in self.cells])


def random_move(g, rng):
    e = g.empty()
    return e[int(rng.next() * len(e))]


def sample_legal(p, g, rng):
    legal = g.empty()
    total = sum(p[c] for c in legal)
    if total < 1e-12:
        return random_move(g, rng)
    u = rng.next() * total
    for c in legal:
        u -= p[c]
        if u < 0:
            return c
    return legal[-1]


def best_legal(p, g):
    return max(g.empty(), key=lambda c: p[c])  # the first of equals, as the app


def probs(policy, games):
    with torch.no_grad():
        return torch.softmax(policy(torch.tensor([g.board() for g in games])), -1).tolist()


def rollout(policy, rng, n, opponent):
    games = [Game() for _ in range(n)]
    boards, moves, movers, owners = [], [], [], []
    for _ in range(9):
        live = []
        for k, g in enumerate(games):
            if g.done:
                continue
            if opponent == "random" and g.turn != k % 2:
                g.play(random_move(g, rng))
            else:
                live.append(g)
        if not live:
            continue
        for g, p in zip(live, probs(policy, live)):
            cell = sample_legal(p, g, rng)
            boards.append(g.board())
            moves.append(cell)
            movers.append(g.turn)
            owners.append(g)
            g.play(cell)
    out = torch.tensor([0.0 if g.winner == -1 else 1.0 if m == g.winner else -1.0 for g, m in zip(owners, movers)],
                       dtype=torch.float64)
    if opponent == "self":
        out = (out - out.mean()) / (out.std(unbiased=False) + 1e-8)
    return torch.tensor(boards), torch.tensor(moves), out.float()


def versus_random(policy, rng, per_side):
    games = [Game() for _ in range(2 * per_side)]
    side = [0 if i < per_side else 1 for i in range(2 * per_side)]
    while any(not g.done for g in games):
        mine = []
        for i, g in enumerate(games):
            if g.done:
                continue
            if g.turn == side[i]:
                mine.append(g)
            else:
                g.play(random_move(g, rng))
        if mine:
            for g, p in zip(mine, probs(policy, mine)):
                g.play(best_legal(p, g))
    w = sum(g.winner == s for g, s in zip(games, side))
    d = sum(g.winner == -1 for g in games)
    return {"wins": w, "draws": d, "losses": len(games) - w - d}


def percent(s):
    n = s["wins"] + s["draws"] + s["losses"]
    return "win %.1f%% draw %.1f%% loss %.1f%%" % tuple(100 * s[k] / n for k in ("wins", "draws", "losses"))


def run(a, seed):
    torch.manual_seed(seed)  # only used by --init torch
    l1, l2, out = torch.nn.Linear(27, 64), torch.nn.Linear(64, 64), torch.nn.Linear(64, 9)
    if a.init == "tensorgrad":
        init_linears(seed, [l1, l2, out])
    policy = torch.nn.Sequential(l1, torch.nn.Tanh(), l2, torch.nn.Tanh(), out)
    opt = Adam(policy.parameters(), lr=a.lr)
    rng, eval_rng = Mulberry32(seed ^ 0x9E3779B9), Mulberry32(seed + 1)
    before = score = versus_random(policy, eval_rng, a.eval_games // 2)
    curve, losses = [[0, score]], []
    for step in range(a.steps):
        boards, moves, outcomes = rollout(policy, rng, a.games, a.opponent)
        taken = torch.log_softmax(policy(boards), -1).gather(1, moves.unsqueeze(1)).squeeze(1)
        loss = -(taken * outcomes).sum() / (9 * a.games)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if (step + 1) % a.eval_every == 0 or step + 1 == a.steps:
            score = versus_random(policy, eval_rng, a.eval_games // 2)
            curve.append([step + 1, score])
            if a.verbose:
                print(f"  step {step + 1} loss {loss.item():.3f} vs random {score}", flush=True)
    print(f"seed {seed}: greedy vs random before {percent(before)}; after {a.steps} rollouts {percent(score)}",
          flush=True)
    r = {"seed": seed, "finalLoss": loss.item(), "curve": curve, "losses": losses}
    for name, s in (("before", before), ("after", score)):
        r.update({f"{name}.{k}": v for k, v in s.items()})
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=3000, help="rollouts, one training step each")
    ap.add_argument("--games", type=int, default=16, help="games per rollout")
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--opponent", choices=["random", "self"], default="random")
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--eval-games", type=int, default=200, help="games per evaluation (half as each side)")
    ap.add_argument("--init", choices=["tensorgrad", "torch"], default="tensorgrad")
    ap.add_argument("--seed", type=int, default=42, help="init and draws, as tic_tac_toe --seed")
    ap.add_argument("--seeds", type=int, default=3, help="runs with seeds --seed .. --seed+N-1")
    ap.add_argument("--verbose", action="store_true", help="print every evaluation")
    ap.add_argument("--json", help="write the runs and their spread here (for check.py)")
    a = ap.parse_args()
    runs = [run(a, a.seed + i) for i in range(a.seeds)]
    keys = [f"{n}.{k}" for n in ("before", "after") for k in ("wins", "draws", "losses")]
    write(a.json, "tic_tac_toe", {k: getattr(a, k) for k in ("steps", "games", "lr", "opponent", "init")}, runs, keys)


if __name__ == "__main__":
    main()
