// Dawn for Node's adapter, as every Node oracle here opens it: the OpenGL ES backend in
// compatibility mode (the only level it offers; llvmpipe on a CPU machine), or the backend
// DAWN_BACKEND names (e.g. vulkan on a GPU host). Installs WebGPU's globals (GPUBufferUsage, ...).
import { create, globals } from 'webgpu';

// Dawn's instance must outlive its adapters and devices: collected, it takes them down (a crash or
// a hang). One per process, held here.
let gpu = null;

export async function dawnAdapter() {
  Object.assign(globalThis, globals);
  const backend = process.env.DAWN_BACKEND ?? 'opengles';
  gpu ??= create([`backend=${backend}`]);
  const adapter = await gpu.requestAdapter(backend === 'opengles' ? { featureLevel: 'compatibility' } : {});
  if (!adapter) throw new Error(`no WebGPU adapter for backend=${backend}`);
  return { adapter, backend };
}
