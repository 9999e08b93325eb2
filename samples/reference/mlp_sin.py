"""samples/mlp_sin in PyTorch (CPU): 1 → 64 → 64 → 1 with ReLU, MSE, Adam lr 0.005 (β 0.9/0.999,
ε 1e-8), batches of 256 points x = f32((2u − 1)π) from Mulberry32(7), y = sin x in double, as the
app. Weights start N(0, 0.02), biases 0 (tensorgrad's default init); PyTorch draws them, so each
seed is one run of the spread. Reports the last step's loss and the MSE on 200 evenly spaced
points of [−π, π], per seed.

  /usr/bin/python3 samples/reference/mlp_sin.py --steps 1000 --seeds 5 --json out.json
"""
import argparse
import math

from common import Mulberry32, torch, write


def run(steps, seed):
    torch.manual_seed(seed)
    sizes = [1, 64, 64, 1]
    layers = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        lin = torch.nn.Linear(fan_in, fan_out)
        torch.nn.init.normal_(lin.weight, 0.0, 0.02)
        torch.nn.init.zeros_(lin.bias)
        layers += [lin, torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    opt = torch.optim.Adam(model.parameters(), lr=0.005, betas=(0.9, 0.999), eps=1e-8)
    data = Mulberry32(7)
    loss = None
    for _ in range(steps):
        xs = [float(torch.tensor((2 * data.next() - 1) * math.pi, dtype=torch.float32)) for _ in range(256)]
        x = torch.tensor(xs, dtype=torch.float32).unsqueeze(1)
        y = torch.tensor([math.sin(v) for v in xs], dtype=torch.float32).unsqueeze(1)
        loss = torch.mean((model(x) - y) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
    grid = torch.tensor([-math.pi + 2 * math.pi * i / 199 for i in range(200)], dtype=torch.float32)
    with torch.no_grad():
        fit = model(grid.unsqueeze(1)).squeeze(1).double()
    mse = float(torch.mean((fit - torch.sin(grid.double())) ** 2))
    return {"seed": seed, "finalLoss": float(loss), "gridMse": mse}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--seeds", type=int, default=5, help="runs with PyTorch seeds 0..N-1")
    p.add_argument("--json", help="write the runs and their spread here")
    a = p.parse_args()
    torch.set_num_threads(1)
    runs = [run(a.steps, s) for s in range(a.seeds)]
    write(a.json, "mlp_sin", {"steps": a.steps}, runs, ["finalLoss", "gridMse"])


if __name__ == "__main__":
    main()
