#!/usr/bin/env bash
# Regenerates golden/upstream_{mlp,transformer}_graph.json with upstream tensorgrad's own trace():
#   tests/tensorgrad/golden/upstream/gen_upstream_graphs.sh /path/to/typebulb/tensorgrad/checkout
# Needs node and npm (installs TypeScript into a scratch directory). Upstream code is only read
# from the given checkout, never copied into this repository.
set -euo pipefail
upstream="$(cd "$1" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$upstream/src" "$upstream/tsconfig.json" "$work/"
cd "$work"
npm install --no-audit --no-fund --loglevel=error typescript@5 > /dev/null
# Upstream's browser-only files do not type-check under node; the emitted JS is all trace() needs.
npx tsc -p tsconfig.json --noEmitOnError false > /dev/null || true
cp "$here/dump_graphs.mjs" .
node dump_graphs.mjs
cp upstream_mlp.json "$here/../upstream_mlp_graph.json"
cp upstream_transformer.json "$here/../upstream_transformer_graph.json"
