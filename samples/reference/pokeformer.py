#!/usr/bin/python3
"""PyTorch reference for samples/pokeformer: the same model, init, data, data order, optimizer and
schedule, so a seed is the same run on both sides up to float rounding.

  * model (tensorgrad/models/pokeformer.h): common.Decoder with RMSNorm (eps 1e-6), rotary
    embeddings on q and k, no position table, tied head; tokens 'a'..'z' = 0..25, EOS = 26
    (begin, end, padding), 16 positions.
  * init: tensorgrad's N(0, 0.02^2) draws number for number from Mulberry32(seed).
  * data (main.cpp): wamerican's proper names (one capital then a-z, 2-14 letters, lowercased),
    every tenth (index % 10 == 9) held out; each name of a batch drawn as pool[floor(next() * n)]
    from Mulberry32(seed ^ 0x9e3779b9); the loss is the per-token cross-entropy weighted by a mask
    of 1/valid on each name's letters and its first EOS (valid summed over the batch).
  * optimizer: AdamW, wd 0.01 on the randn params, clip 1.0, upstream's linear LR 5e-3 -> 5e-4
    over 1500 steps (300 steps end at 4.1e-3).
  * heldOutLoss (and heldOutLossStart, before training): the mean loss of 8 fixed batches of
    held-out names drawn from Mulberry32(1234).
Defaults are the app's (300 steps, the same on every device).

  /usr/bin/python3 samples/reference/pokeformer.py --steps 300 --seeds 5 --json ref.json
"""
import argparse

from common import Decoder, Mulberry32, lr_linear, mean_masked_ce, read_words, torch, train_masked, write

torch.set_num_threads(1)

EOS, T = 26, 16


def name_batch(pool, rng, batch):
    tokens, targets, mask = [], [], []
    for _ in range(batch):
        letters = [ord(c) - 97 for c in pool[int(rng.next() * len(pool))]]
        seq = [EOS] + letters + [EOS] * (T - len(letters))
        tokens.append(seq[:T])
        targets.append(seq[1:T + 1])
        valid = min(len(letters) + 1, T)
        mask.append([1.0 if j < valid else 0.0 for j in range(T)])
    m = torch.tensor(mask, dtype=torch.float64)
    return torch.tensor(tokens), torch.tensor(targets), (m / m.sum()).float()


def run(a, seed, train_names, held_out):
    model = Decoder(27, a.d, a.layers, a.heads, seed, norm="rms", rope=True)
    opt, lr = model.adamw(), lr_linear(0.005, 0.0005, 1500)

    def held_out_loss():
        rng = Mulberry32(1234)
        return mean_masked_ce(model, [name_batch(held_out, rng, a.batch) for _ in range(8)])

    start = held_out_loss()
    data = Mulberry32(seed ^ 0x9E3779B9)
    losses = train_masked(model, opt, lr, a.steps, lambda: name_batch(train_names, data, a.batch))
    end = held_out_loss()
    print(f"seed {seed}: final loss {losses[-1]:.6g} after {a.steps} steps; held-out loss "
          f"{start:.4f} -> {end:.4f}", flush=True)
    return {"seed": seed, "finalLoss": losses[-1], "heldOutLoss": end, "heldOutLossStart": start}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=42, help="init and data order, as pokeformer --seed")
    p.add_argument("--seeds", type=int, default=3, help="runs with seeds --seed .. --seed+N-1")
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--words", default="/usr/share/dict/words")
    p.add_argument("--samples", type=int, help="accepted for the app's flags; unused")
    p.add_argument("--temperatures", type=float, nargs="*", help="accepted for the app's flags; unused")
    p.add_argument("--json", help="write the runs and their spread here")
    a = p.parse_args()
    names = read_words(a.words, 2, T - 2, capitalised=True)
    train_names = [n for i, n in enumerate(names) if i % 10 != 9]
    held_out = [n for i, n in enumerate(names) if i % 10 == 9]
    print(f"proper names: {len(train_names)} for training, {len(held_out)} held out ({a.words})")
    runs = [run(a, a.seed + i, train_names, held_out) for i in range(a.seeds)]
    config = {k: getattr(a, k) for k in ("steps", "d", "layers", "heads", "batch", "words")}
    write(a.json, "pokeformer", config, runs, ["heldOutLoss", "finalLoss", "heldOutLossStart"])


if __name__ == "__main__":
    main()
