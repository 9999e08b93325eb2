#!/usr/bin/env bash
# Fresh machine → dependencies, a Release build, and the main sample on the default device:
# training the README's sine MLP (samples/mlp_sin). Arguments go to the sample (--help lists them).
# Its pictures go where the caller is (out/mlp_sin), or to --out DIR, not into the checkout.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
repo=$PWD
scripts/setup.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel --target mlp_sin
cd "$caller"
"$repo/build/samples/mlp_sin/mlp_sin" "$@"
