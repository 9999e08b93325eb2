// Runs a kernel list on real WebGPU (Dawn for Node) and returns the final buffer contents.
// Usage: node run_kernels.mjs job.json result.json
//   job: { buffers: [{size, dtype, data|null}], kernels: [{label, wgsl, bindings, dispatch: [x, y]}], read: [ids] }
//   (a binding: a buffer id, or {id, offset, size} for a range of one)
//   result: { buffers: {id: [u32 bit patterns]}, errors: [messages] }
// On a CPU machine Dawn runs its OpenGL ES backend (compatibility mode) on llvmpipe; set
// DAWN_BACKEND=vulkan to use a Vulkan GPU instead.
import { readFileSync, writeFileSync } from 'node:fs';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
const [jobPath, resultPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, 'utf8'));
const backend = process.env.DAWN_BACKEND ?? 'opengles';
const gpu = create([`backend=${backend}`]);
const adapter = await gpu.requestAdapter(backend === 'opengles' ? { featureLevel: 'compatibility' } : {});
if (!adapter) throw new Error(`no WebGPU adapter for backend=${backend}`);
const requiredLimits = {};
for (const key in adapter.limits) requiredLimits[key] = adapter.limits[key];
const device = await adapter.requestDevice({ requiredLimits });
const errors = [];
device.addEventListener('uncapturederror', e => errors.push(`uncaptured: ${e.error.message}`));

const arrayOf = (dtype, data) =>
  dtype === 'f32' ? new Float32Array(data) : dtype === 'i32' ? new Int32Array(data) : new Uint32Array(data);

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
const offsets = [];
let total = 0;
for (const id of job.read) { offsets.push(total); total += buffers[id].size; }
const staging = device.createBuffer({ size: Math.max(4, total), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
job.read.forEach((id, n) => encoder.copyBufferToBuffer(buffers[id], 0, staging, offsets[n], buffers[id].size));
device.queue.submit([encoder.finish()]);
await staging.mapAsync(GPUMapMode.READ);
const all = staging.getMappedRange();
const result = { buffers: {}, errors };
job.read.forEach((id, n) => {
  const bytes = all.slice(offsets[n], offsets[n] + buffers[id].size);
  result.buffers[id] = Array.from(new Uint32Array(bytes));  // raw bits: pooled buffers change dtype
});
staging.unmap();
writeFileSync(resultPath, JSON.stringify(result));
// Exit without tearing Dawn down: its GL backend can crash or hang in teardown after a large run.
process.reallyExit(0);
