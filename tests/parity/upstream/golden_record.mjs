// What a golden records, shared by gen_goldens.mjs (Dawn for Node) and gen_goldens_chromium.mjs
// (the same module imported by a Chromium page): runs one parity case (../cases/<name>.mjs)
// through upstream's public API with the kernel trace armed per step/run, and formats
// golden/<case>.json (format 1, ../README.md). Uses nothing but standard JavaScript, WebCrypto
// and `env` = { kernelTrace: { arm, collect }, deviceErrors }: node_env.mjs's in Node,
// trace_page.mjs's bridge to the Worker in a browser.

// SHA-256 through WebCrypto (a browser page on 127.0.0.1 is a secure context; Node has it too).
const sha256 = async (bytes) => new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}
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
async function traceOf(outputs) {
  const parts = [];
  for (const o of outputs) parts.push((await sha256(o)).subarray(0, 8));
  return base64(concat(parts));
}

async function paramHashes(params) {
  const out = {};
  for (const name of Object.keys(params).sort()) out[name] = hex(await sha256(bytesOf(params[name])));
  return out;
}

// Runs `call` (one step/run) with the trace armed for `kernels` when `trace` is set.
async function traced({ kernelTrace }, trace, kernels, call) {
  if (trace) kernelTrace.arm(kernels.map((k) => ({ kind: k.kind, bytes: k.bytes })));
  let r;
  try {
    r = await call();
  } finally {
    if (trace && r?.kind !== 'completed') await kernelTrace.collect().catch(() => {});
  }
  return { r, outputs: trace && r.kind === 'completed' ? await kernelTrace.collect() : null };
}

function check({ deviceErrors }, r, what) {
  if (r.kind !== 'completed') {
    throw new Error(`${what} did not complete: ${r.kind}${r.error ? `: ${r.error.stack ?? r.error.message}` : ''}`);
  }
  if (deviceErrors.length > 0) throw new Error(`${what}: WebGPU error: ${deviceErrors.join('; ')}`);
}

async function runTraining(env, tg, c, trace, mulberry32) {
  const rec = { losses: [], trace: [], forwards: [] };
  const train = await tg.compile(c.training);
  try {
    const kernels = dispatched(train);
    rec.kernels = kernelRows(kernels);
    rec.initialParams = await paramHashes(await train.downloadParams());
    const rng = mulberry32(c.feedSeed);
    for (let s = 0; s < c.steps; s++) {
      const feed = c.feed(rng);
      const { r, outputs } = await traced(env, trace, kernels, () => train.step(feed));
      check(env, r, `case ${c.name}: step ${s}`);
      rec.losses.push(r.loss);
      if (outputs) rec.trace.push(await traceOf(outputs));
    }
    rec.finalParams = await paramHashes(await train.downloadParams());
    for (const f of c.forwards ?? []) {
      const fwd = await train.attach(f.spec);
      const feed = f.feed(rng);
      const ir = await fwd.graphFor(feed);  // compiles the sibling for this shape; run() reuses it
      const fk = dispatched(ir);
      const { r, outputs } = await traced(env, trace, fk, () => fwd.run(feed));
      check(env, r, `case ${c.name}: forward '${f.name}'`);
      const outT = ir.graph.tensors[ir.graph.outputs[0]];
      rec.forwards.push({
        name: f.name, dtype: outT.dtype, shape: [...outT.shape],
        sha256: hex(await sha256(bytesOf(r.output))),
        kernels: kernelRows(fk), trace: outputs ? await traceOf(outputs) : null,
      });
    }
  } finally {
    train.destroy();
  }
  return rec;
}

async function runForwardOnly(env, tg, c, trace, mulberry32) {
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
        rec.initialParams = await paramHashes(await fwd.downloadParams());
      } else if (JSON.stringify(kernelRows(ks)) !== JSON.stringify(rec.kernels)) {
        throw new Error(`case ${c.name}: run ${s} dispatches other kernels than run 0 (feed shapes differ)`);
      }
      const { r, outputs } = await traced(env, trace, ks, () => fwd.run(feed));
      check(env, r, `case ${c.name}: run ${s}`);
      const outT = ir.graph.tensors[ir.graph.outputs[0]];
      rec.outputs.push({ dtype: outT.dtype, shape: [...outT.shape], sha256: hex(await sha256(bytesOf(r.output))) });
      if (outputs) rec.trace.push(await traceOf(outputs));
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

// The golden file's text. device: the adapter's description (vendor/architecture/device if none).
export function golden({ version, commit, device }, c, rec) {
  const g = {
    format: 1,
    upstream: { version, commit },
    device,
    case: c.name,
    steps: c.steps,
    initialParams: rec.initialParams,
    kernels: rec.kernels,
    trace: rec.trace,
  };
  if (c.training) {
    g.losses = rec.losses.map(f32Bits);
    g.lossValues = rec.losses.map((x) => (Number.isFinite(x) ? x : null));  // JSON has no NaN / ±Infinity
  } else {
    g.outputs = rec.outputs;
  }
  g.finalParams = rec.finalParams;
  if (c.training) g.forwards = rec.forwards;
  return format(g) + '\n';
}

// What tracing must not change: losses, final params, forward outputs.
export function results(rec) {
  return JSON.stringify({
    losses: rec.losses?.map(f32Bits), outputs: rec.outputs, finalParams: rec.finalParams,
    forwards: rec.forwards?.map((f) => [f.name, f.sha256]),
  });
}

// Runs case `name` (mod = the imported ../cases/<name>.mjs) with the trace on, and, if
// verifyUntraced, once more with it off. Resolves to { c, rec, seconds, untracedSame }.
export async function goldenCase(env, tg, mulberry32, mod, name, { verifyUntraced = false } = {}) {
  const make = () => {
    const c = mod.default(tg);
    if (c.name !== name) throw new Error(`cases/${name}.mjs names its case '${c.name}'`);
    if (!c.training === !c.forward) throw new Error(`case ${name}: give exactly one of training, forward`);
    return c;
  };
  const run = (c, trace) => (c.training ? runTraining : runForwardOnly)(env, tg, c, trace, mulberry32);
  const t0 = performance.now();
  const c = make();
  const rec = await run(c, true);
  const seconds = (performance.now() - t0) / 1000;
  let untracedSame = null;
  if (verifyUntraced) {
    const plain = await run(make(), false);  // a fresh spec: compile clones, but be safe
    untracedSame = results(plain) === results(rec);
  }
  return { c, rec, seconds, untracedSame };
}

export const lossBits = f32Bits;
