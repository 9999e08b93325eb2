"""Checks an app's results.json against its PyTorch reference's run-to-run spread:
ours must lie within [min / factor, max * factor] of the reference's seeds (for accuracies, where
higher is better, within [min - slack, max + slack]).

  /usr/bin/python3 samples/reference/check.py out/mlp_sin/results.json ref.json gridMse --factor 3
  /usr/bin/python3 samples/reference/check.py out/mnist/results.json ref.json testAccuracy --slack 0.02
  /usr/bin/python3 samples/reference/check.py out/tic_tac_toe/results.json ref.json after.wins --slack 10
"""
import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ours", help="the app's results.json")
    p.add_argument("reference", help="the reference's --json output")
    p.add_argument("metric", help="a key of results.json's metrics (or finalLoss; after.wins for a nested one)")
    p.add_argument("--factor", type=float, help="a positive metric's band: [min / F, max * F]")
    p.add_argument("--slack", type=float, help="an additive band: [min - S, max + S]")
    a = p.parse_args()
    with open(a.ours) as f:
        ours = json.load(f)
    with open(a.reference) as f:
        ref = json.load(f)
    value = ours["finalLoss"] if a.metric == "finalLoss" else ours["metrics"]
    for part in [] if a.metric == "finalLoss" else a.metric.split("."):  # "after.wins": a nested metric
        value = value[part]
    s = ref["spread"][a.metric]
    if a.factor:
        lo, hi = s["min"] / a.factor, s["max"] * a.factor
    else:
        lo, hi = s["min"] - (a.slack or 0), s["max"] + (a.slack or 0)
    verdict = "PASS" if lo <= value <= hi else "FAIL"
    print(f"{ours['app']} {a.metric}: ours {value:.6g} ({ours.get('kernels', '?')} kernels on {ours['device']}); "
          f"PyTorch {s['min']:.6g} .. {s['max']:.6g} (mean {s['mean']:.6g}, {len(ref['runs'])} seeds); "
          f"band {lo:.6g} .. {hi:.6g}: {verdict}")
    sys.exit(0 if verdict == "PASS" else 1)


if __name__ == "__main__":
    main()
