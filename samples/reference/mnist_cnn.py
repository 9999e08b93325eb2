#!/usr/bin/python3
"""PyTorch reference for samples/mnist_cnn (issue 27): the same CNN, data, order and optimizer.

Mirrors the C++ app step for step:
  * model (tensorgrad/models/mnist_cnn.h): Conv2d(1->16, 3x3, pad 1) -> ReLU -> MaxPool 2
    -> Conv2d(16->32, 3x3, pad 1) -> ReLU -> MaxPool 2 -> flatten NCHW [B, 1568]
    -> Linear(1568->64) -> ReLU -> Linear(64->10); cross-entropy (mean over the batch).
  * init (--init): every mode but "torch" draws exactly tensorgrad's numbers: Mulberry32(seed),
    one stream in declaration order, weights by Box-Muller (cos branch, u1 >= 1e-10), biases
    zero (no draws). "fanin" (the app's default since issue 27) scales weight draws to
    N(0, gain^2/fan_in) with the true fan-in (in*kh*kw for a conv, in for a linear) and --gain
    (default sqrt(2), He's gain for ReLU, the app's default; 1/sqrt(3) is PyTorch's default
    weight variance), as mnist_cnn --init-gain;
    "tensorgrad" is upstream's N(0, 0.02^2) (mnist_cnn --init-gain 0). "torch" keeps PyTorch's
    own defaults (kaiming-uniform a=sqrt(5), uniform biases).
  * data (samples/support/fashion_mnist.cpp): pixels / 255 in [0, 1], no normalisation.
  * order (samples/support/sampler.cpp): each epoch a Fisher-Yates shuffle drawn from a second
    Mulberry32(seed): for i = n-1 .. 1: j = floor(next() * (i + 1)), swap(i, j).
  * optimizer: global grad-norm clip 1.0 (max / (norm + 1e-6), as clip_grad_norm_), then AdamW
    lr 1e-3, betas (0.9, 0.999), eps 1e-8, decoupled weight decay 0.01 on the weights only
    (tensorgrad does not decay zero-initialised biases). tensorgrad folds the bias corrections
    into the step size (p -= lr*sqrt(1-b2^t)/(1-b1^t) * m/(sqrt(v)+eps)), so its eps is
    effectively larger by 1/sqrt(1-b2^t); with eps = 1e-8 the difference is negligible.
  * test accuracy on the first --test-images test images (default all 10,000).
"""
import argparse
import json
import math

import numpy as np

from common import FASHION_MNIST, BatchSampler, Mulberry32, accuracy, load_fashion_mnist, normals, spread, torch
import torch.nn.functional as F


class MnistCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = torch.nn.Linear(32 * 7 * 7, 64)
        self.fc2 = torch.nn.Linear(64, 10)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.conv1(x)), 2)
        h = F.max_pool2d(F.relu(self.conv2(h)), 2)
        h = F.relu(self.fc1(h.reshape(x.shape[0], -1)))  # NCHW flatten, as tensorgrad's reshape
        return self.fc2(h)


def init_like_tensorgrad(model, seed, mode, gain):
    """Overwrites the weights with tensorgrad's draws. tensorgrad stores a Linear's W as
    [in, out] (y = x W), so its stream fills [in, out] and is transposed into torch's [out, in]."""
    rng = Mulberry32(seed)
    with torch.no_grad():
        for layer in (model.conv1, model.conv2, model.fc1, model.fc2):  # declaration order
            w = layer.weight
            tg_shape = list(w.shape) if w.dim() == 4 else [w.shape[1], w.shape[0]]
            fan_in = tg_shape[0] if w.dim() == 2 else int(np.prod(tg_shape[1:]))
            std = 0.02 if mode == "tensorgrad" else gain / math.sqrt(fan_in)
            vals = normals(rng, w.numel(), std).reshape(tg_shape)
            w.copy_(vals if w.dim() == 4 else vals.t())
            layer.bias.zero_()  # init.zeros draws nothing


def train(a, seed, xtr, ytr, xte, yte):
    torch.manual_seed(seed)  # only used by --init torch
    model = MnistCnn()
    if a.init != "torch":
        init_like_tensorgrad(model, seed, a.init, a.gain)
    weights = [p for n, p in model.named_parameters() if n.endswith("weight")]
    biases = [p for n, p in model.named_parameters() if n.endswith("bias")]
    opt = torch.optim.AdamW([{"params": weights, "weight_decay": 0.01},
                             {"params": biases, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    sampler = BatchSampler(len(xtr), seed)
    losses = []
    for step in range(a.steps):
        idx = torch.tensor(sampler.next(a.batch))
        loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if a.log_every and (step + 1) % a.log_every == 0:
            print(f"step {step + 1} loss {loss.item():.6g}", flush=True)
    acc = accuracy(model, xte, yte)
    print(f"seed {seed}, init {a.init}: final loss {losses[-1]:.6g} after {a.steps} steps; "
          f"test accuracy {100 * acc:.2f}% on {len(xte)} images", flush=True)
    return {"seed": seed, "testAccuracy": acc, "finalLoss": losses[-1], "losses": losses}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=42, help="init and data order, as mnist_cnn --seed")
    ap.add_argument("--seeds", type=int, default=1, help="runs with seeds --seed .. --seed+N-1")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--train-images", type=int, default=0, help="first N (0: all 60000)")
    ap.add_argument("--test-images", type=int, default=10000)
    ap.add_argument("--data", default=FASHION_MNIST)
    ap.add_argument("--init", choices=["fanin", "tensorgrad", "torch"], default="fanin")
    ap.add_argument("--gain", type=float, default=math.sqrt(2), help="--init fanin: std = gain/sqrt(fan_in)")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--json", help="write the first seed's {app, steps, testAccuracy, finalLoss, losses}, "
                                   "all runs and their spread (for check.py) here")
    a = ap.parse_args()
    torch.set_num_threads(2)
    xtr, ytr = load_fashion_mnist(a.data, "train", a.train_images)
    xte, yte = load_fashion_mnist(a.data, "t10k", a.test_images)
    runs = [train(a, a.seed + i, xtr, ytr, xte, yte) for i in range(a.seeds)]
    if a.json:
        out = {"app": "mnist_cnn", "steps": a.steps, "testAccuracy": runs[0]["testAccuracy"],
               "finalLoss": runs[0]["finalLoss"], "losses": runs[0]["losses"], "torch": torch.__version__,
               "config": {k: getattr(a, k) for k in ("steps", "batch", "init", "gain", "train_images")},
               "runs": [{k: r[k] for k in ("seed", "testAccuracy", "finalLoss")} for r in runs],
               "spread": {k: spread(runs, k) for k in ("testAccuracy", "finalLoss")}}
        with open(a.json, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
