#!/usr/bin/python3
"""Writes PyTorch golden values for the tensorgrad op, optimizer and LR-schedule tests.

Run with Debian's python3-torch:  /usr/bin/python3 tests/tensorgrad/golden/gen_golden.py
The JSON files it writes are committed; the tests (and CI) only read them.
"""
import json
import math
import os

import torch
import torch.nn.functional as F

torch.manual_seed(20261122)
HERE = os.path.dirname(os.path.abspath(__file__))


def t(shape, lo=-1.0, hi=1.0):
    return (torch.rand(shape, dtype=torch.float32) * (hi - lo) + lo)


def enc(x):
    if x.dtype == torch.bool:
        x = x.to(torch.int32)
    dtype = "f32" if x.dtype == torch.float32 else "i32"
    if dtype == "i32":
        x = x.to(torch.int32)
    return {"shape": list(x.shape), "dtype": dtype, "data": x.reshape(-1).tolist()}


cases = []


def case(name, inputs, fn):
    out = fn(*inputs)
    cases.append({"name": name, "inputs": [enc(x) for x in inputs], "out": enc(out)})


pos = lambda s: t(s, 0.3, 1.5)
idx = lambda s, n: torch.randint(0, n, s, dtype=torch.int32)

case("add_broadcast", [t([2, 3, 4]), t([4])], lambda a, b: a + b)
case("sub_broadcast", [t([3, 1]), t([2, 3, 4])], lambda a, b: a - b)
case("mul_broadcast", [t([2, 3]), t([1, 3])], lambda a, b: a * b)
case("div_broadcast", [t([2, 3]), pos([3])], lambda a, b: a / b)
case("min", [t([6]), t([6])], torch.minimum)
case("max", [t([2, 3]), t([3])], torch.maximum)
case("rsub_scalar", [t([5])], lambda a: 2.0 - a)
case("rdiv_scalar", [pos([5])], lambda a: 3.0 / a)
case("div_scalar", [t([5])], lambda a: a / 4.0)
case("clamp", [t([8])], lambda a: a.clamp(-0.5, 0.5))
case("sqrt", [pos([7])], torch.sqrt)
case("rsqrt", [pos([7])], torch.rsqrt)
case("log", [pos([7])], torch.log)
case("exp", [t([7], -3, 3)], torch.exp)
case("relu", [t([7])], torch.relu)
case("neg", [t([7])], torch.neg)
case("abs", [t([7])], torch.abs)
case("tanh", [t([7], -3, 3)], torch.tanh)
case("sigmoid", [t([7], -6, 6)], torch.sigmoid)
case("erf", [t([9], -3, 3)], torch.erf)
case("sin", [t([7], -4, 4)], torch.sin)
case("cos", [t([7], -4, 4)], torch.cos)
case("gelu", [t([2, 5], -3, 3)], F.gelu)
case("gelu_tanh", [t([2, 5], -3, 3)], lambda a: F.gelu(a, approximate="tanh"))
case("silu", [t([7], -3, 3)], F.silu)
case("softplus", [t([7], -30, 30)], F.softplus)
case("leaky_relu", [t([7])], lambda a: F.leaky_relu(a, 0.1))
case("square", [t([7])], torch.square)
case("mean_axis1_keepdims", [t([2, 3, 4])], lambda a: a.mean(1, keepdim=True))
case("sum_last", [t([2, 3, 4])], lambda a: a.sum(-1))
case("sum_axis0_keepdims", [t([2, 3, 4])], lambda a: a.sum(0, keepdim=True))
case("mean_all", [t([3, 4])], lambda a: a.mean())
case("sum_all", [t([3, 4])], lambda a: a.sum())
case("argmax_axis1", [t([3, 5])], lambda a: a.argmax(1))
case("argmin_axis0", [t([3, 5])], lambda a: a.argmin(0))
case("argmax_all", [t([3, 5])], lambda a: a.argmax())
case("reshape_infer", [t([2, 6])], lambda a: a.reshape(3, -1))
case("permute", [t([2, 3, 4])], lambda a: a.permute(2, 0, 1))
case("swap_axes", [t([2, 3, 4])], lambda a: a.transpose(-1, 0))
case("matmul_broadcast", [t([2, 3, 4]), t([4, 5])], torch.matmul)
case("matmul_batched", [t([2, 3, 4]), t([2, 4, 2])], torch.matmul)
case("softmax_axis0", [t([3, 4], -3, 3)], lambda a: torch.softmax(a, 0))
case("log_softmax", [t([2, 5], -3, 3)], lambda a: torch.log_softmax(a, -1))
mask = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)
case("softmax_causal", [t([2, 4, 4], -3, 3)], lambda a: torch.softmax(a.masked_fill(mask, float("-inf")), -1))
case("where_causal", [t([3, 3])], lambda a: a.masked_fill(torch.triu(torch.ones(3, 3, dtype=torch.bool), 1), -7.0))
case("less", [t([2, 3]), t([3])], torch.lt)
case("greater_scalar", [t([2, 3])], lambda a: a > 0.25)
case("where", [t([2, 3]), t([2, 3]), t([3])], lambda c, a, b: torch.where(c < 0, a, b))
case("one_hot", [idx([2, 3], 5)], lambda i: F.one_hot(i.long(), 5).float())
case("embedding", [t([6, 4]), idx([2, 3], 6)], lambda w, i: F.embedding(i.long(), w))
case("take_along_axis", [t([3, 4]), idx([3, 2], 4)], lambda a, i: torch.gather(a, 1, i.long()))
case("narrow", [t([3, 5])], lambda a: a.narrow(-1, 1, 3))
case("concat", [t([2, 3]), t([2, 2])], lambda a, b: torch.cat([a, b], 1))
case("concat_nine", [t([1, 2]) for _ in range(9)], lambda *xs: torch.cat(xs, 0))
case("stack", [t([2, 3]), t([2, 3])], lambda a, b: torch.stack([a, b], 1))
case("split_second", [t([2, 6])], lambda a: torch.split(a, [2, 4], -1)[1])
case("conv2d", [t([2, 2, 5, 5]), t([3, 2, 3, 3])], lambda x, w: F.conv2d(x, w))
case("conv2d_stride_pad", [t([1, 2, 6, 5]), t([4, 2, 3, 2])], lambda x, w: F.conv2d(x, w, stride=(2, 1), padding=(1, 1)))
case("conv2d_groups", [t([1, 4, 5, 5]), t([6, 2, 3, 3])], lambda x, w: F.conv2d(x, w, padding=1, groups=2))
case("max_pool2d", [t([1, 2, 4, 4])], lambda x: F.max_pool2d(x, 2))
case("max_pool2d_pad", [t([1, 1, 5, 5])], lambda x: F.max_pool2d(x, 3, stride=2, padding=1))
case("nearest_upsample2d", [t([1, 2, 2, 3])], lambda x: F.interpolate(x, scale_factor=2, mode="nearest"))
case("cross_entropy_mean", [t([4, 5], -2, 2), idx([4], 5)], lambda x, y: F.cross_entropy(x, y.long()))
case("cross_entropy_sum_3d", [t([2, 3, 5], -2, 2), idx([2, 3], 5)],
     lambda x, y: F.cross_entropy(x.reshape(-1, 5), y.reshape(-1).long(), reduction="sum"))
case("cross_entropy_none", [t([4, 5], -2, 2), idx([4], 5)], lambda x, y: F.cross_entropy(x, y.long(), reduction="none"))
case("nll_loss", [torch.log_softmax(t([4, 5]), -1), idx([4], 5)], lambda x, y: F.nll_loss(x, y.long()))
case("layer_norm", [t([2, 3, 4]), pos([4]), t([4])], lambda x, g, b: F.layer_norm(x, [4], g, b, 1e-5))
case("rms_norm", [t([2, 3, 4]), pos([4])], lambda x, g: x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-6) * g)


def rope_ref(q):  # rotate-half RoPE, base 10000, positions along axis -2
    T, D = q.shape[-2], q.shape[-1]
    half = D // 2
    freqs = torch.exp(torch.arange(half, dtype=torch.float32) * (-math.log(10000.0) / half))
    ang = torch.arange(T, dtype=torch.float32)[:, None] * freqs[None, :]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
    rot = torch.cat([-q[..., half:], q[..., :half]], -1)
    return q * cos + rot * sin


case("rope_q", [t([2, 3, 4])], rope_ref)

with open(os.path.join(HERE, "ops.json"), "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f)

# ---- Optimizer trajectories: p0 and a fixed gradient per step; p after every step. ----
p0 = t([5])
grads = t([6, 5], -2, 2)


def trajectory(make, schedule=None, transform=None):
    p = torch.nn.Parameter(p0.clone())
    opt = make([p])
    sched = schedule(opt) if schedule else None
    out = []
    for g in grads:
        p.grad = g.clone()
        if transform:
            transform(p)
        opt.step()
        if sched:
            sched.step()
        out.append(p.detach().clone().tolist())
    return out


optim = {
    "p0": p0.tolist(),
    "grads": grads.tolist(),
    "adam": trajectory(lambda ps: torch.optim.Adam(ps, lr=0.01)),
    "adam_betas": trajectory(lambda ps: torch.optim.Adam(ps, lr=0.02, betas=(0.8, 0.99), eps=1e-6)),
    "adamw": trajectory(lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.1)),
    "sgd": trajectory(lambda ps: torch.optim.SGD(ps, lr=0.1)),
    "sgd_momentum": trajectory(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
    "sgd_nesterov": trajectory(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True)),
    "sgd_l2": trajectory(lambda ps: torch.optim.SGD(ps, lr=0.1, weight_decay=0.01)),
    "sgd_clip": trajectory(lambda ps: torch.optim.SGD(ps, lr=0.1),
                           transform=lambda p: torch.nn.utils.clip_grad_norm_([p], 0.5)),
    "sgd_normalize": trajectory(lambda ps: torch.optim.SGD(ps, lr=0.1),
                                transform=lambda p: p.grad.div_(p.grad.norm() + 1e-8)),
    # tensorgrad's step s uses the schedule value torch reaches after s scheduler steps.
    "adam_linear_lr": trajectory(
        lambda ps: torch.optim.Adam(ps, lr=0.01),
        lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1.0 + (0.1 - 1.0) * min((e + 1) / 4, 1.0))),
}
with open(os.path.join(HERE, "optim.json"), "w") as f:
    json.dump(optim, f)


# ---- LR schedules: torch's value after e scheduler steps, e = 0..N. ----
def lrs(make_sched, n=12, lr=0.1):
    p = torch.nn.Parameter(torch.zeros(1))
    o = torch.optim.SGD([p], lr=lr)
    s = make_sched(o)
    out = []
    for _ in range(n + 1):
        out.append(o.param_groups[0]["lr"])
        o.step()
        s.step()
    return out


schedules = {
    "linear": lrs(lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=8)),
    "cosine": lrs(lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=8, eta_min=0.001)),
    "step": lrs(lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5)),
    "multistep": lrs(lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 5, 9], gamma=0.3)),
}
with open(os.path.join(HERE, "lr.json"), "w") as f:
    json.dump(schedules, f)
print(f"wrote {len(cases)} op cases, {len(optim) - 2} optimizer trajectories, {len(schedules)} schedules")
