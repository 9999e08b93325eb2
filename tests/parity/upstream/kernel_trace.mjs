// The hook behind the goldens' per-kernel trace, shared by Dawn for Node (node_env.mjs installs it
// in the generator's own realm, where upstream's in-process worker runs) and Chromium
// (trace_worker.mjs installs it in upstream's real Worker, ahead of upstream's worker bundle).
// It wraps standard WebGPU prototypes only, so it is the same code in both.
//
// installKernelTrace(scope) patches scope's GPUDevice / GPUCommandEncoder / GPUComputePassEncoder
// / GPUAdapter prototypes (once per scope) and returns { kernelTrace, deviceErrors }:
//   - kernelTrace: armed for one step/run, it copies, right after each compute pass ends, the
//     buffer bound as the last entry of the pass's bind group (the kernel's output, upstream's
//     codegen puts it last) into a staging buffer in the same command encoder; collect() reads
//     them back after the step. The hook only adds copies after passes: upstream's passes, their
//     order and their dispatches are untouched, and while it is not armed it adds nothing.
//   - deviceErrors: uncaptured device errors (validation, out of memory, internal) of every device
//     requested after installation: upstream installs no handler, and an invalid command buffer
//     would otherwise pass as a step that read back zeros.

const CHUNK_BYTES = 64 << 20;  // staging buffers are at most this big (one per chunk of kernels)

class KernelTrace {
  #armed = null;
  #g;
  #bindGroupOutput;
  #passState;
  #encoderDevice;

  constructor(g, bindGroupOutput, passState, encoderDevice) {
    this.#g = g;
    this.#bindGroupOutput = bindGroupOutput;
    this.#passState = passState;
    this.#encoderDevice = encoderDevice;
  }

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
    const bg = this.#passState.get(pass)?.bindGroup;
    const out = bg && this.#bindGroupOutput.get(bg);
    if (!out) { a.errors.push(`dispatch ${i} (${label}): no bind group with a known output`); return; }
    if (out.offset + slot.bytes > out.buffer.size) {
      a.errors.push(`dispatch ${i} (${label}): output buffer of ${out.buffer.size} bytes < ${slot.bytes}`);
      return;
    }
    if (!slot.chunk.buffer) {
      const device = this.#encoderDevice.get(encoder);
      slot.chunk.buffer = device.createBuffer({
        size: Math.max(4, slot.chunk.size), usage: this.#g.GPUBufferUsage.MAP_READ | this.#g.GPUBufferUsage.COPY_DST,
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
        await c.buffer.mapAsync(this.#g.GPUMapMode.READ);
        views.set(c, new Uint8Array(c.buffer.getMappedRange().slice(0)));
        c.buffer.unmap();
      }
      return a.slots.map((s) => views.get(s.chunk)?.subarray(s.offset, s.offset + s.bytes) ?? new Uint8Array(0));
    } finally {
      for (const c of a.chunks) c.buffer?.destroy();
    }
  }
}

const installed = Symbol.for('tensorgrad.parity.kernelTrace');

export function installKernelTrace(g = globalThis) {
  if (g[installed]) return g[installed];
  const { GPUAdapter, GPUDevice, GPUBuffer, GPUCommandEncoder, GPUComputePassEncoder } = g;
  if (!GPUDevice) throw new Error('installKernelTrace: this scope has no WebGPU (GPUDevice)');

  const bindGroupOutput = new WeakMap();  // GPUBindGroup → { buffer, offset } of its last entry
  const passState = new WeakMap();        // GPUComputePassEncoder → { encoder, bindGroup, label }
  const encoderDevice = new WeakMap();    // GPUCommandEncoder → GPUDevice
  const kernelTrace = new KernelTrace(g, bindGroupOutput, passState, encoderDevice);
  const deviceErrors = [];

  const origRequestDevice = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = function requestDevice(...args) {
    return origRequestDevice.apply(this, args).then((device) => {
      device.addEventListener('uncapturederror', (e) => deviceErrors.push(e.error?.message ?? String(e.error)));
      return device;
    });
  };

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

  g[installed] = { kernelTrace, deviceErrors };
  return g[installed];
}
