// The page side of the kernel trace in a browser, where upstream runs its runtime in a real
// Worker (a module Worker from a Blob URL of its worker bundle): imported before upstream, it
// wraps `Worker` so that each module Worker made from a Blob URL runs
//   import '<origin>/generator/trace_worker.mjs';  + upstream's bundle, unchanged
// (trace_worker.mjs installs kernel_trace.mjs's hook in the worker), and it exports the same
// { kernelTrace: { arm, collect }, deviceErrors } that node_env.mjs exports in Node, here a
// bridge to the one live worker: arm() posts the kernels to expect (before the step's own
// request, so they arrive first), collect() asks for the outputs after the step and resolves to
// them; device errors the worker saw are appended to deviceErrors before collect() resolves.
const MARK = '__tensorgradParityTrace';
const workerModule = new URL('./trace_worker.mjs', import.meta.url).href;

const blobs = new Map();  // object URL → Blob (upstream revokes its URL right after new Worker)
const origCreateObjectURL = URL.createObjectURL.bind(URL);
const origRevokeObjectURL = URL.revokeObjectURL.bind(URL);
URL.createObjectURL = (obj) => { const url = origCreateObjectURL(obj); if (obj instanceof Blob) blobs.set(url, obj); return url; };
URL.revokeObjectURL = (url) => { blobs.delete(url); origRevokeObjectURL(url); };

export const deviceErrors = [];
const live = new Set();
const pending = new Map();  // request id → { resolve, reject }
let nextId = 1;

const OrigWorker = globalThis.Worker;
globalThis.Worker = class TracedWorker extends OrigWorker {
  constructor(url, options) {
    const blob = blobs.get(String(url));
    if (!blob || options?.type !== 'module') throw new Error(`trace_page: a Worker not from a module Blob URL (${url})`);
    const wrapped = origCreateObjectURL(new Blob([`import ${JSON.stringify(workerModule)};\n`, blob], { type: 'text/javascript' }));
    super(wrapped, options);
    origRevokeObjectURL(wrapped);
    live.add(this);
    // Registered before upstream sets onmessage, so it runs first and can stop the event.
    this.addEventListener('message', (ev) => {
      const m = ev.data;
      if (!m || typeof m !== 'object' || !(MARK in m)) return;
      ev.stopImmediatePropagation();
      if (m[MARK] === 'deviceError') deviceErrors.push(m.message);
      else if (m[MARK] === 'armError') deviceErrors.push(`kernelTrace.arm: ${m.message}`);
      else {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.error) p?.reject(new Error(m.error)); else p?.resolve(m.outputs);
      }
    });
  }
  terminate() { live.delete(this); return super.terminate(); }
};

function theWorker() {
  if (live.size !== 1) throw new Error(`trace_page: ${live.size} live tensorgrad workers; the trace follows exactly one`);
  return [...live][0];
}

function request(kind) {
  const w = theWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.postMessage({ [MARK]: kind, id });
  });
}

export const kernelTrace = {
  arm(kernels) { theWorker().postMessage({ [MARK]: 'arm', kernels }); },
  collect() { return request('collect'); },
};
