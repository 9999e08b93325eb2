#!/usr/bin/env bash
# Builds one libFuzzer target of the -DTG_FUZZ=ON build (clang 16: libFuzzer, ASan, UBSan) in
# <build-dir>/tg-fuzz, shared by the fuzzers of the shim and of the bundle loader.
#   scripts/fuzz_build.sh TARGET BUILD-DIR   → prints the executable's path
# -O1 -g1, as the standalone fuzzers (scripts/fuzz_wgsl.sh) build, for compile time in CI:
# tensorgrad/src/runtime/bundle.cpp took 16.8 s against 18.7 s at RelWithDebInfo's -O2 -g (2-vCPU VM).
set -euo pipefail
cd "$(dirname "$0")/.."
target="$1"
out="$2/tg-fuzz"
mkdir -p "$out"
cmake -S . -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-16 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER=clang++-16 -DTG_FUZZ=ON -DTG_BUILD_TESTS=OFF -DTG_BUILD_BENCH=OFF \
  -DTG_WARNINGS_AS_ERRORS=OFF > "$out/configure.log" || { cat "$out/configure.log" >&2; exit 1; }
cmake --build "$out" --target "$target" > "$out/build-$target.log" || { tail -40 "$out/build-$target.log" >&2; exit 1; }
find "$out" -name "$target" -type f -executable | head -1
