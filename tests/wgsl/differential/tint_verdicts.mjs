// Tint's verdict on WGSL files (Dawn for Node): createShaderModule + getCompilationInfo, then
// createComputePipeline (entry point 'main') for pipeline-level errors.
// Usage: node tint_verdicts.mjs file.wgsl... > verdicts.json
//   prints {"<file>": {"ok": bool, "messages": ["L:C: message", ...]}, ...}
// Dawn runs its OpenGL ES backend (compatibility mode) on a CPU machine; DAWN_BACKEND=vulkan
// picks a Vulkan GPU.
import { readFileSync } from 'node:fs';
// The `webgpu` package lives in tests/dawn/node_modules (scripts/setup.sh: npm ci --prefix tests/dawn).
import { dawnAdapter } from '../../dawn/dawn_adapter.mjs';

const { adapter } = await dawnAdapter();
const device = await adapter.requestDevice();
const out = {};
for (const file of process.argv.slice(2)) {
  const code = readFileSync(file, 'utf8');
  const messages = [];
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  for (const m of info.messages)
    if (m.type === 'error') messages.push(`${m.lineNum}:${m.linePos}: ${m.message}`);
  let e = await device.popErrorScope();
  if (!e && messages.length === 0) {
    device.pushErrorScope('validation');
    device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    e = await device.popErrorScope();
  }
  if (e && messages.length === 0) messages.push(e.message.split('\n')[0]);
  out[file] = { ok: messages.length === 0, messages };
}
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
// Exit without tearing Dawn down (its GL backend can hang in teardown).
process.reallyExit(0);
