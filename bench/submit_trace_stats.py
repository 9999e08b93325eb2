#!/usr/bin/env python3
"""Sums up WEBGPU_SHIM_SUBMIT_TRACE files (README: "Benchmarks").

Usage: submit_trace_stats.py TRACE... [--skip FRACTION]

For each file: the steps (submissions whose GPU time is over a tenth of the longest: uploads and
other small submissions drop out) past the first FRACTION of them (default 0.25: compiles and
warm-up), and the median, 10th and 90th percentile in µs of
  - the GPU's run of a step (its end timestamp minus its start),
  - the GPU idle between two steps (a step's start minus the previous one's end),
  - the period on the GPU (start to start) and on the host (submit to submit),
  - a step's submit to the host seeing it done, and that moment to the next step's submit.
GPU times are on the device's clock, host times on the host's; only differences are compared.
"""
import argparse
import csv
import statistics


def summarise(path, skip):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r['gpu_start_ns'] and r['gpu_end_ns']:
                rows.append({k: float(v) for k, v in r.items()})
    if not rows:
        print(f'{path}: no submission with GPU times')
        return
    longest = max(r['gpu_end_ns'] - r['gpu_start_ns'] for r in rows)
    steps = [r for r in rows if r['gpu_end_ns'] - r['gpu_start_ns'] > longest / 10]
    steps = steps[int(len(steps) * skip):]
    if len(steps) < 3:
        print(f'{path}: {len(steps)} steps, too few')
        return
    pairs = list(zip(steps, steps[1:]))
    series = [
        ('GPU run of a step', [(r['gpu_end_ns'] - r['gpu_start_ns']) / 1e3 for r in steps]),
        ('GPU idle between steps', [(b['gpu_start_ns'] - a['gpu_end_ns']) / 1e3 for a, b in pairs]),
        ('GPU period (start to start)', [(b['gpu_start_ns'] - a['gpu_start_ns']) / 1e3 for a, b in pairs]),
        ('host period (submit to submit)', [(b['submitted_ns'] - a['submitted_ns']) / 1e3 for a, b in pairs]),
        ('submit to seen done', [(r['seen_done_ns'] - r['submitted_ns']) / 1e3 for r in steps]),
        ('seen done to next submit', [(b['submitted_ns'] - a['seen_done_ns']) / 1e3 for a, b in pairs]),
    ]
    print(f'{path}: {len(steps)} steps of {len(rows)} submissions')
    for name, xs in series:
        q = sorted(xs)
        print(f'  {name:32s} median {statistics.median(xs):10.1f}  p10 {q[len(q) // 10]:10.1f}'
              f'  p90 {q[9 * len(q) // 10]:10.1f}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('traces', nargs='+')
    parser.add_argument('--skip', type=float, default=0.25)
    args = parser.parse_args()
    for path in args.traces:
        summarise(path, args.skip)


if __name__ == '__main__':
    main()
