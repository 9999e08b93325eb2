#!/usr/bin/env python3
"""cuBLAS's side of gemm_bench: PyTorch's f32 matmul (TF32 off) on the products gemm_bench times,
10 back-to-back products an iteration as gemm_bench submits them, as microseconds a product and
TFLOP/s (2·M·N·K a product). `transA` multiplies the transpose of a [K, M] tensor, as a weight
gradient does; `transB` that of an [N, K] one (an input gradient, dy · Wᵀ).

  python3 bench/torch_gemm.py [--repetitions R] [M:K:N[:transA[:transB]] ...]

Without shapes it times the ones gemm_bench's main sweep and the transformer profiles name.
"""
import argparse
import statistics

import torch

SHAPES = [
    (4096, 512, 512, 0, 0), (4096, 512, 512, 0, 1), (4096, 2048, 512, 0, 0),
    (4096, 2048, 512, 0, 1), (4096, 512, 2048, 0, 0), (4096, 512, 2048, 0, 1),
    (512, 4096, 512, 1, 0), (512, 4096, 2048, 1, 0), (2048, 4096, 512, 1, 0),
    (4096, 1024, 1024, 0, 0), (1024, 4096, 1024, 1, 0), (4096, 256, 256, 0, 0),
    (256, 4096, 256, 1, 0), (64, 4096, 64, 1, 0), (1024, 1024, 256, 0, 0),
    (4096, 4096, 4096, 0, 0),
]


def time_product(m, k, n, trans_a, trans_b, repetitions):
    a = torch.randn((k, m) if trans_a else (m, k), device="cuda")
    b = torch.randn((n, k) if trans_b else (k, n), device="cuda")
    lhs = a.t() if trans_a else a
    rhs = b.t() if trans_b else b
    out = torch.empty(m, n, device="cuda")
    for _ in range(3):
        torch.mm(lhs, rhs, out=out)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    iterations = max(1, int(2e11 / (2 * m * n * k * 10)))  # about 0.2 TFLOP a run
    runs = []
    for _ in range(repetitions):
        start.record()
        for _ in range(iterations * 10):
            torch.mm(lhs, rhs, out=out)
        end.record()
        end.synchronize()
        runs.append(start.elapsed_time(end) * 1e3 / (iterations * 10))
    return statistics.median(runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("shapes", nargs="*", help="M:K:N[:transA[:transB]]")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    shapes = [tuple(int(v) for v in s.split(":")) + (0,) * (5 - len(s.split(":")))
              for s in args.shapes] or SHAPES
    print(f"{torch.cuda.get_device_name()}, PyTorch {torch.__version__}")
    print("M\tK\tN\ttransA\ttransB\tus\tTFLOP/s")
    for m, k, n, ta, tb in shapes:
        us = time_product(m, k, n, ta, tb, args.repetitions)
        print(f"{m}\t{k}\t{n}\t{ta}\t{tb}\t{us:.1f}\t{2 * m * n * k / us / 1e6:.1f}")


if __name__ == "__main__":
    main()
