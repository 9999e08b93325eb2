#!/usr/bin/env bash
# Fresh machine → dependencies, a Release build with warnings as errors, and the whole CTest suite
# in parallel (lavapipe is the Vulkan device when there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTG_WARNINGS_AS_ERRORS=ON
cmake --build build --parallel
ctest --test-dir build --output-on-failure --parallel "$(nproc)" --timeout 600
