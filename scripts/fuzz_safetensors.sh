#!/usr/bin/env bash
# Builds the safetensors parser fuzzer (clang, -fsanitize=fuzzer,address,undefined) and runs it
# for a bounded time, seeded with tensorgrad/fuzz/seeds.
#   scripts/fuzz_safetensors.sh [seconds=60] [build-dir=build/fuzz]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out="${2:-build/fuzz}"
mkdir -p "$out/safetensors_corpus"
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Itensorgrad/include tensorgrad/src/runtime/safetensors.cpp tensorgrad/fuzz/fuzz_safetensors.cpp \
  -o "$out/fuzz_safetensors"
cp tensorgrad/fuzz/seeds/* "$out/safetensors_corpus/"
# One process; runs are reported on stderr. The seeds are a few hundred bytes.
"$out/fuzz_safetensors" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "$out/safetensors_corpus" 2>&1 | tail -25
