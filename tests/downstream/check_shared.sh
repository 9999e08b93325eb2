#!/usr/bin/env bash
# The shared-library build (issue 30): configure this source tree with BUILD_SHARED_LIBS=ON
# (libraries and tools only), build it, `cmake --install` it into an empty prefix, and check that
# every library is installed as a shared object (and none as an archive), that the installed tools
# run from the prefix (their RPATH finds the libraries), and that a plugin — a shared library
# linking tensorgrad::runtime and the shim's C API (tests/downstream/plugin) — builds against the
# prefix alone and runs when a host that links no tensorgrad library dlopens it.
# Usage: check_shared.sh WORK_DIR CXX [COMPILER_LAUNCHER]
set -euo pipefail
work=$1 cxx=$2 launcher=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
jobs=$(nproc)

# Build type None (no optimisation flags): this checks how the libraries are built, linked,
# installed and loaded, not their speed, and compiles in about half the time of Release.
cmake -S "$source_dir" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=None -DBUILD_SHARED_LIBS=ON \
  -DTG_BUILD_TESTS=OFF -DTG_BUILD_BENCH=OFF -DTG_BUILD_SAMPLES=OFF -DCMAKE_CXX_COMPILER="$cxx" \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} > "$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j "$jobs" > "$work/build.log" 2>&1 || { tail -50 "$work/build.log"; exit 1; }
cmake --install "$work/build" --prefix "$prefix" > "$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }

libdir=$(dirname "$(find "$prefix" -name 'libwebgpu_shim.so*' | head -1)")
for lib in wgsl_subset webgpu_shim tensorgrad tensorgrad_runtime tensorgrad_parity tensorgrad_models; do
  [[ -e $libdir/lib$lib.so ]] || { echo "not installed as a shared library: lib$lib.so"; exit 1; }
  [[ ! -e $libdir/lib$lib.a ]] || { echo "an archive was installed too: lib$lib.a"; exit 1; }
done
# The tools run from the prefix with no LD_LIBRARY_PATH.
"$prefix/bin/tgparity" run "$source_dir/tests/parity/bundles/mlp_sin.tgbundle.json" --steps 2 \
  > "$work/tgparity.out" 2>&1 || { cat "$work/tgparity.out"; echo "the installed tgparity failed"; exit 1; }
grep -q "^PASS" "$work/tgparity.out" || { cat "$work/tgparity.out"; exit 1; }
"$prefix/bin/tg-inspect" summary mlp-sin > /dev/null

cmake -S "$here/plugin" -B "$work/plugin" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} > "$work/plugin.log" 2>&1 \
  || { cat "$work/plugin.log"; exit 1; }
cmake --build "$work/plugin" || exit 1
plugin=$work/plugin/libtg_backend.so
needed=$(readelf -d "$plugin" | grep NEEDED)
echo "$needed"
grep -q "libtensorgrad_runtime.so" <<< "$needed" || { echo "the plugin does not link the shared runtime"; exit 1; }
grep -q "libwebgpu_shim.so" <<< "$needed" || { echo "the plugin does not link the shared shim"; exit 1; }
if readelf -d "$work/plugin/host" | grep NEEDED | grep -q -e tensorgrad -e webgpu_shim; then
  echo "the host links tensorgrad itself"; exit 1
fi
"$work/plugin/host" "$plugin" | tee "$work/plugin.out"
grep -q "^adapter ." "$work/plugin.out" || { echo "the plugin found no adapter"; exit 1; }
grep -q "^step 2 loss " "$work/plugin.out" || { echo "the plugin trained no second step"; exit 1; }
echo "shared build test passed"
