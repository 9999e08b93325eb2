#!/usr/bin/env python3
"""Where PyTorch's compiled step spends its GPU time: the step of bench/torch_steps.py's
torch.compile variant (the loss and the clip + optimizer update compiled by Inductor, mode
"default", TF32 off), run under torch.profiler, its CUDA kernels' device time summed by kind.

A GEMM is a kernel whose name says so (cuBLAS's and CUTLASS's: gemm, sgemm, cutlass, sm90_xmma,
ampere_sgemm); Triton kernels are Inductor's fused element-wise and reduction code; the rest are
ATen's own kernels. The step runs outside a CUDA graph here (the kernels are the same; a graph
only removes the launches), so the sum is the kernels' device time, not the step's period.

  python3 bench/torch_kernel_times.py [--model d512|d256|d64|mlp1024] [--steps N] [--top K]

Prints the kernels' device time a step by kind, and the K most expensive kernels.
"""
import argparse
import collections
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_steps  # noqa: E402  (the models and the compiled step's parts)

MODELS = {
    "d512": lambda dev: torch_steps.transformer_case(512, 8, 64, 64, dev),
    "d256": lambda dev: torch_steps.transformer_case(256, 6, 128, 8, dev),
    "d64": lambda dev: torch_steps.transformer_case(64, 3, 128, 8, dev),
    "mlp1024": lambda dev: torch_steps.mlp_case(1024, 4096, dev),
}


def kind_of(name):
    low = name.lower()
    if any(s in low for s in ("gemm", "cutlass", "xmma", "gemv")):
        return "gemm"
    if low.startswith("triton"):
        return "triton"
    return "other"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="d512")
    parser.add_argument("--steps", type=int, default=10, help="profiled steps (default 10)")
    parser.add_argument("--top", type=int, default=15, help="kernels listed (default 15)")
    args = parser.parse_args()
    device = torch_steps.f32_cuda_device("torch_kernel_times")
    torch.manual_seed(0)
    case = MODELS[args.model](device)
    static = {k: v.to(device) for k, v in case[1].items()}
    _, step = torch_steps.compiled_parts(case, static)

    for _ in range(5):  # compile and warm up
        step()
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()
    totals = collections.Counter()
    counts = collections.Counter()
    per_kernel = []
    for e in prof.key_averages():
        us = e.self_device_time_total
        if us <= 0:
            continue
        totals[kind_of(e.key)] += us
        counts[kind_of(e.key)] += e.count
        per_kernel.append((us, e.count, e.key))
    whole = sum(totals.values())
    print(f"# {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, {args.model}, compiled step "
          f"outside a graph, TF32 off; device time a step over {args.steps} steps")
    print(f"{'kind':8} {'us a step':>10} {'share':>7} {'kernels a step':>15}")
    for kind in ("gemm", "triton", "other"):
        print(f"{kind:8} {totals[kind] / args.steps:10.1f} {100 * totals[kind] / max(whole, 1):6.1f}% "
              f"{counts[kind] / args.steps:15.1f}")
    print(f"{'all':8} {whole / args.steps:10.1f}")
    print(f"\n{'us a step':>10} {'calls':>6}  kernel")
    for us, count, name in sorted(per_kernel, reverse=True)[:args.top]:
        print(f"{us / args.steps:10.1f} {count // args.steps:6d}  {name[:110]}")


if __name__ == "__main__":
    main()
