// Makes upstream tensorgrad's browser runtime run in Node, in this process:
//   - navigator.gpu is Dawn for Node (npm `webgpu`) on its OpenGL ES backend. Every adapter is
//     requested at featureLevel 'compatibility' (the only level that backend offers) and every
//     device with all of the adapter's limits as requiredLimits (compatibility mode's defaults
//     are too small for upstream's kernels; what upstream asks for itself is merged on top).
//   - Worker: an in-process shim. The worker bundle (a Blob URL, as upstream's WorkerProxy makes
//     it) is evaluated as an ES module with its own `self` (onmessage / postMessage) and its own
//     `navigator`; messages cross as structured clones (transfer lists honoured: the transferred
//     ArrayBuffers detach on the sending side) and arrive asynchronously, in order, each in its
//     own macrotask, as between a page and a browser worker. terminate() drops undelivered
//     messages and destroys the devices the worker created.
//   - kernelTrace, deviceErrors: kernel_trace.mjs's hook (the goldens' per-kernel trace, and the
//     devices' uncaptured errors), installed on this realm's WebGPU prototypes, which upstream's
//     in-process worker shares.
import { create, globals } from 'webgpu';
import { installKernelTrace } from './kernel_trace.mjs';

Object.assign(globalThis, globals);

export const { kernelTrace, deviceErrors } = installKernelTrace(globalThis);

// ---- WebGPU ------------------------------------------------------------------------------

const dawn = create(['backend=opengles']);
export let adapterInfo = null;  // the last adapter handed out: { description, vendor, ... }

const origRequestDevice = GPUAdapter.prototype.requestDevice;
GPUAdapter.prototype.requestDevice = function requestDevice(descriptor = {}) {
  const requiredLimits = {};
  for (const key in this.limits) {
    const v = this.limits[key];
    if (typeof v === 'number') requiredLimits[key] = v;
  }
  Object.assign(requiredLimits, descriptor.requiredLimits ?? {});
  return origRequestDevice.call(this, { ...descriptor, requiredLimits });
};

// A `navigator.gpu` whose devices are reported to onDevice (a worker's, to destroy them with it).
function makeGpu(onDevice) {
  return {
    async requestAdapter(options = {}) {
      const adapter = await dawn.requestAdapter({ ...options, featureLevel: 'compatibility' });
      if (!adapter) return adapter;
      const i = adapter.info;
      adapterInfo = {
        vendor: i.vendor, architecture: i.architecture, device: i.device, description: i.description,
      };
      if (!onDevice) return adapter;
      // Report the devices this adapter makes; everything else is the real adapter.
      return new Proxy(adapter, {
        get(target, prop) {
          if (prop === 'requestDevice') {
            return async (d) => { const dev = await target.requestDevice(d); onDevice(dev); return dev; };
          }
          const v = Reflect.get(target, prop, target);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    },
    getPreferredCanvasFormat() { return 'rgba8unorm'; },
    get wgslLanguageFeatures() { return dawn.wgslLanguageFeatures; },
  };
}

if (typeof globalThis.navigator === 'undefined') {
  Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true, writable: true });
}
Object.defineProperty(globalThis.navigator, 'gpu', { value: makeGpu(null), configurable: true });

// ---- Blob URLs and the in-process Worker --------------------------------------------------

const blobs = new Map();  // object URL → Blob, read synchronously by the Worker constructor
const origCreateObjectURL = URL.createObjectURL?.bind(URL);
const origRevokeObjectURL = URL.revokeObjectURL?.bind(URL);
let nextBlobId = 1;
URL.createObjectURL = (obj) => {
  const url = origCreateObjectURL ? origCreateObjectURL(obj) : `blob:nodedata:tg-${nextBlobId++}`;
  blobs.set(url, obj);
  return url;
};
URL.revokeObjectURL = (url) => {
  blobs.delete(url);
  if (origRevokeObjectURL) origRevokeObjectURL(url);
};

// postMessage(data, transfer) and postMessage(data, { transfer }).
const transferOf = (t) => (Array.isArray(t) ? t : t?.transfer ?? []);

// A tiny EventTarget-like dispatch: the on<type> handler, then listeners.
class Port {
  #listeners = { message: new Set(), error: new Set(), messageerror: new Set() };
  onmessage = null;
  onerror = null;
  onmessageerror = null;
  addEventListener(type, fn) { this.#listeners[type]?.add(fn); }
  removeEventListener(type, fn) { this.#listeners[type]?.delete(fn); }
  _dispatch(type, event) {
    const on = this[`on${type}`];
    if (typeof on === 'function') on.call(this, event);
    for (const fn of this.#listeners[type] ?? []) fn.call(this, event);
  }
}

const scopes = new Map();  // worker id → its scope, read by the evaluated bundle's prologue
globalThis[Symbol.for('tensorgrad.parity.workerScopes')] = scopes;
let nextWorkerId = 1;

class WorkerScope extends Port {
  constructor(worker, navigator) {
    super();
    this.worker = worker;
    this.navigator = navigator;
  }
  postMessage(data, transfer) {
    const w = this.worker;
    if (w.terminated) return;
    const clone = structuredClone(data, { transfer: transferOf(transfer) });
    setImmediate(() => { if (!w.terminated) w._dispatch('message', { data: clone, type: 'message' }); });
  }
  close() { this.worker.terminate(); }
}

class InProcessWorker extends Port {
  constructor(url, _options) {
    super();
    const blob = blobs.get(String(url));
    if (!blob) throw new Error(`Worker shim: ${url} is not a Blob URL made by URL.createObjectURL`);
    this.terminated = false;
    this.devices = [];
    this.id = nextWorkerId++;
    const navigator = { gpu: makeGpu((d) => { if (this.terminated) d.destroy(); else this.devices.push(d); }) };
    this.scope = new WorkerScope(this, navigator);
    scopes.set(this.id, this.scope);
    this.ready = blob.text().then(async (src) => {
      const prologue =
        `const self = globalThis[Symbol.for('tensorgrad.parity.workerScopes')].get(${this.id});` +
        'const navigator = self.navigator;\n';
      // The id in the prologue makes every worker's module URL distinct: one module instance each.
      const url = 'data:text/javascript;base64,' + Buffer.from(prologue + src).toString('base64');
      await import(url);
    }).catch((e) => {
      if (!this.terminated) this._dispatch('error', { message: String(e?.stack ?? e), error: e, type: 'error' });
      throw e;
    });
    this.ready.catch(() => {});
  }
  postMessage(data, transfer) {
    if (this.terminated) return;
    const clone = structuredClone(data, { transfer: transferOf(transfer) });
    this.ready.then(() => setImmediate(() => {
      if (this.terminated) return;
      try {
        this.scope._dispatch('message', { data: clone, type: 'message' });
      } catch (e) {
        this._dispatch('error', { message: String(e?.message ?? e), error: e, type: 'error' });
      }
    }), () => {});
  }
  terminate() {
    if (this.terminated) return;
    this.terminated = true;
    scopes.delete(this.id);
    for (const d of this.devices) d.destroy();
    this.devices = [];
  }
}

globalThis.Worker = InProcessWorker;
