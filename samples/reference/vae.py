"""PyTorch reference for samples/vae: upstream's VAE on Fashion-MNIST, as the app trains it.

  * model (tensorgrad/models/vae.h): encoder 784 -> H -> H (ReLU) -> mu, log var (L each); decoder
    L -> H -> H (ReLU) -> 784 -> sigmoid; z = mu + exp(log var / 2) * eps.
  * loss per image, averaged over the batch: summed squared error + KL(q(z|x) || N(0, 1)).
  * init: tensorgrad's numbers for a seed (Mulberry32(seed), Box-Muller, W ~ N(0, 0.02^2) in
    declaration order enc1, enc2, encMu, encLogV, dec1, dec2, decOut; biases 0).
  * data: pixels / 255, batches from the app's epoch sampler (samples/support/sampler.cpp,
    Mulberry32(seed)), so a seed is the app's run image for image.
  * optimizer: global grad-norm clip 1, then Adam lr 1e-3 (tensorgrad's: common.Adam).
  * eps (--eps app, the default): the app's in-graph randn (tensorgrad/src/ops/random.cpp): at
    training step t (from 1) element k of [B, L] is Box-Muller of u1 = f32(h1) / 2^32 (at least
    1e-10) and u2 = f32(h2) / 2^32, h1 = pcg(t ^ k), h2 = pcg(h1); the step counter, not the seed,
    drives it, so every seed sees the same eps. --eps torch: torch.randn after manual_seed(seed).
So seed 42 is the app's default run: the losses agree to 1e-5 for the first 60 steps, then float
rounding grows as in any training (rounding alone moves the end result by about as much as the
seed does).
  * metric testReconstructionSse: decode(mu(x)) on the first --test-images test images, summed
    squared error per image, as the app reports it.

The app's defaults are upstream's (1500 steps, batch 128); on lavapipe it runs 800 steps at
batch 32, so pass those:

  /usr/bin/python3 samples/reference/vae.py --steps 800 --batch 32 --seeds 3 --json /tmp/refs/vae.json
"""
import argparse
import math

from common import Adam, FASHION_MNIST, BatchSampler, init_linears, load_fashion_mnist, torch, write
import torch.nn.functional as F

torch.set_num_threads(1)


def pcg(h):
    """tensorgrad's u32 hash, on int64 tensors holding u32 values."""
    m = 0xFFFFFFFF
    h = (h * 747796405 + 2891336453) & m
    h = (((h >> ((h >> 28) + 4)) ^ h) * 277803737) & m
    return (h >> 22) ^ h


def app_randn(step, shape):
    """The app's eps at training step `step` (the graph's randn, salt 0)."""
    h1 = pcg(torch.arange(math.prod(shape), dtype=torch.int64) ^ step)
    h2 = pcg(h1)
    u1 = torch.clamp(h1.to(torch.float32) / 4294967296.0, min=1e-10).double()
    u2 = (h2.to(torch.float32) / 4294967296.0).double()
    return (torch.sqrt(-2 * torch.log(u1)) * torch.cos(6.283185307179586 * u2)).float().reshape(shape)


class Vae(torch.nn.Module):
    def __init__(self, hidden, latent, pixels=784):
        super().__init__()
        self.enc1, self.enc2 = torch.nn.Linear(pixels, hidden), torch.nn.Linear(hidden, hidden)
        self.encMu, self.encLogV = torch.nn.Linear(hidden, latent), torch.nn.Linear(hidden, latent)
        self.dec1, self.dec2 = torch.nn.Linear(latent, hidden), torch.nn.Linear(hidden, hidden)
        self.decOut = torch.nn.Linear(hidden, pixels)

    def encode(self, x):
        h = F.relu(self.enc2(F.relu(self.enc1(x))))
        return self.encMu(h), self.encLogV(h)

    def decode(self, z):
        return torch.sigmoid(self.decOut(F.relu(self.dec2(F.relu(self.dec1(z))))))

    def loss(self, x, eps):
        mu, log_var = self.encode(x)
        z = mu + torch.exp(0.5 * log_var) * eps
        recon = ((self.decode(z) - x) ** 2).sum() / x.shape[0]
        kl = (-0.5 * (1 + log_var - mu ** 2 - torch.exp(log_var))).sum() / x.shape[0]
        return recon + kl


def run(a, seed, xtr, xte):
    torch.manual_seed(seed)
    model = m = Vae(a.hidden, a.latent)
    init_linears(seed, [m.enc1, m.enc2, m.encMu, m.encLogV, m.dec1, m.dec2, m.decOut])
    opt = Adam(model.parameters(), lr=1e-3)
    sampler, losses = BatchSampler(len(xtr), seed), []
    for step in range(a.steps):
        eps = app_randn(step + 1, (a.batch, a.latent)) if a.eps == "app" else torch.randn(a.batch, a.latent)
        loss = model.loss(xtr[sampler.next(a.batch)], eps)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        sse = float(((model.decode(model.encode(xte)[0]).double() - xte.double()) ** 2).sum()) / len(xte)
    print(f"seed {seed}: final loss {loss.item():.6g} after {a.steps} steps; test reconstruction error "
          f"{sse:.3f} on {len(xte)} images", flush=True)
    return {"seed": seed, "finalLoss": loss.item(), "testReconstructionSse": sse, "losses": losses}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--latent", type=int, default=8)
    ap.add_argument("--seed", type=int, default=42, help="init and data order, as vae --seed")
    ap.add_argument("--seeds", type=int, default=3, help="runs with seeds --seed .. --seed+N-1")
    ap.add_argument("--train-images", type=int, default=0, help="first N (0: all 60000)")
    ap.add_argument("--test-images", type=int, default=2000)
    ap.add_argument("--data", default=FASHION_MNIST)
    ap.add_argument("--eps", choices=["app", "torch"], default="app", help="the reparameterization's noise")
    ap.add_argument("--json", help="write the runs and their spread here (for check.py)")
    a = ap.parse_args()
    xtr = load_fashion_mnist(a.data, "train", a.train_images)[0].reshape(-1, 784)
    xte = load_fashion_mnist(a.data, "t10k", a.test_images)[0].reshape(-1, 784)
    runs = [run(a, a.seed + i, xtr, xte) for i in range(a.seeds)]
    config = {k: getattr(a, k) for k in ("steps", "batch", "hidden", "latent", "train_images", "test_images", "eps")}
    write(a.json, "vae", config, runs, ["finalLoss", "testReconstructionSse"])


if __name__ == "__main__":
    main()
