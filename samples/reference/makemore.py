#!/usr/bin/python3
"""PyTorch reference for samples/makemore: the same model, init, data, data order, optimizer and
schedule, so a seed is the same run on both sides up to float rounding.

  * model (tensorgrad/models/makemore.h): common.Decoder with token and position embeddings,
    pre-LayerNorm blocks, tied head; tokens '.' = 0, 'a'..'z' = 1..26, 16 positions.
  * init: tensorgrad's N(0, 0.02^2) draws number for number from Mulberry32(seed).
  * data (main.cpp): wamerican's lowercase a-z words of 2-15 letters, split by main.ts's 32-bit
    hash (one in ten held out); each word of a batch drawn as pool[floor(next() * n)] from
    Mulberry32(seed ^ 0x85ebca6b); the loss is the per-token cross-entropy weighted by a mask
    that sums to 1 over the batch's predicted positions (makemore_batch.h).
  * optimizer: AdamW, wd 0.01 on the randn params, clip 1.0, upstream's linear LR 5e-3 -> 5e-4
    over 1500 steps (whatever --steps is: 400 steps end at 3.8e-3).
  * validationLoss: the loss on 4 fixed held-out batches drawn from Mulberry32(77), averaged.
Defaults are the app's lavapipe defaults (--steps 400 --layers 1); its GPU defaults are
--steps 800 --layers 3.

  /usr/bin/python3 samples/reference/makemore.py --steps 400 --layers 1 --seeds 5 --json ref.json
"""
import argparse

from common import Decoder, Mulberry32, lr_linear, mean_masked_ce, read_words, torch, train_masked, write

torch.set_num_threads(1)

SEQ_LEN = 17  # '.' + name + '.'


def is_test_word(w):
    """main.ts's isTestName: h = (h * 31 + c) | 0; held out when h mod 10 == 0."""
    h = 0
    for c in w:
        h = (h * 31 + ord(c)) & 0xFFFFFFFF
    h = h - (1 << 32) if h >= 1 << 31 else h
    return h % 10 == 0  # ((h % 10) + 10) % 10 in C++ is Python's floored mod


def batch_of(pool, rng, batch):
    """makemore_batch.h: tokens/targets [B, 16], mask on positions 0..len, normalised to sum 1."""
    t = SEQ_LEN - 1
    tokens, targets, mask = [], [], []
    for _ in range(batch):
        w = pool[int(rng.next() * len(pool))]
        full = [0] + [ord(c) - 96 for c in w][: SEQ_LEN - 1]
        full += [0] * (SEQ_LEN - len(full))
        tokens.append(full[:t])
        targets.append(full[1:])
        mask.append([1.0 if j <= min(len(w), t - 1) else 0.0 for j in range(t)])
    m = torch.tensor(mask, dtype=torch.float64)
    return torch.tensor(tokens), torch.tensor(targets), (m / m.sum()).float()


def run(a, seed, train_words, test_words):
    model = Decoder(27, a.d, a.layers, a.heads, seed, seq_len=SEQ_LEN)
    opt = model.adamw()
    lr = lr_linear(0.005, 0.0005, 1500)

    def validate():
        rng = Mulberry32(77)
        return mean_masked_ce(model, [batch_of(test_words, rng, a.batch) for _ in range(4)])

    start = validate()
    data = Mulberry32(seed ^ 0x85EBCA6B)
    losses = train_masked(model, opt, lr, a.steps, lambda: batch_of(train_words, data, a.batch))
    val = validate()
    print(f"seed {seed}: final loss {losses[-1]:.6g} after {a.steps} steps; validation loss "
          f"{start:.4f} -> {val:.4f}", flush=True)
    return {"seed": seed, "finalLoss": losses[-1], "validationLoss": val, "validationLossStart": start}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--seed", type=int, default=42, help="init and data order, as makemore --seed")
    p.add_argument("--seeds", type=int, default=3, help="runs with seeds --seed .. --seed+N-1")
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--words", default="/usr/share/dict/words")
    p.add_argument("--samples", type=int, help="accepted for the app's flags; unused")
    p.add_argument("--json", help="write the runs and their spread here")
    a = p.parse_args()
    torch.set_num_threads(1)
    words = read_words(a.words, 2, SEQ_LEN - 2)
    train_words = [w for w in words if not is_test_word(w)]
    test_words = [w for w in words if is_test_word(w)]
    print(f"words: {len(train_words)} for training, {len(test_words)} held out ({a.words})")
    runs = [run(a, a.seed + i, train_words, test_words) for i in range(a.seeds)]
    config = {k: getattr(a, k) for k in ("steps", "d", "layers", "heads", "batch", "words")}
    write(a.json, "makemore", config, runs, ["validationLoss", "finalLoss"])


if __name__ == "__main__":
    main()
