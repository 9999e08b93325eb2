#!/usr/bin/env bash
# Installs every build and test dependency from Debian packages. Idempotent: packages already
# present are skipped, so the README and CI can both call it on every run.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  glslang-dev glslang-tools spirv-tools spirv-cross libspirv-cross-c-shared-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev googletest libbenchmark-dev libcli11-dev libpng-dev
  # The fuzzers (libFuzzer with ASan and UBSan): clang 14 for the translator's and safetensors',
  # clang 16 for the -DTG_FUZZ=ON build of the shim and the bundle loader (std::source_location).
  clang libclang-rt-14-dev clang-16 libclang-rt-16-dev
  # The browser oracle: Dawn for Node (npm `webgpu`) on Mesa's GLES (llvmpipe).
  libegl1 libegl-mesa0 libgles2
  # tg-inspect: graphs as SVG (Graphviz's dot); its HTML report checked in headless Chromium.
  graphviz chromium
  # The sample apps' data: Fashion-MNIST (IDX files) and a word list.
  dataset-fashion-mnist wamerican
  # The sample apps' independent references (samples/reference, CPU PyTorch).
  python3-torch
)
# Node from Debian unless a Node with npm is already installed (e.g. from NodeSource, whose
# nodejs package conflicts with Debian's npm).
command -v npm > /dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -q
  $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Dawn for Node and playwright-core (tgparity diff's kernel runners), pinned by
# tests/dawn/package-lock.json (test tooling from the npm registry).
if [ ! -d "$(dirname "$0")/../tests/dawn/node_modules/webgpu" ] ||
   [ ! -d "$(dirname "$0")/../tests/dawn/node_modules/playwright-core" ]; then
  npm ci --prefix "$(dirname "$0")/../tests/dawn" --no-audit --no-fund --loglevel=error
fi

# playwright-core for the tg-inspect report test, pinned by tests/inspect/package-lock.json.
if [ ! -d "$(dirname "$0")/../tests/inspect/node_modules/playwright-core" ]; then
  npm ci --prefix "$(dirname "$0")/../tests/inspect" --no-audit --no-fund --loglevel=error
fi
