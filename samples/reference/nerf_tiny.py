"""PyTorch reference for samples/nerf_tiny: upstream's implicit picture (an MLP on Fourier
features of the pixel coordinates) fitted to the 64x64 scene the app draws.

  * scene (samples/nerf_tiny/scene.cpp), redrawn here: a radial gradient #f97316 -> #1e293b from
    radius 4 to 0.7 w around the centre, rounded to bytes, and TENSORGRAD in white in the samples'
    5x7 font (samples/support/font.cpp), centred; RGB / 255.
  * model (tensorgrad/models/nerf_tiny.h): (x, y) at pixel centres in [-1, 1] -> [sin | cos] of
    each coordinate times pi 2^k, k < 8 -> 32 -> H -> H -> H -> 3 (ReLU, sigmoid); MSE.
  * init: tensorgrad's numbers for a seed (Mulberry32(seed), Box-Muller, W ~ N(0, 0.02^2) for
    l1..l4 in order, biases 0).
  * data: each step --batch pixels, index floor(u * pixels) with u from
    Mulberry32(seed ^ 0x9e3779b9), as the app; Adam lr 1e-3 (tensorgrad's: common.Adam).
  * metrics renderMse, psnrDb: every pixel rendered, PSNR = 10 log10(1 / MSE), as the app.
So seed 42 is the app's default run number for number, up to float rounding.

  /usr/bin/python3 samples/reference/nerf_tiny.py --steps 1000 --seeds 3 --json /tmp/refs/nerf_tiny.json
"""
import argparse
import math

from common import Adam, Mulberry32, init_linears, torch, write
import torch.nn.functional as F

torch.set_num_threads(1)

GLYPHS = {  # the samples' 5x7 font, the letters of the word
    "T": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."],
    "E": ["#####", "#....", "#....", "####.", "#....", "#....", "#####"],
    "N": ["#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"],
    "S": [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
    "O": [".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
    "R": ["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"],
    "G": [".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"],
    "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
    "D": ["###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."],
}


def scene(w, h):
    """[h * w, 3] f32 RGB in [0, 1], row-major, as renderScene."""
    inner, outer = (0xF9, 0x73, 0x16), (0x1E, 0x29, 0x3B)
    r0, r1 = 4.0, w * 0.7
    img = [[0, 0, 0] for _ in range(w * h)]
    for y in range(h):
        for x in range(w):
            t = min(max((math.hypot(x + 0.5 - w / 2, y + 0.5 - h / 2) - r0) / (r1 - r0), 0.0), 1.0)
            img[y * w + x] = [math.floor(i + t * (o - i) + 0.5) for i, o in zip(inner, outer)]
    word = "TENSORGRAD"
    x0, y0 = int((w - (6 * len(word) - 1)) / 2), int((h - 7) / 2)  # C++ division truncates
    for n, ch in enumerate(word):
        for r, row in enumerate(GLYPHS[ch]):
            for k, bit in enumerate(row):
                x, y = x0 + 6 * n + k, y0 + r
                if bit == "#" and 0 <= x < w and 0 <= y < h:
                    img[y * w + x] = [255, 255, 255]
    return torch.tensor(img, dtype=torch.float32) / 255


class Nerf(torch.nn.Module):
    def __init__(self, freqs, hidden):
        super().__init__()
        self.l1, self.l2 = torch.nn.Linear(4 * freqs, hidden), torch.nn.Linear(hidden, hidden)
        self.l3, self.l4 = torch.nn.Linear(hidden, hidden), torch.nn.Linear(hidden, 3)
        self.freqs = torch.tensor([math.pi * 2 ** k for k in range(freqs)], dtype=torch.float32)

    def forward(self, coords):  # [B, 2] -> [B, 3]
        s = (coords.unsqueeze(2) * self.freqs).reshape(coords.shape[0], -1)  # x·f0..x·f7, y·f0..y·f7
        h = torch.cat([torch.sin(s), torch.cos(s)], 1)
        h = F.relu(self.l3(F.relu(self.l2(F.relu(self.l1(h))))))
        return torch.sigmoid(self.l4(h))


def run(a, seed, target, grid):
    model = Nerf(8, a.hidden)
    init_linears(seed, [model.l1, model.l2, model.l3, model.l4])
    opt = Adam(model.parameters(), lr=1e-3)
    rng, pixels, losses = Mulberry32(seed ^ 0x9E3779B9), len(grid), []
    for _ in range(a.steps):
        idx = torch.tensor([int(rng.next() * pixels) for _ in range(a.batch)])
        loss = torch.mean((model(grid[idx]) - target[idx]) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        mse = float(torch.mean((model(grid).double() - target.double()) ** 2))
    psnr = 10 * math.log10(1 / max(mse, 1e-12))
    print(f"seed {seed}: final loss {loss.item():.6g} after {a.steps} steps; rendered view MSE {mse:.6g}, "
          f"PSNR {psnr:.2f} dB", flush=True)
    return {"seed": seed, "finalLoss": loss.item(), "renderMse": mse, "psnrDb": psnr, "losses": losses}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=1024, help="random pixels per step")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--size", type=int, default=64, help="image width and height")
    ap.add_argument("--seed", type=int, default=42, help="init and pixel draws, as nerf_tiny --seed")
    ap.add_argument("--seeds", type=int, default=3, help="runs with seeds --seed .. --seed+N-1")
    ap.add_argument("--json", help="write the runs and their spread here (for check.py)")
    a = ap.parse_args()
    n = a.size
    target = scene(n, n)
    grid = torch.tensor([[2 * (c + 0.5) / n - 1, 2 * (r + 0.5) / n - 1] for r in range(n) for c in range(n)],
                        dtype=torch.float32)
    runs = [run(a, a.seed + i, target, grid) for i in range(a.seeds)]
    write(a.json, "nerf_tiny", {"steps": a.steps, "batch": a.batch, "hidden": a.hidden, "size": n}, runs,
          ["finalLoss", "renderMse", "psnrDb"])


if __name__ == "__main__":
    main()
