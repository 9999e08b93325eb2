#!/usr/bin/env bash
# Builds the wgsl_subset front-end fuzzer (every stage before glslang; clang,
# -fsanitize=fuzzer,address,undefined) and runs it for a bounded time, seeded with the WGSL corpus
# and the kernels tensorgrad emits.
#   scripts/fuzz_wgsl.sh [seconds=60] [build-dir=build/fuzz]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out="${2:-build/fuzz}"
mkdir -p "$out/corpus"
src=wgsl_subset/src
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Iwgsl_subset/include -I"$src" $(ls "$src"/*.cpp | grep -v translate.cpp) \
  wgsl_subset/fuzz/fuzz_front_end.cpp -o "$out/fuzz_wgsl"
cp tests/wgsl/corpus/*.wgsl "$out/corpus/"
if [ -x build/tensorgrad/tg-inspect ]; then
  build/tensorgrad/tg-inspect wgsl mlp-sin --all -o "$out/mlp" > /dev/null && cp "$out"/mlp/*.wgsl "$out/corpus/"
fi
# -max_len covers the largest seed; one process; runs are reported on stderr.
"$out/fuzz_wgsl" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$out/corpus" 2>&1 | tail -25
