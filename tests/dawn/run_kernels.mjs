// Runs a kernel list on real WebGPU (Dawn for Node) and returns the final buffer contents.
// Usage: node run_kernels.mjs job.json result.json
//   job: { buffers: [{size, dtype, data|null}], kernels: [{label, wgsl, bindings, dispatch: [x, y]}], read: [ids],
//          features: [WebGPU feature names the device needs] (optional) }
//   (a binding: a buffer id, or {id, offset, size} for a range of one)
//   result: { buffers: {id: [u32 bit patterns]}, errors: [messages] }
// On a CPU machine Dawn runs its OpenGL ES backend (compatibility mode) on llvmpipe; set
// DAWN_BACKEND=vulkan to use a Vulkan GPU instead. The job itself runs in kernel_job.mjs, which
// run_kernels_chromium.mjs shares (the same job in headless Chromium's WebGPU).
import { readFileSync, writeFileSync } from 'node:fs';
import { dawnAdapter } from './dawn_adapter.mjs';
import { openDevice, runJob, resultBuffers } from './kernel_job.mjs';

const [jobPath, resultPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, 'utf8'));
const { adapter } = await dawnAdapter();
const errors = [];
const device = await openDevice(adapter, errors, job.features ?? []);
const { bytes, offsets, sizes } = await runJob(device, job, errors);
const result = { buffers: resultBuffers(job, bytes, offsets, sizes), errors };
writeFileSync(resultPath, JSON.stringify(result));
// Exit without tearing Dawn down: its GL backend can crash or hang in teardown after a large run.
process.reallyExit(0);
