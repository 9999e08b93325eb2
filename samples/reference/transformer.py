#!/usr/bin/python3
"""PyTorch reference for samples/transformer (two-digit addition): the same model, init, data,
data order, optimizer and schedule, so a seed is the same run on both sides up to float rounding.

  * model (tensorgrad/models/transformer.h): common.Decoder, vocab 12 (digits, '+' 10, '=' 11),
    9 positions, pre-LayerNorm blocks, tied head. "ab+cd=" then the sum's three digits, least
    significant first; the loss is the cross-entropy on the three result positions, summed and
    divided by batch * 3.
  * init: tensorgrad's N(0, 0.02^2) draws number for number from Mulberry32(seed).
  * data (main.cpp): each pair a = floor(100 next()), b = floor(100 next()) from
    Mulberry32(seed ^ 0x9e3779b9), redrawn while it is a held-out pair ((a*100 + b)*31 + 7 = 0
    mod 5, upstream's rule).
  * optimizer: AdamW, wd 0.01 on the randn params, clip 1.0; --schedule cosine (the app's
    default): min(--warmup, steps - 1) linear warmup steps to --lr, then a cosine decay to --lr/10
    at the last step; --schedule upstream: linear 5e-3 -> 5e-4 over 1500 steps.
  * heldOutExactMatch: greedy decoding (argmax over the digits, three autoregressive steps, batched
    here) of --eval-pairs held-out pairs drawn from Mulberry32(1001), as the app.
Defaults are the app's lavapipe defaults (--steps 300 --batch 64); its GPU defaults are
--steps 1500 --batch 128.

  /usr/bin/python3 samples/reference/transformer.py --steps 300 --batch 64 --seeds 5 --json ref.json
"""
import argparse

from common import Decoder, Mulberry32, lr_cosine, lr_linear, lr_warmup, masked_ce, torch, train_step, write

torch.set_num_threads(1)

PLUS, EQ, T = 10, 11, 8  # T: the positions the model sees (9 tokens, shifted)


def is_test_pair(a, b):
    return ((a * 100 + b) * 31 + 7) % 5 == 0


def sequence(a, b):
    s = a + b
    return [a // 10, a % 10, PLUS, b // 10, b % 10, EQ, s % 10, s // 10 % 10, s // 100]


def schedule(a):
    if a.schedule == "upstream":
        return lr_linear(0.005, 0.0005, 1500)
    warmup = min(a.warmup, max(a.steps - 1, 0))
    after = lr_cosine(a.lr, a.lr / 10, max(a.steps - warmup, 1))
    return lr_warmup(a.lr, warmup, after) if warmup > 0 else after


def held_out_accuracy(model, n):
    rng, pairs = Mulberry32(1001), []
    while len(pairs) < n:
        a, b = int(rng.next() * 100), int(rng.next() * 100)
        if is_test_pair(a, b):
            pairs.append((a, b))
    tokens = torch.zeros(n, T, dtype=torch.long)
    tokens[:, :6] = torch.tensor([sequence(a, b)[:6] for a, b in pairs])
    digits = []
    with torch.no_grad():
        for s in range(3):  # causal: the padding after the prefix does not change its logits
            d = model(tokens)[:, 5 + s, :10].argmax(-1)
            digits.append(d)
            if 6 + s < T:
                tokens[:, 6 + s] = d
    got = digits[0] + 10 * digits[1] + 100 * digits[2]
    want = torch.tensor([a + b for a, b in pairs])
    return (got == want).sum().item() / n


def run(a, seed):
    model = Decoder(12, a.d, a.layers, a.heads, seed, seq_len=T + 1)
    opt, lr = model.adamw(), schedule(a)
    data = Mulberry32(seed ^ 0x9E3779B9)
    mask = torch.tensor([0.0] * (T - 3) + [1.0] * 3).expand(a.batch, T) / (a.batch * 3)
    losses = []
    for step in range(1, a.steps + 1):
        seqs = []
        for _ in range(a.batch):
            while True:
                x, y = int(data.next() * 100), int(data.next() * 100)
                if not is_test_pair(x, y):
                    break
            seqs.append(sequence(x, y))
        seqs = torch.tensor(seqs)
        loss = masked_ce(model(seqs[:, :-1]), seqs[:, 1:], mask)
        losses.append(train_step(model, opt, loss, lr(step)))
    acc = held_out_accuracy(model, a.eval_pairs)
    print(f"seed {seed}: final loss {losses[-1]:.6g} after {a.steps} steps; exact-match accuracy on "
          f"{a.eval_pairs} held-out pairs {100 * acc:.1f}%", flush=True)
    return {"seed": seed, "finalLoss": losses[-1], "heldOutExactMatch": acc}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=1, help="init and data order, as transformer --seed")
    p.add_argument("--seeds", type=int, default=3, help="runs with seeds --seed .. --seed+N-1")
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--eval-pairs", type=int, default=500)
    p.add_argument("--probe-pairs", type=int, help="accepted for the app's flags; unused")
    p.add_argument("--schedule", choices=["cosine", "upstream"], default="cosine")
    p.add_argument("--lr", type=float, default=0.005, help="--schedule cosine: the peak")
    p.add_argument("--warmup", type=int, default=100, help="--schedule cosine: warmup steps")
    p.add_argument("--json", help="write the runs and their spread here")
    a = p.parse_args()
    runs = [run(a, a.seed + i) for i in range(a.seeds)]
    config = {k: getattr(a, k) for k in ("steps", "d", "layers", "heads", "batch", "eval_pairs", "schedule", "lr", "warmup")}
    write(a.json, "transformer", config, runs, ["heldOutExactMatch", "finalLoss"])


if __name__ == "__main__":
    main()
