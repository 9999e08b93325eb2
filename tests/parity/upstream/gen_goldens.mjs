// Runs the parity cases (../cases/*.mjs) through upstream tensorgrad in Dawn for Node and writes
// ../golden/<case>.json (format 1, ../README.md). Called by gen_goldens.sh, which builds
// upstream; run by hand as
//   node gen_goldens.mjs --upstream DIST_INDEX_JS --commit SHA --version V [--cases DIR]
//                        [--out DIR] [--verify-untraced] [case ...]
// from a directory where `webgpu` resolves (gen_goldens.sh copies this file and node_env.mjs
// next to the node_modules it installs). --cases and --out default to ../cases and ../golden.
// --verify-untraced runs every case a second time with the kernel trace off and fails unless
// the losses, final parameters and forward outputs have the same bits.
import { createHash } from 'node:crypto';
import { readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { endianness } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { kernelTrace, adapterInfo, deviceErrors } from './node_env.mjs';  // first: installs navigator.gpu, Worker

const here = dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const o = { cases: resolve(here, '../cases'), out: resolve(here, '../golden'), names: [], verifyUntraced: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upstream') o.upstream = argv[++i];
    else if (a === '--commit') o.commit = argv[++i];
    else if (a === '--version') o.version = argv[++i];
    else if (a === '--cases') o.cases = resolve(argv[++i]);
    else if (a === '--out') o.out = resolve(argv[++i]);
    else if (a === '--verify-untraced') o.verifyUntraced = true;
    else if (a.startsWith('--')) throw new Error(`gen_goldens: unknown option ${a}`);
    else o.names.push(a.replace(/\.mjs$/, ''));
  }
  if (!o.upstream || !o.commit || !o.version) {
    throw new Error('usage: gen_goldens.mjs --upstream DIST_INDEX_JS --commit SHA --version V [--cases DIR] [--out DIR] [--verify-untraced] [case ...]');
  }
  return o;
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest();
const bytesOf = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const shapeSize = (shape) => shape.reduce((p, d) => p * d, 1);
const f32Bits = (x) => new Uint32Array(new Float32Array([x]).buffer)[0].toString(16).padStart(8, '0');

// Which of codegen.ts's forms a kernel is: 'tiled' (shared-memory matmul tiles), 'tree' (a
// workgroup per output, summed through workgroup memory), 'single' (one invocation) or 'thread'
// (one invocation per output element). Read from the WGSL, so a new form shows up as a mismatch.
function variantOf(k) {
  if (/var<workgroup>\s+Atile/.test(k.wgsl)) return 'tiled';
  if (/var<workgroup>\s+partial/.test(k.wgsl)) return 'tree';
  if (/var<workgroup>/.test(k.wgsl)) throw new Error(`kernel ${k.opIndex} (${k.opKind}): unknown workgroup-memory form`);
  return k.workgroupSize === 1 ? 'single' : 'thread';
}

// The kernels a step/run dispatches, in order: upstream's runtime skips those without WGSL and
// those with zero threads.
function dispatched(ir) {
  const ks = ir.kernels.filter((k) => k.wgsl && k.threads > 0);
  return ks.map((k) => {
    const op = ir.graph.ops[k.opIndex];
    return {
      opIndex: k.opIndex, kind: k.opKind, threads: k.threads, workgroupSize: k.workgroupSize,
      variant: variantOf(k), bytes: shapeSize(ir.graph.tensors[op.out].shape) * 4,
    };
  });
}
const kernelRows = (ks) => ks.map((k) => [k.opIndex, k.kind, k.threads, k.workgroupSize, k.variant]);

// One step's trace: 8 bytes per kernel, the first 8 of the SHA-256 of its output bytes.
function traceOf(outputs) {
  return Buffer.concat(outputs.map((o) => sha256(o).subarray(0, 8))).toString('base64');
}

function paramHashes(params) {
  const out = {};
  for (const name of Object.keys(params).sort()) out[name] = sha256(bytesOf(params[name])).toString('hex');
  return out;
}

// Runs `call` (one step/run) with the trace armed for `kernels` when `trace` is set.
async function traced(trace, kernels, call) {
  if (trace) kernelTrace.arm(kernels.map((k) => ({ kind: k.kind, bytes: k.bytes })));
  let r;
  try {
    r = await call();
  } finally {
    if (trace && r?.kind !== 'completed') await kernelTrace.collect().catch(() => {});
  }
  return { r, outputs: trace && r.kind === 'completed' ? await kernelTrace.collect() : null };
}

function check(r, what) {
  if (r.kind !== 'completed') {
    throw new Error(`${what} did not complete: ${r.kind}${r.error ? `: ${r.error.stack ?? r.error.message}` : ''}`);
  }
  if (deviceErrors.length > 0) throw new Error(`${what}: WebGPU error: ${deviceErrors.join('; ')}`);
}

async function runTraining(tg, c, trace, mulberry32) {
  const rec = { losses: [], trace: [], forwards: [] };
  const train = await tg.compile(c.training);
  try {
    const kernels = dispatched(train);
    rec.kernels = kernelRows(kernels);
    rec.initialParams = paramHashes(await train.downloadParams());
    const rng = mulberry32(c.feedSeed);
    for (let s = 0; s < c.steps; s++) {
      const feed = c.feed(rng);
      const { r, outputs } = await traced(trace, kernels, () => train.step(feed));
      check(r, `case ${c.name}: step ${s}`);
      rec.losses.push(r.loss);
      if (outputs) rec.trace.push(traceOf(outputs));
    }
    rec.finalParams = paramHashes(await train.downloadParams());
    for (const f of c.forwards ?? []) {
      const fwd = await train.attach(f.spec);
      const feed = f.feed(rng);
      const ir = await fwd.graphFor(feed);  // compiles the sibling for this shape; run() reuses it
      const fk = dispatched(ir);
      const { r, outputs } = await traced(trace, fk, () => fwd.run(feed));
      check(r, `case ${c.name}: forward '${f.name}'`);
      const outT = ir.graph.tensors[ir.graph.outputs[0]];
      rec.forwards.push({
        name: f.name, dtype: outT.dtype, shape: [...outT.shape],
        sha256: sha256(bytesOf(r.output)).toString('hex'),
        kernels: kernelRows(fk), trace: outputs ? traceOf(outputs) : null,
      });
    }
  } finally {
    train.destroy();
  }
  return rec;
}

async function runForwardOnly(tg, c, trace, mulberry32) {
  const rec = { outputs: [], trace: [] };
  const fwd = await tg.compileForward(c.forward);
  try {
    const rng = mulberry32(c.feedSeed);
    let kernels = null;
    for (let s = 0; s < c.steps; s++) {
      const feed = c.feed(rng);
      const ir = await fwd.graphFor(feed);  // the first call creates the param owner if parametric
      const ks = dispatched(ir);
      if (!kernels) {
        kernels = ks;
        rec.kernels = kernelRows(ks);
        rec.initialParams = paramHashes(await fwd.downloadParams());
      } else if (JSON.stringify(kernelRows(ks)) !== JSON.stringify(rec.kernels)) {
        throw new Error(`case ${c.name}: run ${s} dispatches other kernels than run 0 (feed shapes differ)`);
      }
      const { r, outputs } = await traced(trace, ks, () => fwd.run(feed));
      check(r, `case ${c.name}: run ${s}`);
      const outT = ir.graph.tensors[ir.graph.outputs[0]];
      rec.outputs.push({ dtype: outT.dtype, shape: [...outT.shape], sha256: sha256(bytesOf(r.output)).toString('hex') });
      if (outputs) rec.trace.push(traceOf(outputs));
    }
    rec.finalParams = rec.initialParams;
  } finally {
    fwd.destroy();
  }
  return rec;
}

// JSON with one entry per line where that helps reading a diff: objects expand, arrays of
// arrays put one inner array per line, long strings one per line, numbers stay inline.
function format(v, indent = '') {
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    const nested = v.some((x) => x !== null && typeof x === 'object');
    const longStrings = v.some((x) => typeof x === 'string' && x.length > 16);
    if (!nested && !longStrings) return JSON.stringify(v).replaceAll(',', ', ');
    const rows = v.map((x) => (Array.isArray(x) && !x.some((y) => y !== null && typeof y === 'object')
      ? JSON.stringify(x).replaceAll(',', ', ') : format(x, inner)));
    return `[\n${rows.map((r) => inner + r).join(',\n')}\n${indent}]`;
  }
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 0) return '{}';
    return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${format(v[k], inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(v);
}

function golden(o, c, rec) {
  const g = {
    format: 1,
    upstream: { version: o.version, commit: o.commit },
    device: adapterInfo?.description || [adapterInfo?.vendor, adapterInfo?.architecture, adapterInfo?.device].filter(Boolean).join(' '),
    case: c.name,
    steps: c.steps,
    initialParams: rec.initialParams,
    kernels: rec.kernels,
    trace: rec.trace,
  };
  if (c.training) {
    g.losses = rec.losses.map(f32Bits);
    g.lossValues = rec.losses;
  } else {
    g.outputs = rec.outputs;
  }
  g.finalParams = rec.finalParams;
  if (c.training) g.forwards = rec.forwards;
  return format(g) + '\n';
}

// What tracing must not change: losses, final params, forward outputs.
function results(rec) {
  return JSON.stringify({
    losses: rec.losses?.map(f32Bits), outputs: rec.outputs, finalParams: rec.finalParams,
    forwards: rec.forwards?.map((f) => [f.name, f.sha256]),
  });
}

async function main() {
  if (endianness() !== 'LE') throw new Error('gen_goldens: hashes are of little-endian bytes; this host is big-endian');
  const o = parseArgs(process.argv.slice(2));
  const tg = await import(pathToFileURL(resolve(o.upstream)).href);
  const { mulberry32 } = await import(pathToFileURL(join(o.cases, 'feeds.mjs')).href);
  const names = o.names.length > 0 ? o.names
    : readdirSync(o.cases).filter((f) => f.endsWith('.mjs') && f !== 'feeds.mjs').map((f) => f.slice(0, -4)).sort();
  mkdirSync(o.out, { recursive: true });
  for (const name of names) {
    const mod = await import(pathToFileURL(join(o.cases, `${name}.mjs`)).href);
    const make = () => {
      const c = mod.default(tg);
      if (c.name !== name) throw new Error(`cases/${name}.mjs names its case '${c.name}'`);
      if (!c.training === !c.forward) throw new Error(`case ${name}: give exactly one of training, forward`);
      return c;
    };
    const run = (c, trace) => (c.training ? runTraining : runForwardOnly)(tg, c, trace, mulberry32);
    const t0 = performance.now();
    const c = make();
    const rec = await run(c, true);
    const seconds = (performance.now() - t0) / 1000;
    writeFileSync(join(o.out, `${name}.json`), golden(o, c, rec));
    const last = c.training ? `final loss ${rec.losses[rec.losses.length - 1]}` : `${rec.outputs.length} outputs`;
    console.log(`${name}: ${c.steps} steps, ${rec.kernels.length} kernels, ${last}, ${seconds.toFixed(1)} s`);
    if (o.verifyUntraced) {
      const plain = await run(make(), false);  // a fresh spec: compile clones, but be safe
      if (results(plain) !== results(rec)) {
        throw new Error(`case ${name}: results with the kernel trace on differ from those with it off`);
      }
      console.log(`${name}: untraced run has the same losses, final params and forward outputs`);
    }
  }
}

main().then(
  () => process.exit(0),
  (e) => { console.error(e?.stack ?? String(e)); process.exit(1); },
);
