#!/usr/bin/python3
"""PyTorch reference for samples/digit_canvas (issue 27): the same MLP, phases, data order and
optimizer.

Mirrors the C++ app step for step:
  * model (tensorgrad/models/digit_canvas.h): Linear(784->H) -> ReLU -> dropout 0.1 (training only)
    -> Linear(H->10); cross-entropy (mean over the batch).
  * init: tensorgrad's draws number for number (Mulberry32(seed), Box-Muller, one stream in
    declaration order, [in, out] weights, zero biases), scaled to N(0, gain^2/fan_in) with
    --init-gain as the app's flag (0: upstream's N(0, 0.02^2)). The dropout masks are PyTorch's
    own (tensorgrad draws its masks on the GPU from the compile seed).
  * phases, as the app: (1) hidden --hidden at --lr for --steps; (2) the learning rate set to
    --lr2 for --steps/2 more (Adam's moments and step count kept, as setLR); (3) a fresh model of
    hidden --hidden2 (initialised from seed+1, as replaceModel({seed: seed+1})) and a fresh
    optimizer at --lr for --steps; (4) setLR --lr2 for --steps/2. One epoch-shuffled sampler
    (common.py's BatchSampler, seed) feeds all four phases.
  * optimizer: global grad-norm clip 1.0, AdamW betas (0.9, 0.999), eps 1e-8, decoupled weight
    decay 0.01 on the weights only.
  * testAccuracy: the last phase's accuracy on the first --test-images test images.

  /usr/bin/python3 samples/reference/digit_canvas.py --steps 2000 --seeds 3 --json ref.json
"""
import argparse
import json
import math

from common import FASHION_MNIST, BatchSampler, Mulberry32, accuracy, load_fashion_mnist, normals, spread, torch
import torch.nn.functional as F


class DigitMlp(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = torch.nn.Linear(784, hidden)
        self.fc2 = torch.nn.Linear(hidden, 10)

    def forward(self, x):
        h = F.relu(self.fc1(x.reshape(x.shape[0], -1)))
        return self.fc2(F.dropout(h, 0.1, self.training))


def init_like_tensorgrad(model, seed, gain):
    rng = Mulberry32(seed)
    with torch.no_grad():
        for layer in (model.fc1, model.fc2):
            fan_in, fan_out = layer.weight.shape[1], layer.weight.shape[0]
            std = gain / math.sqrt(fan_in) if gain > 0 else 0.02
            layer.weight.copy_(normals(rng, fan_in * fan_out, std).reshape(fan_in, fan_out).t())
            layer.bias.zero_()


def adamw(model, lr):
    weights = [p for n, p in model.named_parameters() if n.endswith("weight")]
    biases = [p for n, p in model.named_parameters() if n.endswith("bias")]
    return torch.optim.AdamW([{"params": weights, "weight_decay": 0.01}, {"params": biases, "weight_decay": 0.0}],
                             lr=lr, betas=(0.9, 0.999), eps=1e-8)


def train_phase(model, opt, sampler, xtr, ytr, steps, batch):
    model.train()
    loss = None
    for _ in range(steps):
        idx = torch.tensor(sampler.next(batch))
        loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    model.eval()
    return loss.item()


def run(a, seed, xtr, ytr, xte, yte):
    """The app's four phases; returns each phase's test accuracy."""
    sampler = BatchSampler(len(xtr), seed)
    accs, final = [], None
    for phase in range(4):
        if phase in (0, 2):  # a model (the first, then replaceModel's), its optimizer at --lr
            model = DigitMlp(a.hidden if phase == 0 else a.hidden2)
            init_like_tensorgrad(model, seed + phase // 2, a.init_gain)
            opt = adamw(model, a.lr)
        else:  # setLR: Adam's moments and step count kept
            for g in opt.param_groups:
                g["lr"] = a.lr2
        steps = a.steps if phase in (0, 2) else max(1, a.steps // 2)
        final = train_phase(model, opt, sampler, xtr, ytr, steps, a.batch)
        accs.append(accuracy(model, xte, yte))
    print(f"seed {seed}: test accuracy " + " -> ".join(f"{100 * x:.2f}%" for x in accs) + f"; final loss {final:.4g}",
          flush=True)
    return {"seed": seed, "testAccuracy": accs[-1], "phase1Accuracy": accs[0], "phase2Accuracy": accs[1],
            "phase3Accuracy": accs[2], "finalLoss": final}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=2000, help="steps of phases 1 and 3 (phases 2 and 4: half)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--seeds", type=int, default=1, help="runs with seeds --seed .. --seed+N-1")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--hidden2", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--lr2", type=float, default=5e-4)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--init-gain", type=float, default=math.sqrt(2), help="std = gain/sqrt(fan_in); 0: N(0, 0.02^2)")
    ap.add_argument("--train-images", type=int, default=0, help="first N (0: all 60000)")
    ap.add_argument("--test-images", type=int, default=10000)
    ap.add_argument("--data", default=FASHION_MNIST)
    ap.add_argument("--json", help="write all runs and their spread (for check.py) here")
    a, _ = ap.parse_known_args()  # the app's other flags (--eval-batch, --canvas-images) change no number
    torch.set_num_threads(1)
    xtr, ytr = load_fashion_mnist(a.data, "train", a.train_images)
    xte, yte = load_fashion_mnist(a.data, "t10k", a.test_images)
    runs = [run(a, a.seed + i, xtr, ytr, xte, yte) for i in range(a.seeds)]
    keys = ("testAccuracy", "phase1Accuracy", "phase2Accuracy", "phase3Accuracy", "finalLoss")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"app": "digit_canvas", "torch": torch.__version__, "config": vars(a), "runs": runs,
                       "spread": {k: spread(runs, k) for k in keys}}, f, indent=1)


if __name__ == "__main__":
    main()
