#!/usr/bin/env bash
# The install test: `cmake --install` the build tree into an empty prefix, then build
# tests/downstream against that prefix alone, twice (find_package(tensorgrad) with CMake, and
# `pkg-config --cflags --libs tensorgrad` with the compiler directly), both with -Wall -Wextra
# -Werror, run both, and require the same output (two completed steps and a prediction). The
# installed package must not point into the source or build tree. A C11 program against the
# installed <webgpu/webgpu.h> builds and runs too, and tensorgrad_add_parity_test registers a
# bundle replay that ctest runs.
# Usage: check_install.sh BUILD_DIR WORK_DIR CXX [COMPILER_LAUNCHER]
set -euo pipefail
build=$1 work=$2 cxx=$3 launcher=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
pc_dir=$(dirname "$(find "$prefix" -name tensorgrad.pc)")
cmake_dir=$(dirname "$(find "$prefix" -name tensorgradConfig.cmake)")

for tool in wgslc tgparity tg-inspect; do
  [[ -x $prefix/bin/$tool ]] || { echo "not installed: bin/$tool"; exit 1; }
done
[[ -f $prefix/share/tensorgrad/dawn/run_kernels.mjs ]] || { echo "not installed: the Dawn runner"; exit 1; }
if grep -rl -e "$source_dir" -e "$(cd "$build" && pwd)" "$cmake_dir" "$pc_dir"; then
  echo "the installed package refers to the source or build tree (files above)"
  exit 1
fi

# CMake: find_package(tensorgrad) from the prefix only.
cmake -S "$here" -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DTG_PARITY_BUNDLE="$source_dir/tests/parity/bundles/mlp_sin.tgbundle.json" \
  -DCMAKE_CXX_COMPILER="$cxx" ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} > "$work/cmake.log" 2>&1 \
  || { cat "$work/cmake.log"; exit 1; }
cmake --build "$work/cmake" || exit 1
"$work/cmake/downstream" | tee "$work/cmake.out"
# tensorgrad_add_parity_test's test: tgparity run on the bundle, its first 3 steps bit for bit.
ctest --test-dir "$work/cmake" -V > "$work/ctest.log" 2>&1 || { cat "$work/ctest.log"; exit 1; }
grep -q "step 3 loss" "$work/ctest.log" || { cat "$work/ctest.log"; echo "the parity test replayed no third step"; exit 1; }

# pkg-config: the same main.cpp, the same strict flags.
export PKG_CONFIG_PATH=$pc_dir
flags=$(pkg-config --cflags --libs tensorgrad)
echo "pkg-config --cflags --libs tensorgrad: $flags"
$launcher "$cxx" -std=c++20 -O2 -Wall -Wextra -Wpedantic -Wshadow -Werror "$here/main.cpp" -o "$work/pkgconfig-downstream" $flags
"$work/pkgconfig-downstream" | tee "$work/pkgconfig.out"

# The standard C API from the installed headers: a C11 program (tests/c_programs/compute.c)
# compiled with the C compiler, linked with the C++ one (the libraries are C++).
cc=${CC:-cc}
$launcher "$cc" -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags tensorgrad) \
  -c "$source_dir/tests/c_programs/compute.c" -o "$work/c_compute.o"
$launcher "$cxx" "$work/c_compute.o" -o "$work/c_compute" $flags
"$work/c_compute" | tee "$work/c.out"
grep -q "^c compute: all 4096 collatz step counts match the CPU" "$work/c.out" ||
  { echo "the C program against the installed webgpu.h failed"; exit 1; }

grep -q "^step 2 loss " "$work/cmake.out" || { echo "no second step"; exit 1; }
grep -q "^predict " "$work/cmake.out" || { echo "no prediction"; exit 1; }
grep -q "^zoo mlp-sin: [1-9]" "$work/cmake.out" || { echo "no model from the zoo"; exit 1; }
cmp "$work/cmake.out" "$work/pkgconfig.out" || { echo "the two builds printed different results"; exit 1; }
echo "install test passed"
