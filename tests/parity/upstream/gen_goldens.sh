#!/usr/bin/env bash
# Writes tests/parity/golden/<case>.json by running upstream tensorgrad itself in real WebGPU
# (Dawn for Node, npm `webgpu`, OpenGL ES backend on Mesa's llvmpipe). See ../README.md.
#
#   gen_goldens.sh [UPSTREAM_CHECKOUT] [--verify-untraced] [case ...]
#   gen_goldens.sh [UPSTREAM_CHECKOUT] --chromium [--verify-untraced] [case ...]
#   gen_goldens.sh [UPSTREAM_CHECKOUT] --bundles [--chromium] [case ...]
#
# UPSTREAM_CHECKOUT: a work tree of upstream (src/, scripts/build.mjs, package.json) at version
# 0.4.6; without one, the pinned commit is fetched from GitHub (or from $TENSORGRAD_UPSTREAM_URL,
# e.g. a local mirror). Cases default to every
# ../cases/*.mjs. --verify-untraced runs each case again with the kernel trace off and fails
# unless losses, final parameters and forward outputs keep their bits.
#
# --chromium (without --bundles) writes tests/parity/golden/<case>.chromium.json instead: the same
# golden, recorded by upstream running in Debian's headless Chromium with WebGPU on SwiftShader
# (gen_goldens_chromium.mjs, through playwright-core; the kernel trace is kernel_trace.mjs's hook
# installed in upstream's own Worker), with each case compared against its Dawn golden.
#
# Everything is built in a scratch directory that is removed on exit: upstream is copied there,
# the pinned tooling (package.json / package-lock.json here: esbuild, webgpu) is installed with
# `npm ci`, and upstream is built with its own `node scripts/build.mjs`. Nothing of upstream's
# is written to this repository; only the goldens are.
#
# Needs node and npm, and for Dawn's GL backend: libegl1 libegl-mesa0 libgles2 (Debian names).
set -euo pipefail

PIN_COMMIT=5d2c3ec0995de5c297285451e667cfee9e2d75c4
PIN_VERSION=0.4.6
UPSTREAM_URL=${TENSORGRAD_UPSTREAM_URL:-https://github.com/typebulb/tensorgrad}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
parity=$(dirname "$here")

checkout=
bundles=0
if [[ $# -gt 0 && -d "$1" ]]; then
  checkout=$(cd "$1" && pwd)
  shift
fi

# --bundles (anywhere after the checkout): write ../bundles/<case>.tgbundle.json instead, recorded
# through tensorgrad/js/tgbundle.mjs (gen_bundles.mjs; default cases: the README MLP, the
# transformer, the CNN and the dropout classifier). --chromium records them in Debian's Chromium
# instead (WebGPU on SwiftShader, the recorder's download path; gen_bundles_chromium.mjs) as
# ../bundles/<case>.chromium.tgbundle.json (default cases: the README MLP, the transformer and
# tanh_overflow); a case not in ../cases/ is looked up in ../bundle_cases/ (bundle-only cases).
chromium=0
args=()
for a in "$@"; do
  if [[ "$a" == --bundles ]]; then bundles=1
  elif [[ "$a" == --chromium ]]; then chromium=1
  else args+=("$a"); fi
done
set -- "${args[@]+"${args[@]}"}"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/tg-goldens.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

if [[ -n "$checkout" ]]; then
  [[ -f "$checkout/package.json" && -d "$checkout/src" && -f "$checkout/scripts/build.mjs" ]] || {
    echo "gen_goldens: $checkout is not an upstream tensorgrad work tree (package.json, src/, scripts/build.mjs)" >&2
    exit 2
  }
  if commit=$(git -C "$checkout" rev-parse --verify -q HEAD 2>/dev/null) &&
     [[ "$(git -C "$checkout" rev-parse --show-toplevel)" == "$checkout" ]]; then
    if [[ "$commit" != "$PIN_COMMIT" ]]; then
      echo "gen_goldens: warning: $checkout is at $commit, not the pinned $PIN_COMMIT; the goldens record $commit" >&2
    fi
    if [[ -n "$(git -C "$checkout" status --porcelain -- src scripts package.json)" ]]; then
      echo "gen_goldens: warning: $checkout has local changes in src/, scripts/ or package.json" >&2
    fi
  else
    commit=$PIN_COMMIT
    echo "gen_goldens: $checkout is not a git checkout; recording the pinned commit $PIN_COMMIT (only the version is checked)" >&2
  fi
else
  checkout="$scratch/clone"
  echo "gen_goldens: fetching $UPSTREAM_URL at $PIN_COMMIT" >&2
  git init -q "$checkout"
  git -C "$checkout" remote add origin "$UPSTREAM_URL"
  if ! git -C "$checkout" fetch -q --depth 1 origin "$PIN_COMMIT" 2>/dev/null; then
    git -C "$checkout" fetch -q origin
  fi
  git -C "$checkout" -c advice.detachedHead=false checkout -q "$PIN_COMMIT"
  commit=$(git -C "$checkout" rev-parse HEAD)
fi

version=$(node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).version))' \
  "$checkout/package.json")
if [[ "$version" != "$PIN_VERSION" ]]; then
  echo "gen_goldens: refusing: $checkout/package.json has version '$version'; the goldens are for upstream $PIN_VERSION (commit $PIN_COMMIT)" >&2
  exit 2
fi

# Layout: $scratch/node_modules (our pinned tooling), $scratch/upstream (the copy that is built;
# its build script finds esbuild in the parent's node_modules), $scratch/*.mjs (the generator).
mkdir -p "$scratch/upstream"
tar -C "$checkout" --exclude=./.git --exclude=./node_modules --exclude=./dist --exclude=./build-artifacts -cf - . |
  tar -C "$scratch/upstream" -xf -
cp "$here/package.json" "$here/package-lock.json" "$here/node_env.mjs" "$here/kernel_trace.mjs" \
   "$here/golden_record.mjs" "$here/gen_goldens.mjs" "$here/gen_goldens_chromium.mjs" "$here/trace_page.mjs" \
   "$here/trace_worker.mjs" "$here/chromium.mjs" "$here/gen_bundles.mjs" "$here/gen_bundles_chromium.mjs" \
   "$here/record_case.mjs" "$scratch/"
echo "gen_goldens: installing the pinned tooling (npm ci)" >&2
(cd "$scratch" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
echo "gen_goldens: building upstream $version with its scripts/build.mjs" >&2
(cd "$scratch/upstream" && node scripts/build.mjs >&2)

# Dawn prints two warnings per device about dynamic-offset limits; drop just those.
if ((bundles && chromium)); then
  node "$scratch/gen_bundles_chromium.mjs" --upstream "$scratch/upstream/dist/index.js" --version "$version" \
    --repo "$(dirname "$(dirname "$parity")")" --out "$parity/bundles" --golden "$parity/golden" "$@"
elif ((chromium)); then
  node "$scratch/gen_goldens_chromium.mjs" --upstream "$scratch/upstream/dist/index.js" --commit "$commit" \
    --version "$version" --repo "$(dirname "$(dirname "$parity")")" --out "$parity/golden" --golden "$parity/golden" "$@"
elif ((bundles)); then
  EGL_PLATFORM=surfaceless XDG_RUNTIME_DIR=/tmp \
    node "$scratch/gen_bundles.mjs" --upstream "$scratch/upstream/dist/index.js" --version "$version" \
    --recorder "$(dirname "$(dirname "$parity")")/tensorgrad/js/tgbundle.mjs" --cases "$parity/cases" \
    --out "$parity/bundles" --golden "$parity/golden" "$@" 2> >(grep -v 'artificially reduced' >&2)
else
  EGL_PLATFORM=surfaceless XDG_RUNTIME_DIR=/tmp \
    node "$scratch/gen_goldens.mjs" --upstream "$scratch/upstream/dist/index.js" \
    --commit "$commit" --version "$version" --cases "$parity/cases" --out "$parity/golden" "$@" \
    2> >(grep -v 'artificially reduced' >&2)
fi
