#!/usr/bin/env python3
"""PyTorch's side of the fast-kernel comparison: the training steps step_bench's size sweep times
(BM_StepMlpSweep, BM_StepTransformerSweep), written in PyTorch on CUDA, timed eager and replayed
as a CUDA graph, with TF32 off (f32 matmuls throughout, as ours).

A step is what tensorgrad's step is: the batch copied from host memory to the GPU, forward,
backward, clipping and the optimizer, and the loss read back to the host before the next step
(`sync`). The `graph, no sync` column keeps every loss on the GPU and waits once at the end, the
most PyTorch can do.

The models are step_bench's: the MLP 1 → H → H → 1 (ReLU, MSE, Adam lr 0.005) on x ∈ [−π, π],
y = sin x; upstream's transformer sample (token and position embeddings, pre-norm blocks of causal
multi-head attention without biases and a 4·D ReLU MLP, a tied output embedding, cross-entropy on
the last three positions; AdamW with a linear LR schedule, weight decay 0.01 on the matrices,
gradient clipping at 1.0). Attention is written out (matmul, causal softmax, matmul) as the
tensorgrad model computes it.

It also times PyTorch's copy, add and relu over 16M f32 (reduce_bench's element-wise sizes), 10
back-to-back launches a run, as GB/s counting every byte read and written: the bandwidth reference
for the element-wise target.

With --compile it also times the strongest PyTorch variant: the loss (forward + backward through
AOTAutograd) and the clip + optimizer update compiled by torch.compile (Inductor, mode "default"),
the whole step captured as one CUDA graph and replayed, with its cold compile time (the three
warm-up steps).

  python3 bench/torch_steps.py [--steps N] [--repetitions R] [--only mlp|transformer|bandwidth] [--compile]

Prints one row per model with the median milliseconds per step of R timed runs of N steps, then
one row per element-wise op with the median GB/s of R runs.
"""
import argparse
import math
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp_case(hidden, batch, device):
    model = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, 1)).to(device)
    g = torch.Generator().manual_seed(7)
    x = ((torch.rand(batch, 1, generator=g) * 2 - 1) * math.pi).pin_memory()
    host = {"x": x, "y": torch.sin(x).pin_memory()}
    opt_args = dict(lr=0.005)

    def loss_fn(inp):
        diff = model(inp["x"]) - inp["y"]
        return (diff * diff).mean()

    def optimizer(capturable):
        return torch.optim.Adam(model.parameters(), capturable=capturable, **opt_args)

    return model, host, loss_fn, optimizer, None


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d, eps=1e-5)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.ln2 = nn.LayerNorm(d, eps=1e-5)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def attention(self, x):
        b, t, d = x.shape
        split = lambda y: y.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(d // self.heads))
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        attn = scores.masked_fill(causal, float("-inf")).softmax(-1)
        return self.o((attn @ v).transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.down(F.relu(self.up(self.ln2(x))))


class Transformer(nn.Module):
    def __init__(self, vocab, d, layers, heads, seq_len):
        super().__init__()
        self.tok_emb = nn.Parameter(torch.randn(vocab, d) * 0.02)
        self.pos_emb = nn.Parameter(torch.randn(seq_len, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.lnf = nn.LayerNorm(d, eps=1e-5)

    def forward(self, tokens):
        x = self.tok_emb[tokens] + self.pos_emb[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.lnf(x) @ self.tok_emb.t()


def transformer_case(d, layers, batch, t, device, vocab=12, result_digits=3):
    heads = 8 if d > 64 else 4
    model = Transformer(vocab, d, layers, heads, t + 1).to(device)
    g = torch.Generator().manual_seed(11)
    host = {
        "tokens": torch.randint(0, vocab, (batch, t), generator=g).pin_memory(),
        "targets": torch.randint(0, vocab, (batch, t), generator=g).pin_memory(),
        "mask": torch.cat([torch.zeros(t - result_digits), torch.ones(result_digits)]).pin_memory(),
    }
    scale = 1.0 / (batch * result_digits)

    def loss_fn(inp):
        logits = model(inp["tokens"])
        ce = F.cross_entropy(logits.reshape(-1, vocab), inp["targets"].reshape(-1), reduction="none")
        return (ce.view(batch, t) * inp["mask"]).sum() * scale

    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]

    def optimizer(capturable):
        # A tensor LR, so the schedule can change it between graph replays.
        lr = torch.tensor(0.005, device=device) if capturable else 0.005
        return torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                                  {"params": rest, "weight_decay": 0.0}],
                                 lr=lr, capturable=capturable)

    def schedule(step):  # linear 0.005 → 0.0005 over 1500 steps
        return 0.005 + (0.0005 - 0.005) * min(step, 1500) / 1500

    return model, host, loss_fn, optimizer, schedule


def timed(run_steps, steps, repetitions):
    """Median over repetitions of the milliseconds per step of `steps` steps."""
    per_step = []
    for _ in range(repetitions):
        torch.cuda.synchronize()
        start = time.perf_counter()
        run_steps(steps)
        torch.cuda.synchronize()
        per_step.append((time.perf_counter() - start) * 1e3 / steps)
    return statistics.median(per_step)


def compiled_parts(case, static):
    """The compiled variant's optimizer and step: the loss (forward and backward through
    AOTAutograd) and the clip + optimizer update, each compiled by torch.compile (Inductor, mode
    "default"), reading the batch from `static`."""
    model, _, loss_fn, make_optimizer, schedule = case
    params = list(model.parameters())
    clip = schedule is not None  # the transformer clips, as its sample does
    opt = make_optimizer(True)
    compiled_loss = torch.compile(loss_fn, mode="default")

    @torch.compile(mode="default")
    def update():
        if clip:
            torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)
        opt.step()

    def compiled_step():
        opt.zero_grad(set_to_none=False)
        loss = compiled_loss(static)
        loss.backward()
        update()
        return loss

    return opt, compiled_step


def bench(case, steps, repetitions, device, compile_too=False):
    model, host, loss_fn, make_optimizer, schedule = case
    params = list(model.parameters())
    clip = schedule is not None  # the transformer clips, as its sample does
    static = {k: v.to(device) for k, v in host.items()}

    def load_batch():
        for k, v in host.items():
            static[k].copy_(v, non_blocking=True)

    def train_step(opt):
        opt.zero_grad(set_to_none=False)
        loss = loss_fn(static)
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)
        opt.step()
        return loss

    def set_lr(opt, step):
        if schedule is not None:
            for group in opt.param_groups:
                if torch.is_tensor(group["lr"]):
                    group["lr"].fill_(schedule(step))
                else:
                    group["lr"] = schedule(step)

    # Eager.
    opt = make_optimizer(False)
    counter = [0]

    def eager(n):
        for _ in range(n):
            set_lr(opt, counter[0])
            counter[0] += 1
            load_batch()
            train_step(opt).item()

    eager(20)
    eager_ms = timed(eager, steps, repetitions)

    # CUDA graph: warm up on a side stream, capture one step, replay it.
    opt = make_optimizer(True)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            load_batch()
            train_step(opt)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_loss = train_step(opt)

    def replay(n, sync=True):  # the graph, optimizer and loss bound last (also the compiled ones)
        for _ in range(n):
            set_lr(opt, counter[0])
            counter[0] += 1
            load_batch()
            graph.replay()
            if sync:
                static_loss.item()

    replay(20)
    graph_ms = timed(replay, steps, repetitions)
    graph_nosync_ms = timed(lambda n: replay(n, sync=False), steps, repetitions)
    if not compile_too:
        return eager_ms, graph_ms, graph_nosync_ms

    # torch.compile (Inductor, mode "default") of the loss (forward and backward through
    # AOTAutograd) and of the clip + optimizer update, then the whole step captured as one CUDA
    # graph as above. The first three steps compile; their time is the cold compile.
    torch._dynamo.reset()
    opt, compiled_step = compiled_parts(case, static)

    start = time.perf_counter()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            load_batch()
            compiled_step()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    compile_s = time.perf_counter() - start
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_loss = compiled_step()
    replay(20)
    compiled_ms = timed(replay, steps, repetitions)
    compiled_nosync_ms = timed(lambda n: replay(n, sync=False), steps, repetitions)
    return eager_ms, graph_ms, graph_nosync_ms, compiled_ms, compiled_nosync_ms, compile_s


def bandwidth(repetitions, device, elements=16 << 20, launches=10):
    a = torch.rand(elements, device=device)
    b = torch.rand(elements, device=device)
    out = torch.empty_like(a)
    ops = {"copy": (lambda: out.copy_(a), 2), "add": (lambda: torch.add(a, b, out=out), 3),
           "relu": (lambda: torch.clamp(a, min=0, out=out), 2)}
    rows = []
    for name, (op, tensors) in ops.items():
        op()
        torch.cuda.synchronize()
        rates = []
        for _ in range(repetitions):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(launches):
                op()
            end.record()
            end.synchronize()
            seconds = start.elapsed_time(end) / 1e3 / launches
            rates.append(4 * elements * tensors / seconds / 1e9)
        rows.append((name, statistics.median(rates)))
    return rows


def f32_cuda_device(tool):
    """The CUDA device with TF32 off (f32 matmuls throughout, as ours); exits naming `tool` when
    there is none."""
    if not torch.cuda.is_available():
        raise SystemExit(f"{tool}: no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    return torch.device("cuda")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100, help="steps per timed run (default 100)")
    parser.add_argument("--repetitions", type=int, default=5, help="timed runs (default 5)")
    parser.add_argument("--only", choices=["mlp", "transformer", "bandwidth"],
                        help="one model family, or the element-wise bandwidths")
    parser.add_argument("--model", help="only the models whose name holds this text, e.g. D512")
    parser.add_argument("--compile", action="store_true",
                        help="also torch.compile (Inductor) the step and replay it as a CUDA graph; prints its cold "
                             "compile time (tens of seconds per model)")
    args = parser.parse_args()
    device = f32_cuda_device("torch_steps")
    print(f"# {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"TF32 off; median ms/step of {args.repetitions} runs of {args.steps} steps")
    header = f"{'model':32} {'eager':>9} {'graph':>9} {'graph, no sync':>15}"
    if args.compile:
        header += f" {'compile+graph':>14} {'c+g, no sync':>13} {'compile s':>10}"
    print(header)
    cases = []
    if args.only in (None, "mlp"):
        for hidden in (64, 256, 1024):
            for batch in (256, 4096):
                cases.append((f"mlp H{hidden} B{batch}", lambda h=hidden, b=batch: mlp_case(h, b, device)))
    if args.only in (None, "transformer"):
        for d, layers, batch, t in ((64, 3, 128, 8), (256, 6, 128, 8), (512, 8, 64, 64)):
            cases.append((f"transformer D{d} L{layers} B{batch} T{t}",
                          lambda d=d, l=layers, b=batch, t=t: transformer_case(d, l, b, t, device)))
    if args.model:
        cases = [(name, make) for name, make in cases if args.model in name]
    for name, make in cases:
        torch.manual_seed(0)
        steps = args.steps if "D512" not in name else max(args.steps // 4, 10)
        r = bench(make(), steps, args.repetitions, device, args.compile)
        row = f"{name:32} {r[0]:9.3f} {r[1]:9.3f} {r[2]:15.3f}"
        if args.compile:
            row += f" {r[3]:14.3f} {r[4]:13.3f} {r[5]:10.1f}"
        print(row, flush=True)
    if args.only in (None, "bandwidth"):
        print(f"{'element-wise, 16M f32':32} {'GB/s':>9}")
        for name, rate in bandwidth(args.repetitions, device):
            print(f"{name:32} {rate:9.0f}", flush=True)


if __name__ == "__main__":
    main()
