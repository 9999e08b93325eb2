#!/usr/bin/env bash
# Builds the graph-bundle loader fuzzer (tensorgrad/fuzz/fuzz_bundle.cpp) with clang, libFuzzer,
# ASan and UBSan (scripts/fuzz_build.sh, shared with scripts/fuzz_shim.sh), and runs it for a bounded time,
# seeded with the committed bundles small enough to mutate quickly and hand-made small ones.
#   scripts/fuzz_bundle.sh [seconds=60] [build-dir=build/fuzz]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out="${2:-build/fuzz}"
mkdir -p "$out/bundle_corpus"
fuzzer=$(scripts/fuzz_build.sh fuzz_bundle "$out")
cp tests/parity/bundles/tanh_overflow.chromium.tgbundle.json "$out/bundle_corpus/"
cp tensorgrad/fuzz/bundle_seeds/*.json "$out/bundle_corpus/"
# The 64 KiB seed sets -max_len; allocations beyond 512 MiB would be sized by a claim, not the bytes.
"$fuzzer" -max_total_time="$seconds" -max_len=70000 -timeout=30 \
  -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 "$out/bundle_corpus" 2>&1 | tail -25
