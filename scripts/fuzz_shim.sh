#!/usr/bin/env bash
# Builds the shim's upload fuzzer (webgpu_shim/fuzz/fuzz_shim_uploads.cpp: WriteBuffer, mapped
# uploads, copies and submits against a CPU copy of every byte) with clang, libFuzzer, ASan and
# UBSan (scripts/fuzz_build.sh), and runs it for a bounded time on the default Vulkan device.
#   scripts/fuzz_shim.sh [seconds=60] [build-dir=build/fuzz]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out="${2:-build/fuzz}"
mkdir -p "$out/shim_corpus"
fuzzer=$(scripts/fuzz_build.sh fuzz_shim_uploads "$out")
# Seeds (the fuzzer's input format: per operation a target, a kind, then size and offset bytes):
# the repro of a staging overrun — 1 KiB, then 4 MiB + 4 bytes, twice, no submit between — and a mix.
printf '\x02\x00\x08\x00\x00\x00\x01\x00\x00\x00\x02\x00\x14\x01\x00\x00\x01\x00\x10\x00\x02\x00\x08\x00\x00\x00\x01\x00\x00\x00\x02\x00\x14\x01\x00\x00\x01\x00\x10\x00' \
  > "$out/shim_corpus/chunk_edge"
printf '\x01\x01\x05\x10\x00\x01\x00\x02\x02\x07\x20\x00\x03\x00\x00\x03\x04\x00\x05\x01\x00\x05\x02\x00' \
  > "$out/shim_corpus/mix"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
"$fuzzer" -max_total_time="$seconds" -max_len=256 -timeout=60 \
  -rss_limit_mb=4096 -print_final_stats=1 "$out/shim_corpus" 2>&1 | tail -25
