"""What the PyTorch references share: upstream's Mulberry32 stream, the run-to-run spread over
seeds, and the JSON the tests and samples/README.md read."""
import json
import statistics
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
