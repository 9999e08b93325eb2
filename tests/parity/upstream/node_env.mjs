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
//   - kernelTrace: the hook behind the goldens' per-kernel trace. Armed for one step/run, it
//     copies, right after each compute pass ends, the buffer bound as the last entry of the
//     pass's bind group (the kernel's output, upstream's codegen puts it last) into a staging
//     buffer in the same command encoder; collect() reads them back after the step. The hook
//     only adds copies after passes: upstream's passes, their order and their dispatches are
//     untouched, and while it is not armed it adds nothing.
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);

// ---- WebGPU ------------------------------------------------------------------------------

const dawn = create(['backend=opengles']);
export let adapterInfo = null;  // the last adapter handed out: { description, vendor, ... }
// Uncaptured device errors (validation, out of memory, internal): upstream installs no handler,
// and an invalid command buffer would otherwise pass as a step that read back zeros.
export const deviceErrors = [];

const origRequestDevice = GPUAdapter.prototype.requestDevice;
GPUAdapter.prototype.requestDevice = function requestDevice(descriptor = {}) {
  const requiredLimits = {};
  for (const key in this.limits) {
    const v = this.limits[key];
    if (typeof v === 'number') requiredLimits[key] = v;
  }
  Object.assign(requiredLimits, descriptor.requiredLimits ?? {});
  return origRequestDevice.call(this, { ...descriptor, requiredLimits }).then((device) => {
    device.addEventListener('uncapturederror', (e) => deviceErrors.push(e.error?.message ?? String(e.error)));
    return device;
  });
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

// ---- Kernel trace ---------------------------------------------------------------------------

const CHUNK_BYTES = 64 << 20;  // staging buffers are at most this big (one per chunk of kernels)

const bindGroupOutput = new WeakMap();  // GPUBindGroup → { buffer, offset } of its last entry
const passState = new WeakMap();        // GPUComputePassEncoder → { encoder, bindGroup }
const encoderDevice = new WeakMap();    // GPUCommandEncoder → GPUDevice

class KernelTrace {
  #armed = null;

  // Arm for one step/run: `kernels[i]` = { kind, bytes } of the i-th dispatch to come.
  arm(kernels) {
    if (this.#armed) throw new Error('kernelTrace: already armed');
    const chunks = [];
    const slots = kernels.map((k) => {
      if (k.bytes % 4 !== 0) throw new Error(`kernelTrace: ${k.kind} output of ${k.bytes} bytes`);
      let c = chunks[chunks.length - 1];
      if (!c || (c.size + k.bytes > CHUNK_BYTES && c.size > 0)) chunks.push(c = { size: 0, buffer: null });
      const slot = { chunk: c, offset: c.size, bytes: k.bytes, kind: k.kind };
      c.size += k.bytes;
      return slot;
    });
    this.#armed = { slots, chunks, labels: [], errors: [] };
  }

  get armed() { return this.#armed !== null; }

  // Called right after a compute pass ended on `encoder`.
  _afterPass(pass, encoder, label) {
    const a = this.#armed;
    if (!a) return;
    const i = a.labels.length;
    a.labels.push(label);
    const slot = a.slots[i];
    if (!slot) { a.errors.push(`dispatch ${i} (${label}) beyond the ${a.slots.length} kernels expected`); return; }
    const bg = passState.get(pass)?.bindGroup;
    const out = bg && bindGroupOutput.get(bg);
    if (!out) { a.errors.push(`dispatch ${i} (${label}): no bind group with a known output`); return; }
    if (out.offset + slot.bytes > out.buffer.size) {
      a.errors.push(`dispatch ${i} (${label}): output buffer of ${out.buffer.size} bytes < ${slot.bytes}`);
      return;
    }
    if (!slot.chunk.buffer) {
      const device = encoderDevice.get(encoder);
      slot.chunk.buffer = device.createBuffer({
        size: Math.max(4, slot.chunk.size), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
        label: 'kernel-trace-staging',
      });
    }
    if (slot.bytes > 0) encoder.copyBufferToBuffer(out.buffer, out.offset, slot.chunk.buffer, slot.offset, slot.bytes);
  }

  // After the step/run completed: every dispatch's output bytes (Uint8Array), in order. Throws if
  // the dispatches were not the kernels armed for (count or kinds).
  async collect() {
    const a = this.#armed;
    if (!a) throw new Error('kernelTrace: not armed');
    this.#armed = null;
    const views = new Map();
    try {
      if (a.labels.length !== a.slots.length) {
        a.errors.push(`${a.labels.length} dispatches recorded, ${a.slots.length} kernels expected`);
      }
      a.labels.forEach((label, i) => {
        if (a.slots[i] && a.slots[i].kind !== label) {
          a.errors.push(`dispatch ${i} is '${label}', kernel ${i} is '${a.slots[i].kind}'`);
        }
      });
      if (a.errors.length) throw new Error(`kernelTrace: ${a.errors.slice(0, 5).join('; ')}`);
      for (const c of a.chunks) {
        if (!c.buffer) continue;
        await c.buffer.mapAsync(GPUMapMode.READ);
        views.set(c, new Uint8Array(c.buffer.getMappedRange().slice(0)));
        c.buffer.unmap();
      }
      return a.slots.map((s) => views.get(s.chunk)?.subarray(s.offset, s.offset + s.bytes) ?? new Uint8Array(0));
    } finally {
      for (const c of a.chunks) c.buffer?.destroy();
    }
  }
}

export const kernelTrace = new KernelTrace();

const origCreateBindGroup = GPUDevice.prototype.createBindGroup;
GPUDevice.prototype.createBindGroup = function createBindGroup(descriptor) {
  const bg = origCreateBindGroup.call(this, descriptor);
  let last = null;
  for (const e of descriptor.entries ?? []) if (!last || e.binding > last.binding) last = e;
  const r = last?.resource;
  if (r instanceof GPUBuffer) bindGroupOutput.set(bg, { buffer: r, offset: 0 });
  else if (r?.buffer instanceof GPUBuffer) bindGroupOutput.set(bg, { buffer: r.buffer, offset: r.offset ?? 0 });
  return bg;
};

const origCreateCommandEncoder = GPUDevice.prototype.createCommandEncoder;
GPUDevice.prototype.createCommandEncoder = function createCommandEncoder(...args) {
  const encoder = origCreateCommandEncoder.apply(this, args);
  encoderDevice.set(encoder, this);
  return encoder;
};

const origBeginComputePass = GPUCommandEncoder.prototype.beginComputePass;
GPUCommandEncoder.prototype.beginComputePass = function beginComputePass(...args) {
  const pass = origBeginComputePass.apply(this, args);
  passState.set(pass, { encoder: this, bindGroup: null, label: args[0]?.label ?? '' });
  return pass;
};

const origSetBindGroup = GPUComputePassEncoder.prototype.setBindGroup;
GPUComputePassEncoder.prototype.setBindGroup = function setBindGroup(index, bindGroup, ...rest) {
  const s = passState.get(this);
  if (s && index === 0) s.bindGroup = bindGroup;
  return origSetBindGroup.call(this, index, bindGroup, ...rest);
};

const origEnd = GPUComputePassEncoder.prototype.end;
GPUComputePassEncoder.prototype.end = function end() {
  const r = origEnd.call(this);
  const s = passState.get(this);
  if (s && kernelTrace.armed) kernelTrace._afterPass(this, s.encoder, s.label);
  return r;
};
