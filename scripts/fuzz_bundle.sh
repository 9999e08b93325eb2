#!/usr/bin/env bash
# Builds the graph-bundle loader fuzzer (tensorgrad/fuzz/fuzz_bundle.cpp) with clang, libFuzzer,
# ASan and UBSan in the same CMake build as scripts/fuzz_shim.sh, and runs it for a bounded time,
# seeded with the committed bundles small enough to mutate quickly and hand-made small ones.
#   scripts/fuzz_bundle.sh [seconds=60] [build-dir=build/fuzz]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out="${2:-build/fuzz}"
mkdir -p "$out/bundle_corpus"
cmake -S . -B "$out/shim-build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-16 \
  -DCMAKE_CXX_COMPILER=clang++-16 -DTG_FUZZ=ON -DTG_BUILD_TESTS=OFF -DTG_BUILD_BENCH=OFF \
  -DTG_WARNINGS_AS_ERRORS=OFF > "$out/bundle-configure.log"
cmake --build "$out/shim-build" --target fuzz_bundle > "$out/bundle-build.log" ||
  { tail -40 "$out/bundle-build.log"; exit 1; }
cp tests/parity/bundles/tanh_overflow.chromium.tgbundle.json "$out/bundle_corpus/"
cp tensorgrad/fuzz/bundle_seeds/*.json "$out/bundle_corpus/"
# The 64 KiB seed sets -max_len; allocations beyond 512 MiB would be sized by a claim, not the bytes.
"$out/shim-build/tensorgrad/fuzz_bundle" -max_total_time="$seconds" -max_len=70000 -timeout=30 \
  -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 "$out/bundle_corpus" 2>&1 | tail -25
