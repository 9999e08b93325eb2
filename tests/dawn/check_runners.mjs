// Runs one small hand-written job through both kernel runners, run_kernels.mjs (Dawn for Node,
// GL ES on llvmpipe) and run_kernels_chromium.mjs (headless Chromium, SwiftShader), checks that
// the integer kernels and the binding ranges give the bits JavaScript computes in both, and
// prints where the float kernels differ between the two devices (CTest: parity.kernel_runners_agree_on_exact_kernels).
// Usage: node check_runners.mjs [work dir]   (exit status 1 on a failed check)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'tg-runners-'));
const N = 4096, M = 1000;
const names = ['exp', 'tanh', 'erf (A&S 7.1.26)', 'sin', 'log', 'pow', 'inverseSqrt', 'gelu (tanh)'];
const math = `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn erf_as(v: f32) -> f32 {
  let s = sign(v); let a = abs(v); let t = 1.0 / (1.0 + 0.3275911 * a);
  return s * (1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-a * a));
}
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x; if (i >= arrayLength(&x)) { return; }
  let v = x[i];
  out[8u*i+0u] = exp(v); out[8u*i+1u] = tanh(v); out[8u*i+2u] = erf_as(v); out[8u*i+3u] = sin(v);
  out[8u*i+4u] = log(abs(v) + 1e-3); out[8u*i+5u] = pow(abs(v), 0.37); out[8u*i+6u] = inverseSqrt(abs(v) + 1e-3);
  out[8u*i+7u] = 0.5 * v * (1.0 + tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
}`;
const mixU = `
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x; if (i >= arrayLength(&c)) { return; }
  c[i] = (a[i] * 2654435761u + b[i]) ^ (a[i] >> 3u);
}`;
const addF = `
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x; if (i >= arrayLength(&c)) { return; }
  c[i] = a[i] + b[i];
}`;
const tanhWide = `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x; if (i >= arrayLength(&x)) { return; }
  out[i] = tanh(x[i]);
}`;
const wide = Array.from({ length: N }, (_, i) => Math.fround(-100 + 200 * i / (N - 1)));
const xs = Array.from({ length: N }, (_, i) => Math.fround(-8 + 16 * i / (N - 1)));
const ua = Array.from({ length: M }, (_, i) => (i * 7919) >>> 0);
const ub = Array.from({ length: M }, (_, i) => (0xffffffff - i * 31) >>> 0);
const fa = Array.from({ length: M }, (_, i) => Math.fround(Math.sin(i) * 100));
const fb = Array.from({ length: M }, (_, i) => Math.fround(1 / (i + 1)));
const arena = Array.from({ length: 512 }, (_, i) => i * 0.25);
const job = {
  buffers: [
    { size: N * 4, dtype: 'f32', data: xs }, { size: N * 32, dtype: 'f32', data: null },
    { size: M * 4, dtype: 'u32', data: ua }, { size: M * 4, dtype: 'u32', data: ub }, { size: M * 4, dtype: 'u32', data: null },
    { size: M * 4, dtype: 'f32', data: fa }, { size: M * 4, dtype: 'f32', data: fb }, { size: M * 4, dtype: 'f32', data: null },
    { size: 2048, dtype: 'f32', data: arena }, { size: 2048, dtype: 'f32', data: null }, { size: M * 4, dtype: 'u32', data: null },
    { size: N * 4, dtype: 'f32', data: wide }, { size: N * 4, dtype: 'f32', data: null },
  ],
  kernels: [
    { label: 'math', wgsl: math, bindings: [0, 1], dispatch: [N / 64, 1] },
    { label: 'mixU', wgsl: mixU, bindings: [2, 3, 4], dispatch: [Math.ceil(M / 64), 1] },
    { label: 'addF', wgsl: addF, bindings: [5, 6, 7], dispatch: [Math.ceil(M / 64), 1] },
    // Ranges of one buffer: arena[64..128) + arena[256..320) → out[128..192) (256-byte offsets).
    { label: 'addF ranges', wgsl: addF, bindings: [{ id: 8, offset: 256, size: 256 }, { id: 8, offset: 1024, size: 256 }, { id: 9, offset: 512, size: 256 }], dispatch: [1, 1] },
    { label: 'mixU again', wgsl: mixU, bindings: [4, 2, 10], dispatch: [Math.ceil(M / 64), 1] },  // the same pipeline
    { label: 'tanh on [-100, 100]', wgsl: tanhWide, bindings: [11, 12], dispatch: [N / 64, 1] },
  ],
  read: [1, 4, 7, 9, 10, 12],
};
writeFileSync(join(dir, 'job.json'), JSON.stringify(job));

const env = { ...process.env, EGL_PLATFORM: process.env.EGL_PLATFORM ?? 'surfaceless', XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? '/tmp' };
const run = (runner, out) => {
  const t = Date.now();
  execFileSync(process.execPath, [join(here, runner), join(dir, 'job.json'), join(dir, out)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  console.log(`${runner}: ${Date.now() - t} ms`);
  return JSON.parse(readFileSync(join(dir, out), 'utf8'));
};
const dawn = run('run_kernels.mjs', 'dawn.json');
const chromium = run('run_kernels_chromium.mjs', 'chromium.json');
console.log(`Chromium's adapter: ${JSON.stringify(chromium.adapter)}`);

const f = new Float32Array(1), u = new Uint32Array(f.buffer);
const bits = (x) => { f[0] = x; return u[0]; };
const float = (b) => { u[0] = b; return f[0]; };
const mix = (a, b) => ((Math.imul(a, 2654435761) + b) >>> 0 ^ (a >>> 3)) >>> 0;
const c4 = ua.map((a, i) => mix(a, ub[i]));
const expected = {
  4: c4, 10: c4.map((c, i) => mix(c, ua[i])), 7: fa.map((a, i) => bits(a + fb[i])),
  9: Array.from({ length: 512 }, (_, i) => (i >= 128 && i < 192 ? bits(arena[i - 64] + arena[i + 128]) : 0)),
};
let failed = false;
for (const [name, r] of [['Dawn', dawn], ['Chromium', chromium]]) {
  if (r.errors.length) { failed = true; console.log(`${name} reported errors: ${r.errors.join('\n')}`); }
  for (const [id, want] of Object.entries(expected)) {
    const same = r.buffers[id]?.length === want.length && want.every((w, i) => r.buffers[id][i] === w);
    if (!same) failed = true;
    console.log(`${name}: buffer ${id} ${same ? 'has' : 'does NOT have'} the bits JavaScript computes`);
  }
}
// The float kernel: where the devices differ, in ulps (of the ordered bit patterns).
const ordered = (b) => (b & 0x80000000 ? -(b & 0x7fffffff) : b);
names.forEach((name, k) => {
  let count = 0, worst = 0, at = '';
  for (let i = 0; i < N; i++) {
    const a = dawn.buffers[1][8 * i + k], b = chromium.buffers[1][8 * i + k];
    if (a === b) continue;
    count++;
    const d = Math.abs(ordered(a) - ordered(b));
    if (d > worst) { worst = d; at = `x=${xs[i]}: llvmpipe ${float(a)}, SwiftShader ${float(b)}`; }
  }
  console.log(`${name}: ${count}/${N} differ${count ? `, at most ${worst} ulp (${at})` : ''}`);
});
for (const [name, r] of [['llvmpipe', dawn], ['SwiftShader', chromium]]) {
  const nan = wide.filter((x, i) => Number.isNaN(float(r.buffers[12][i])));
  console.log(`tanh on [-100, 100] in ${name}: ${nan.length ? `NaN for ${nan.length} of ${N}, from |x| = ${Math.min(...nan.map(Math.abs))}` : 'no NaN'}`);
}
process.exit(failed ? 1 : 0);
