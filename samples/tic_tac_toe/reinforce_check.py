#!/usr/bin/env python3
"""An independent check of the tic-tac-toe app's training loop in PyTorch (Debian's python3-torch).

The same 27 -> 64 -> 64 -> 9 tanh policy, Adam, REINFORCE on each recorded move's log-probability
times its game's outcome, moves sampled over the empty cells (main.ts's sampleMaskedAction), and
the greedy policy scored against a uniformly random player. `--opponent self` is main.ts's
self-play with its outcome normalization; `--opponent random` is the app's default (the policy
plays a random player, only its own moves recorded, outcomes left at +1 / 0 / -1).
Prints the greedy win / draw / loss counts over 200 games before training and five times during
it. samples/README.md quotes its results.

    reinforce_check.py --opponent self --lr 5e-3 --steps 6000
"""
import argparse
import random

import torch
from torch import nn

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def wins(cells, piece):
    return any(cells[a] == piece and cells[b] == piece and cells[c] == piece for a, b, c in LINES)


def board(cells, turn):  # the mover's view: 9 empty, 9 mine, 9 theirs
    me = 1 if turn == 0 else 2
    return ([1.0 if c == 0 else 0.0 for c in cells] + [1.0 if c == me else 0.0 for c in cells]
            + [1.0 if c not in (0, me) else 0.0 for c in cells])


class Game:
    def __init__(self):
        self.cells, self.turn, self.done, self.winner = [0] * 9, 0, False, -1

    def play(self, cell):
        piece = 1 if self.turn == 0 else 2
        self.cells[cell] = piece
        if wins(self.cells, piece):
            self.done, self.winner = True, self.turn
        elif all(self.cells):
            self.done = True
        self.turn ^= 1

    def empty(self):
        return [i for i in range(9) if self.cells[i] == 0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opponent", choices=["self", "random"], default="random")
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--games", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    net = nn.Sequential(nn.Linear(27, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 9))
    opt = torch.optim.Adam(net.parameters(), lr=a.lr)

    def probs(boards):
        with torch.no_grad():
            return torch.softmax(net(torch.tensor(boards)), -1).tolist()

    def greedy_vs_random(per_side=100):
        score = [0, 0, 0]  # wins, draws, losses
        for i in range(2 * per_side):
            g, side = Game(), 0 if i < per_side else 1
            while not g.done:
                if g.turn == side:
                    p = probs([board(g.cells, g.turn)])[0]
                    g.play(max(g.empty(), key=lambda c: p[c]))
                else:
                    g.play(random.choice(g.empty()))
            score[0 if g.winner == side else 1 if g.winner == -1 else 2] += 1
        return tuple(score)

    print("before", greedy_vs_random(), flush=True)
    for step in range(a.steps):
        games = [Game() for _ in range(a.games)]
        boards, moves, movers, owner = [], [], [], []
        for _ in range(9):
            live = [(k, g) for k, g in enumerate(games) if not g.done]
            if a.opponent == "random":  # the random player moves; the policy is player k % 2
                for k, g in live:
                    if g.turn != k % 2:
                        g.play(random.choice(g.empty()))
                live = [(k, g) for k, g in live if not g.done and g.turn == k % 2]
            if not live:
                continue
            ps = probs([board(g.cells, g.turn) for _, g in live])
            for (k, g), p in zip(live, ps):
                legal = g.empty()
                weights = [p[c] for c in legal]
                # main.ts's fallback: uniform over the empty cells once their probability is ~0.
                cell = random.choices(legal, weights=weights)[0] if sum(weights) >= 1e-12 else random.choice(legal)
                boards.append(board(g.cells, g.turn))
                moves.append(cell)
                movers.append(g.turn)
                owner.append(g)
                g.play(cell)
        out = torch.tensor([0.0 if g.winner == -1 else 1.0 if m == g.winner else -1.0 for g, m in zip(owner, movers)])
        if a.opponent == "self":  # main.ts: mean 0, deviation 1 over the recorded moves
            out = (out - out.mean()) / (out.std(unbiased=False) + 1e-8)
        logp = torch.log_softmax(net(torch.tensor(boards)), -1)[torch.arange(len(moves)), torch.tensor(moves)]
        loss = -(logp * out).sum() / (a.games * 9)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (step + 1) % max(1, a.steps // 5) == 0:
            print(step + 1, "loss %.3f" % loss.item(), greedy_vs_random(), flush=True)


if __name__ == "__main__":
    main()
