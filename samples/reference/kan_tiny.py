"""PyTorch reference for samples/kan_tiny: upstream's Kolmogorov-Arnold network fitting sin(pi x).

  * model (tensorgrad/models/kan_tiny.h): two KAN layers 1 -> 4 -> 1; every edge is a uniform cubic
    B-spline on 8 knots (x in [-1, 1] scaled to [0, 7]) with coefficients C [out, in, 8], plus
    silu(x) @ Wres [in, out].
  * init: tensorgrad's numbers for a seed (Mulberry32(seed), Box-Muller, in declaration order
    l1.C ~ N(0, 0.1^2), l1.Wres ~ N(0, 0.02^2), l2.C, l2.Wres).
  * data: batches of 256, x = f32(2u - 1) with u from Mulberry32(seed ^ 0x9e3779b9), y = f32 of the
    Taylor-series sin(pi * (2u - 1)) in double, as the app; MSE; Adam lr 0.005 (tensorgrad's:
    common.Adam).
  * metric gridMse: MSE against sin(pi x) on 200 evenly spaced f32 points of [-1, 1], as the app.
So seed 42 is the app's default run number for number, up to float rounding.

  /usr/bin/python3 samples/reference/kan_tiny.py --steps 1000 --seeds 3 --json /tmp/refs/kan_tiny.json
"""
import argparse
import math

from common import Adam, Mulberry32, f32, normals, sin_series, torch, write
import torch.nn.functional as F

torch.set_num_threads(1)


class KanLayer(torch.nn.Module):
    def __init__(self, rng, inputs, outputs, knots):
        super().__init__()
        self.C = torch.nn.Parameter(normals(rng, outputs * inputs * knots, 0.1).reshape(outputs, inputs, knots))
        self.Wres = torch.nn.Parameter(normals(rng, inputs * outputs, 0.02).reshape(inputs, outputs))
        self.knots = knots

    def forward(self, x):  # [B, I] -> [B, O]
        u = ((x + 1) * ((self.knots - 1) / 2)).unsqueeze(2) - torch.arange(self.knots, dtype=torch.float32)
        a = u.abs()
        inner = 0.5 * a ** 3 - u * u + 2.0 / 3.0          # |u| < 1
        outer = torch.clamp(2 - a, min=0) ** 3 / 6           # 1 <= |u| < 2, 0 beyond
        basis = torch.where(a < 1, inner, outer)             # [B, I, knots]
        spline = basis.reshape(x.shape[0], -1) @ self.C.reshape(self.C.shape[0], -1).t()
        return spline + F.silu(x) @ self.Wres


def run(a, seed):
    rng = Mulberry32(seed)  # one init stream in declaration order
    l1 = KanLayer(rng, 1, a.hidden, a.grid + a.degree)
    l2 = KanLayer(rng, a.hidden, 1, a.grid + a.degree)
    model = torch.nn.Sequential(l1, l2)
    opt = Adam(model.parameters(), lr=0.005)
    data, losses = Mulberry32(seed ^ 0x9E3779B9), []
    for _ in range(a.steps):
        v = [data.next() * 2 - 1 for _ in range(a.batch)]
        x = torch.tensor(v, dtype=torch.float32).unsqueeze(1)
        y = torch.tensor([sin_series(math.pi * t) for t in v], dtype=torch.float32).unsqueeze(1)
        loss = torch.mean((model(x) - y) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    xs = [f32(-1.0 + 2.0 * i / 199) for i in range(200)]
    with torch.no_grad():
        fit = model(torch.tensor(xs).unsqueeze(1)).squeeze(1).tolist()
    mse = sum((f - math.sin(math.pi * x)) ** 2 for f, x in zip(fit, xs)) / 200
    print(f"seed {seed}: final loss {loss.item():.6g} after {a.steps} steps; grid MSE {mse:.6g}", flush=True)
    return {"seed": seed, "finalLoss": loss.item(), "gridMse": mse, "losses": losses}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--hidden", type=int, default=4)
    ap.add_argument("--grid", type=int, default=5, help="spline intervals (knots = grid + degree)")
    ap.add_argument("--degree", type=int, default=3)
    ap.add_argument("--seed", type=int, default=42, help="init and data, as kan_tiny --seed")
    ap.add_argument("--seeds", type=int, default=3, help="runs with seeds --seed .. --seed+N-1")
    ap.add_argument("--json", help="write the runs and their spread here (for check.py)")
    a = ap.parse_args()
    runs = [run(a, a.seed + i) for i in range(a.seeds)]
    config = {"steps": a.steps, "batch": a.batch, "hidden": a.hidden}
    write(a.json, "kan_tiny", config, runs, ["finalLoss", "gridMse"])


if __name__ == "__main__":
    main()
