// Runs one kernel job on a WebGPU adapter: the logic shared by run_kernels.mjs (Dawn for Node)
// and run_kernels_chromium.mjs (the page it loads in headless Chromium). Uses only WebGPU's
// globals (GPUBufferUsage, GPUMapMode), which Node gets from the npm package 'webgpu' and a page
// has natively. The job format is in run_kernels.mjs's header comment; a buffer's data may also
// be an ArrayBufferView (its bytes are written as they are, whatever the dtype).

// A device with every limit the adapter offers and the job's `features` (a feature the adapter
// lacks is an error); its uncaptured errors go to `errors`.
export async function openDevice(adapter, errors, features = []) {
  const requiredLimits = {};
  for (const key in adapter.limits) requiredLimits[key] = adapter.limits[key];
  const requiredFeatures = features.filter((f) => adapter.features.has(f));
  for (const f of features) {
    if (!adapter.features.has(f)) errors.push(`the adapter has no feature '${f}'`);
  }
  const device = await adapter.requestDevice({ requiredLimits, requiredFeatures });
  device.addEventListener('uncapturederror', e => errors.push(`uncaptured: ${e.error.message}`));
  return device;
}

const arrayOf = (dtype, data) =>
  ArrayBuffer.isView(data) ? data
    : dtype === 'f32' ? new Float32Array(data) : dtype === 'i32' ? new Int32Array(data) : new Uint32Array(data);

// Runs job.kernels in order in one command encoder and reads job.read back through one staging
// buffer. Returns { bytes: ArrayBuffer (every read buffer, one after another), offsets: [byte
// offset of job.read[n] in bytes], sizes: [its size] }; kernels' errors are pushed to `errors`.
export async function runJob(device, job, errors) {
  const buffers = job.buffers.map((b, id) => {
    const buffer = device.createBuffer({
      label: `buffer ${id}`,
      size: Math.max(4, b.size),
      // UNIFORM too, so a kernel may bind any buffer as var<uniform>.
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    if (b.data) device.queue.writeBuffer(buffer, 0, arrayOf(b.dtype, b.data));
    return buffer;
  });

  const pipelines = new Map();  // identical WGSL → one pipeline
  const encoder = device.createCommandEncoder();
  for (const k of job.kernels) {
    let pipeline = pipelines.get(k.wgsl);
    if (!pipeline) {
      device.pushErrorScope('validation');
      const module = device.createShaderModule({ code: k.wgsl });
      const info = await module.getCompilationInfo();
      for (const m of info.messages) {
        if (m.type === 'error') errors.push(`${k.label}: ${m.lineNum}:${m.linePos}: ${m.message}`);
      }
      pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
      const e = await device.popErrorScope();
      if (e) errors.push(`${k.label}: ${e.message}`);
      pipelines.set(k.wgsl, pipeline);
    }
    device.pushErrorScope('validation');
    const bindGroup = device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      // A binding is a buffer id, or {id, offset, size}: a range of one (an arena's view).
      entries: k.bindings.map((b, binding) => ({
        binding,
        resource: typeof b === 'number' ? { buffer: buffers[b] } : { buffer: buffers[b.id], offset: b.offset, size: b.size },
      })),
    });
    const e = await device.popErrorScope();
    if (e) { errors.push(`${k.label}: ${e.message}`); continue; }
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(k.dispatch[0], k.dispatch[1]);
    pass.end();
  }

  // One staging buffer for every read-back (hundreds of separate maps have hung Dawn's GL backend).
  const offsets = [], sizes = [];
  let total = 0;
  for (const id of job.read) { offsets.push(total); sizes.push(buffers[id].size); total += buffers[id].size; }
  const staging = device.createBuffer({ size: Math.max(4, total), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  job.read.forEach((id, n) => encoder.copyBufferToBuffer(buffers[id], 0, staging, offsets[n], buffers[id].size));
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const bytes = staging.getMappedRange().slice(0);
  staging.unmap();
  return { bytes, offsets, sizes };
}

// The result file's `buffers`: {id: [u32 bit patterns]} (raw bits: pooled buffers change dtype).
export function resultBuffers(job, bytes, offsets, sizes) {
  const out = {};
  job.read.forEach((id, n) => { out[id] = Array.from(new Uint32Array(bytes, offsets[n], sizes[n] / 4)); });
  return out;
}
