// Records a graph bundle (BUNDLE_FORMAT.md) from an upstream tensorgrad training, for `tgparity`
// to run natively. Two lines in a training script, after compile():
//
//   import { recordBundle } from './tgbundle.mjs'
//   const recorder = recordBundle(tg, train, spec, { steps: 20, path: 'model.tgbundle.json' })
//
// `tg` is the tensorgrad module (import * as tg from 'tensorgrad'), `train` what compile(spec)
// returned, `spec` the object passed to compile. The recorder wraps train.step (and setLR) so the
// loop is unchanged; after `steps` completed steps it writes the bundle: a file in Node, a
// download in a browser. `recorder.done` resolves to the bundle object; `recorder.save()` writes
// it early. Only upstream's public API is used.

const FORMAT = 'tensorgrad-bundle';
// Version 2 adds captures to steps and forward runs; a bundle without captures stays version 1,
// which every reader of either version takes.
const VERSION_WITH_CAPTURES = 2;
const VERSION = 1;

const bytesOf = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

function base64(bytes) {
  if (typeof Buffer !== 'undefined') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

const f32Bits = (x) => new Uint32Array(new Float32Array([x]).buffer)[0].toString(16).padStart(8, '0');

// JSON has no Infinity or NaN: attribute values that are not finite are written as strings.
function jsonNumber(v) {
  if (typeof v !== 'number' || Number.isFinite(v)) return v;
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
}

// A safetensors file (F32 tensors in `names` order).
function safetensors(names, shapes, values) {
  const header = {};
  let offset = 0;
  for (const n of names) {
    const size = values[n].length * 4;
    header[n] = { dtype: 'F32', shape: shapes[n], data_offsets: [offset, offset + size] };
    offset += size;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const head = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + head.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let at = 8 + head.length;
  for (const n of names) {
    out.set(bytesOf(Float32Array.from(values[n])), at);
    at += values[n].length * 4;
  }
  return out;
}

// The file of the tensorgrad library, from the frame that captured a site (the first frame of
// every site's stack is inside the library).
function libraryFileOf(graph) {
  for (const t of graph.tensors) {
    const line = t.site?.stack?.split('\n')[1];
    const m = line && /\(?((?:file|https?|blob):[^\s)]*?|\/[^\s)]*?):\d+:\d+\)?\s*$/.exec(line);
    if (m) return m[1];
  }
  return null;
}

function siteOf(site, libraryFile) {
  if (!site) return null;
  const frames = [];
  for (const line of (site.stack ?? '').split('\n').slice(1)) {
    const f = line.trim();
    if (!f || (libraryFile && f.includes(libraryFile)) || f.includes('/tensorgrad/src/')) continue;
    frames.push(f);
    if (frames.length === 3) break;
  }
  return { opName: site.opName, frames };
}

function graphJson(graph) {
  const libraryFile = libraryFileOf(graph);
  const ops = graph.ops.map((op) => {
    const o = {};
    for (const [k, v] of Object.entries(op)) o[k] = Array.isArray(v) ? v.map(jsonNumber) : jsonNumber(v);
    return o;
  });
  const tensors = graph.tensors.map((t) => ({
    id: t.id, shape: [...t.shape], dtype: t.dtype, source: t.source, site: siteOf(t.site, libraryFile),
  }));
  return { ops, tensors, outputs: [...graph.outputs], captures: Object.fromEntries(graph.captures) };
}

const kernelsJson = (kernels) => kernels.map((k) => ({
  opIndex: k.opIndex, opKind: k.opKind, wgsl: k.wgsl, bindings: [...k.bindings], threads: k.threads,
  workgroupSize: k.workgroupSize,
}));

function inputsJson(decls, feed) {
  return Object.entries(decls).map(([name, d]) => {
    const shape = Array.isArray(d) ? d : d.shape;
    const dtype = Array.isArray(d) ? 'f32' : (d.dtype ?? 'f32');
    // A null (parametric) dim resolves from the feed's length.
    if (shape.includes(null)) {
      if (!feed?.[name]) throw new Error(`recordBundle: input '${name}' has a null dim; give a feed to resolve it`);
      const known = shape.reduce((p, x) => (x === null ? p : p * x), 1);
      return { name, shape: shape.map((x) => (x === null ? feed[name].length / known : x)), dtype };
    }
    return { name, shape: [...shape], dtype };
  });
}

function feedsJson(feed, inputs) {
  const out = {};
  for (const { name, shape, dtype } of inputs) {
    const a = feed[name];
    if (!a) throw new Error(`recordBundle: the feed has no input '${name}'`);
    out[name] = { dtype, shape, data: base64(bytesOf(dtype === 'i32' ? Int32Array.from(a) : Float32Array.from(a))) };
  }
  return out;
}

function optimizerJson(o) {
  const out = { kind: o.kind, lr: o.lr };
  for (const k of ['beta1', 'beta2', 'eps', 'weightDecay', 'momentum', 'nesterov', 'clipGradNorm']) {
    if (o[k] !== undefined) out[k] = o[k];
  }
  if (o.normalizeGrads !== undefined) out.normalizeGrads = typeof o.normalizeGrads === 'function' ? 'filter' : o.normalizeGrads;
  return out;
}

// Tensor-level writebacks from upstream's buffer plan: each writeback source has its own buffer.
function writebacksJson(plan) {
  const tensorOf = new Map();
  for (const [tensor, buffer] of plan.tensorToBuffer) if (!tensorOf.has(buffer)) tensorOf.set(buffer, tensor);
  return plan.writebacks.map((w) => {
    const dest = plan.buffers[w.dest];
    return { source: tensorOf.get(w.source), destName: dest.name, destKind: dest.kind === 'param' ? 'param' : 'state' };
  });
}

// A result's captures ({name: {dtype, shape, data}}), or null when it has none. `graph` gives each
// capture's dtype; the data is the array upstream returned, byte for byte.
function capturesJson(captures, graph) {
  const names = typeof captures?.names === 'function' ? captures.names() : [];
  if (names.length === 0) return null;
  const ids = graph.captures instanceof Map ? graph.captures : new Map(Object.entries(graph.captures ?? {}));
  const out = {};
  for (const name of names) {
    const t = graph.tensors[ids.get(name)];
    const data = captures.get(name);
    out[name] = { dtype: t?.dtype === 'f32' ? 'f32' : 'i32', shape: [...captures.shape(name)], data: base64(bytesOf(data)) };
  }
  return out;
}

// Writes a bundle object as its JSON: a file in Node, a download (named after the path's last
// part) in a browser. What recordBundle calls when it saves; exported for re-saving a bundle.
export async function writeBundle(bundle, path) {
  const text = JSON.stringify(bundle);
  if (typeof window === 'undefined' || typeof document === 'undefined') {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path, text);
    return;
  }
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = path.split('/').pop();
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function recordBundle(tg, train, spec, options = {}) {
  const { steps = 10, path = 'model.tgbundle.json', forwards = {}, tensorgrad = null, adapter = null } = options;
  if (typeof tg?.trace !== 'function') throw new Error('recordBundle: pass the tensorgrad module as the first argument (import * as tg from \'tensorgrad\')');
  if (typeof train?.step !== 'function' || !train.graph) throw new Error('recordBundle: the second argument must be what compile(spec) returned');
  if (!spec?.model || !spec.inputs || !spec.optimizer) throw new Error('recordBundle: the third argument must be the spec passed to compile');
  if (!Number.isInteger(steps) || steps < 0) throw new Error(`recordBundle: steps must be a non-negative integer, got ${steps}`);

  const recorded = [];
  let initialParams = null;
  let pendingLR = null;
  let failure = null;
  let finished = false;
  let resolveDone, rejectDone;
  const done = new Promise((res, rej) => { resolveDone = res; rejectDone = rej; });
  const originals = { step: train.step, setLR: train.setLR };
  const restore = () => { train.step = originals.step; train.setLR = originals.setLR; };

  const fail = (message) => {
    if (finished) return;
    failure = new Error(`recordBundle: ${message}`);
    finished = true;
    restore();
    rejectDone(failure);
  };
  for (const name of ['reset', 'uploadParams', 'replaceModel']) {
    const original = train[name];
    if (typeof original !== 'function') continue;
    train[name] = function (...args) {
      if (!finished) fail(`train.${name}() was called while recording; the native replay could not follow it`);
      return original.apply(this, args);
    };
  }

  async function build() {
    const trainingInputs = inputsJson(spec.inputs);
    const ir = await tg.trace(spec);
    if (ir.graph.ops.length !== train.graph.ops.length ||
        JSON.stringify(graphJson(ir.graph).ops) !== JSON.stringify(graphJson(train.graph).ops)) {
      throw new Error('recordBundle: trace(spec) builds another graph than compile(spec) did; pass the same spec');
    }
    const shapes = {};
    for (const op of train.graph.ops) if (op.kind === 'param_input') shapes[op.name] = [...train.graph.tensors[op.out].shape];
    const bundle = {
      format: FORMAT, version: recorded.some((s) => s.captures) ? VERSION_WITH_CAPTURES : VERSION, tensorgrad, adapter,
      training: {
        inputs: trainingInputs, optimizer: optimizerJson(spec.optimizer), seed: train.seed,
        paramNames: [...train.paramNames], graph: graphJson(train.graph),
        paramGrads: Object.fromEntries(Object.entries(ir.paramGrads).map(([n, t]) => [n, t.id])),
        writebacks: writebacksJson(ir.plan), kernels: kernelsJson(train.kernels),
      },
      forwards: [],
      params: base64(safetensors(train.paramNames, shapes, initialParams)),
      steps: recorded,
    };
    for (const [name, f] of Object.entries(forwards)) {
      const feed = typeof f.feed === 'function' ? f.feed() : f.feed;  // a function: made at save
      const fwd = await train.attach(f.spec);
      const fir = await fwd.graphFor(feed);
      const inputs = inputsJson(f.spec.inputs, feed);
      const r = await fwd.run(feed);
      if (r.kind !== 'completed') throw new Error(`recordBundle: forward '${name}' did not complete: ${r.kind}`);
      const out = fir.graph.tensors[fir.graph.outputs[0]];
      const dtype = f.spec.output ?? 'f32';
      const run = {
        afterStep: recorded.length, feeds: feedsJson(feed, inputs),
        output: { dtype, shape: [...out.shape], data: base64(bytesOf(r.output)) },
      };
      const captures = capturesJson(r.captures, fir.graph);
      if (captures) {
        run.captures = captures;
        bundle.version = VERSION_WITH_CAPTURES;
      }
      bundle.forwards.push({
        name, inputs, output: dtype, graph: graphJson(fir.graph), kernels: kernelsJson(fir.kernels), runs: [run],
      });
    }
    return bundle;
  }

  async function save() {
    if (failure) throw failure;
    if (!initialParams) throw new Error('recordBundle: no step was recorded yet');
    finished = true;
    restore();
    try {
      const bundle = await build();
      await writeBundle(bundle, path);
      resolveDone(bundle);
      return bundle;
    } catch (e) {
      rejectDone(e);
      throw e;
    }
  }

  train.setLR = function (lr) {
    if (!finished) pendingLR = lr;
    return originals.setLR.call(this, lr);
  };
  train.step = async function (feed) {
    if (finished) return originals.step.call(this, feed);
    if (!initialParams) {
      const p = await train.downloadParams();
      initialParams = Object.fromEntries(Object.entries(p instanceof Map ? Object.fromEntries(p) : p).map(([n, v]) => [n, Float32Array.from(v)]));
    }
    const inputs = inputsJson(spec.inputs);
    const feeds = feedsJson(feed, inputs);  // copied now: callers reuse their arrays
    const r = await originals.step.call(this, feed);
    if (finished) return r;
    if (r.kind !== 'completed') {
      console.warn(`recordBundle: step ${recorded.length + 1} ${r.kind}; the bundle keeps the ${recorded.length} completed steps`);
      await save();
      return r;
    }
    const entry = { feeds, setLR: pendingLR, loss: f32Bits(r.loss) };
    const captures = capturesJson(r.captures, train.graph);
    if (captures) entry.captures = captures;
    recorded.push(entry);
    pendingLR = null;
    if (steps > 0 && recorded.length >= steps) await save();
    return r;
  };
  done.catch(() => {});  // surfaced through recorder.done and save()
  return { done, save, get steps() { return recorded.length; } };
}
