"""What the PyTorch references share: upstream's Mulberry32 stream, tensorgrad's Box-Muller
initialisation, the samples' Fashion-MNIST loader and epoch sampler, the run-to-run spread over
seeds, and the JSON the tests and samples/README.md read."""
import gzip
import json
import math
import os
import statistics
import struct
import sys

try:
    import torch
except ImportError:  # the references are PyTorch; say which Debian package provides it
    sys.exit("samples/reference needs PyTorch: install the Debian package 'python3-torch'")


class Mulberry32:
    """tensorgrad's (and upstream's) 32-bit generator: next() is uniform in [0, 1)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self):
        self.state = (self.state + 0x6D2B79F5) & 0xFFFFFFFF
        t = self.state
        t = ((t ^ (t >> 15)) * (t | 1)) & 0xFFFFFFFF
        t ^= (t + ((t ^ (t >> 7)) * (t | 61) & 0xFFFFFFFF)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296.0


def normal(rng):
    """tensorgrad's Box-Muller (tensorgrad/src/front/module.cpp): cos branch, u1 >= 1e-10."""
    u1 = max(1e-10, rng.next())
    u2 = rng.next()
    return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)


def normals(rng, n, std):
    """n draws of N(0, std^2) from rng, each rounded to f32, as tensorgrad's init.randn(std)."""
    return torch.tensor([normal(rng) * std for _ in range(n)], dtype=torch.float32)


def init_linears(seed, linears):
    """tensorgrad's default init of its Linears (tensorgrad/src/front/nn.cpp), in declaration order
    from one Mulberry32(seed) stream: W [in, out] ~ N(0, 0.02^2) filled row-major, b = 0 (no
    draws). torch keeps W as [out, in], so the stream is transposed into it."""
    rng = Mulberry32(seed)
    with torch.no_grad():
        for lin in linears:
            out_dim, in_dim = lin.weight.shape
            lin.weight.copy_(normals(rng, in_dim * out_dim, 0.02).reshape(in_dim, out_dim).t())
            lin.bias.zero_()
    return rng


class Adam(torch.optim.Optimizer):
    """tensorgrad's Adam (tensorgrad/src/optim/optimizer.cpp), which folds both bias corrections
    into the step: p -= lr sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps). torch.optim.Adam
    divides only sqrt(v) by sqrt(1 - b2^t), so its eps is effectively smaller early on; that is
    enough to flip a sampled move of the RL apps within 15 steps."""

    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps})
        self.t = 0

    @torch.no_grad()
    def step(self):
        self.t += 1
        for group in self.param_groups:
            b1, b2 = group["betas"]
            lrt = torch.tensor(group["lr"] * math.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t), dtype=torch.float32)
            for p in group["params"]:
                s = self.state[p]
                if not s:
                    s["m"], s["v"] = torch.zeros_like(p), torch.zeros_like(p)
                s["m"].mul_(b1).add_(p.grad, alpha=1 - b1)
                s["v"].mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                p.sub_(lrt * s["m"] / (s["v"].sqrt() + group["eps"]))


def read_idx(path):
    """An IDX file (gzipped or not) as a numpy array."""
    import numpy as np
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        data = f.read()
    ndims = data[3]
    dims = [int.from_bytes(data[4 + 4 * d:8 + 4 * d], "big") for d in range(ndims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndims).reshape(dims)


FASHION_MNIST = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist


def load_fashion_mnist(data_dir, prefix, limit):
    """samples/support/fashion_mnist.cpp: the first `limit` images (0: all) of split `prefix`
    ("train" or "t10k") as f32 pixels / 255 [N, 1, 28, 28] and int64 labels [N]."""
    import numpy as np

    def find(stem):
        for name in (stem + ".gz", stem):
            if os.path.exists(os.path.join(data_dir, name)):
                return os.path.join(data_dir, name)
        raise FileNotFoundError(os.path.join(data_dir, stem + ".gz"))
    x = read_idx(find(prefix + "-images-idx3-ubyte")).astype(np.float32) / np.float32(255)
    y = read_idx(find(prefix + "-labels-idx1-ubyte")).astype(np.int64)
    if limit > 0:
        x, y = x[:limit], y[:limit]
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(y)


class BatchSampler:
    """samples/support/sampler.cpp: each epoch a Fisher-Yates shuffle from Mulberry32(seed)
    (for i = n-1 .. 1: j = floor(next() * (i + 1)), swap), batches crossing epochs."""

    def __init__(self, count, seed):
        self.rng, self.order, self.cursor = Mulberry32(seed), list(range(count)), 0
        self.shuffle()

    def shuffle(self):
        o = self.order
        for i in range(len(o) - 1, 0, -1):
            j = int(self.rng.next() * (i + 1))
            o[i], o[j] = o[j], o[i]

    def next(self, batch):
        out = []
        while len(out) < batch:
            if self.cursor == len(self.order):
                self.shuffle()
                self.cursor = 0
            out.append(self.order[self.cursor])
            self.cursor += 1
        return out


def accuracy(model, x, y, batch=256):
    """The fraction of x the model classifies as y, in batches (the apps' test-set probe)."""
    with torch.no_grad():
        correct = sum((model(x[i:i + batch]).argmax(1) == y[i:i + batch]).sum().item()
                      for i in range(0, len(x), batch))
    return correct / len(x)


def sin_series(x):
    """tensorgrad/models/taylor_trig.h: sin by its Taylor series in double (kan_tiny's targets,
    cartpole's physics), term for term as the app computes it."""
    x2, term, s = x * x, x, x
    for k in range(1, 13):
        term = -term * x2 / ((2 * k) * (2 * k + 1))
        s += term
    return s


def cos_series(x):
    """tensorgrad/models/taylor_trig.h: cos by its Taylor series in double."""
    x2, term, s = x * x, 1.0, 1.0
    for k in range(1, 13):
        term = -term * x2 / ((2 * k - 1) * (2 * k))
        s += term
    return s


def f32(v):
    """v rounded to f32, as the apps store their feeds."""
    return struct.unpack("f", struct.pack("f", v))[0]


def spread(runs, key):
    """min, mean and max of runs[i][key] over the seeds."""
    values = [r[key] for r in runs]
    return {"min": min(values), "mean": statistics.fmean(values), "max": max(values)}


def write(path, app, config, runs, keys):
    out = {"app": app, "torch": torch.__version__, "config": config, "runs": runs,
           "spread": {k: spread(runs, k) for k in keys}}
    text = json.dumps(out, indent=1)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
    print(json.dumps(out["spread"], indent=1))


# ---- Shared by makemore.py, pokeformer.py and transformer.py ----

def read_words(path, min_len, max_len, capitalised=False):
    """samples/support/words.cpp's readWords: file order, lines of min_len..max_len bytes that are
    lowercase a-z (or, capitalised, one A-Z then a-z, returned lowercased), duplicates dropped."""
    words, seen = [], set()
    with open(path, "rb") as f:
        for raw in f.read().split(b"\n"):
            line = raw.decode("latin-1").removesuffix("\r")
            if not min_len <= len(line) <= max_len:
                continue
            first_ok = "A" <= line[0] <= "Z" if capitalised else "a" <= line[0] <= "z"
            if not first_ok or not all("a" <= c <= "z" for c in line[1:]):
                continue
            line = line.lower()
            if line not in seen:
                seen.add(line)
                words.append(line)
    return words


def lr_linear(peak, final, steps):
    """tensorgrad/src/optim/lr.cpp, steps counted from 1: peak + (final - peak) * min(t / steps, 1)."""
    return lambda t: peak + (final - peak) * min(max(t, 1) / steps, 1.0)


def lr_cosine(peak, final, steps):
    return lambda t: final + 0.5 * (peak - final) * (1 + math.cos(math.pi * min(max(t, 1) / steps, 1.0)))


def lr_warmup(peak, steps, after):
    """peak * t / steps for t <= steps, then `after` from its own step 1."""
    return lambda t: peak * t / steps if t <= steps else after(t - steps)


class Decoder(torch.nn.Module):
    """The decoder of tensorgrad/models/{makemore,transformer,pokeformer}.h with tensorgrad's
    parameter names, layout (a Linear's W is [in, out]: y = x W + b) and declaration order:
    tok_emb [vocab, d], pos_emb [seq_len, d] (if seq_len), per block a pre-norm, causal multi-head
    attention q, k, v, o without biases, a second pre-norm, a ReLU MLP d -> 4d -> d with biases;
    a final norm; logits = norm(x) tok_emb^T (tied head). norm "layer": LayerNorm g, b (eps 1e-5);
    "rms": RMSNorm g (eps 1e-6). rope: rotary embeddings on q and k (half-split pairs, base 1e4)
    as tensorgrad's rope(). Weights are tensorgrad's init.randn(0.02) draws number for number
    (Mulberry32(seed), Box-Muller, one stream in declaration order); ones and zeros draw nothing."""

    def __init__(self, vocab, d, layers, heads, seed, seq_len=None, norm="layer", rope=False):
        super().__init__()
        self.d, self.layers, self.heads, self.norm, self.rope = d, layers, heads, norm, rope
        specs = []  # (path, shape, init)
        n1, n2, nf = ("ln1", "ln2", "lnf") if norm == "layer" else ("n1", "n2", "nf")
        self.names = (n1, n2, nf)

        def norm_params(path):
            specs.append((path + ".g", (d,), "ones"))
            if norm == "layer":
                specs.append((path + ".b", (d,), "zeros"))
        specs.append(("tok_emb", (vocab, d), "randn"))
        if seq_len:
            specs.append(("pos_emb", (seq_len, d), "randn"))
        for i in range(layers):
            p = f"layers.{i}."
            norm_params(p + n1)
            specs += [(p + f"attn.{w}.W", (d, d), "randn") for w in "qkvo"]
            norm_params(p + n2)
            specs += [(p + "mlp.up.W", (d, 4 * d), "randn"), (p + "mlp.up.b", (4 * d,), "zeros"),
                      (p + "mlp.down.W", (4 * d, d), "randn"), (p + "mlp.down.b", (d,), "zeros")]
        norm_params(nf)
        rng = Mulberry32(seed)
        self.p, self.decayed = {}, []
        for path, shape, init in specs:
            if init == "randn":
                value = normals(rng, math.prod(shape), 0.02).reshape(shape)
            else:
                value = (torch.ones if init == "ones" else torch.zeros)(shape)
            param = torch.nn.Parameter(value)
            self.register_parameter(path.replace(".", "_"), param)
            self.p[path] = param
            if init == "randn":  # tensorgrad's AdamW decays randn-initialised params only
                self.decayed.append(path)

    def _norm(self, x, path):
        if self.norm == "layer":
            return torch.nn.functional.layer_norm(x, (self.d,), self.p[path + ".g"], self.p[path + ".b"], 1e-5)
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.p[path + ".g"]

    @staticmethod
    def _rotate(x):
        t, dh = x.shape[-2], x.shape[-1]
        half = dh // 2
        freqs = torch.exp(torch.arange(half, dtype=torch.float32) * (-math.log(10000.0) / half))
        angles = torch.arange(t, dtype=torch.float32)[:, None] * freqs[None, :]
        cos, sin = torch.cos(angles).repeat(1, 2), torch.sin(angles).repeat(1, 2)
        return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin

    def _attn(self, x, path):
        b, t, d = x.shape
        h = self.heads

        def split(w):
            return (x @ self.p[path + w + ".W"]).view(b, t, h, d // h).transpose(1, 2)
        q, k, v = split("q"), split("k"), split("v")
        if self.rope:
            q, k = self._rotate(q), self._rotate(k)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)
        probs = torch.softmax(scores.masked_fill(causal, float("-inf")), -1)
        return (probs @ v).transpose(1, 2).reshape(b, t, d) @ self.p[path + "o.W"]

    def forward(self, tokens):
        """tokens [B, T] (int64) -> logits [B, T, vocab]."""
        p, (n1, n2, nf) = self.p, self.names
        x = p["tok_emb"][tokens]
        if "pos_emb" in p:
            x = x + p["pos_emb"][: tokens.shape[1]]
        for i in range(self.layers):
            L = f"layers.{i}."
            x = x + self._attn(self._norm(x, L + n1), L + "attn.")
            hidden = torch.relu(self._norm(x, L + n2) @ p[L + "mlp.up.W"] + p[L + "mlp.up.b"])
            x = x + hidden @ p[L + "mlp.down.W"] + p[L + "mlp.down.b"]
        return self._norm(x, nf) @ p["tok_emb"].t()

    def adamw(self, weight_decay=0.01):
        """torch's AdamW (betas 0.9/0.999, eps 1e-8) with decoupled decay on the randn params only.
        tensorgrad folds the bias corrections into the step (its eps is larger by 1/sqrt(1-b2^t),
        as common.Adam): no visible change to makemore's or pokeformer's losses, but it moves when
        a transformer run leaves its plateau, as any 1e-6 perturbation does."""
        decay = [self.p[n] for n in self.decayed]
        rest = [q for n, q in self.p.items() if n not in self.decayed]
        return torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                                  {"params": rest, "weight_decay": 0.0}], lr=0.0, betas=(0.9, 0.999), eps=1e-8)


def masked_ce(logits, targets, mask):
    """sum(crossEntropy(logits, targets, none) * mask), as the apps' losses."""
    ce = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none")
    return (ce * mask.reshape(-1)).sum()


def mean_masked_ce(model, batches):
    """The mean of masked_ce over (x, y, mask) batches, without gradients (a held-out loss)."""
    with torch.no_grad():
        losses = [masked_ce(model(x), y, m).item() for x, y, m in batches]
    return sum(losses) / len(losses)


def train_masked(model, opt, lr, steps, next_batch):
    """`steps` training steps on next_batch() -> (x, y, mask), step k at lr(k); their losses."""
    losses = []
    for step in range(1, steps + 1):
        x, y, m = next_batch()
        losses.append(train_step(model, opt, masked_ce(model(x), y, m), lr(step)))
    return losses


def train_step(model, opt, loss, lr, clip=1.0):
    """One tensorgrad training step: backward, clip by global norm (max / (norm + 1e-6)), AdamW at lr."""
    for group in opt.param_groups:
        group["lr"] = lr
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    opt.step()
    return loss.item()
