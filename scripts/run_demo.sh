#!/usr/bin/env bash
# Fresh machine → dependencies, a Release build, and the main program on the default device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel --target shim_demo
build/samples/shim_demo/shim_demo "$@"
