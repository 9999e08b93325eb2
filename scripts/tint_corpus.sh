#!/usr/bin/env bash
# Measures wgsl_subset (wgslc) on Tint's WGSL test corpus, Tint (Dawn for Node) as the oracle.
#   scripts/tint_corpus.sh <dawn-checkout> [--wgslc PATH] [--jobs N] [--out DIR]
#                          [--only DIR,DIR...] [--compare OLD/summary.json] [--timeout S] [--dawn-commit SHA]
# Uses <dawn-checkout>/test/tint/**/*.wgsl (not *.expected.*). Defaults: --wgslc build/wgsl_subset/wgslc,
# --jobs nproc, --out out/tint-corpus, --timeout 10 (seconds per file; past it counts as a hang).
# Prints the counts and the top message classes; writes DIR/summary.json (per-file classes, for
# --compare), DIR/report.txt and DIR/tint_verdicts.json (Tint's verdicts by sha256, reused by reruns).
# Details: tests/wgsl/tint_corpus.mjs. Needs `npm ci --prefix tests/dawn` (scripts/setup.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -d "$root/tests/dawn/node_modules/webgpu" ]; then
  echo "Dawn for Node is missing: npm ci --prefix tests/dawn" >&2
  exit 2
fi
# Dawn's GL ES backend on a headless machine.
export EGL_PLATFORM="${EGL_PLATFORM:-surfaceless}" XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
exec node "$root/tests/wgsl/tint_corpus.mjs" "$@"
