// Execution differential on Tint's test corpus: every file that Tint accepts and wgslc translates
// (tint_corpus.mjs's summary.json, class "translates") runs each @compute entry point on identical
// pseudo-random buffers through Dawn for Node and through webgpu_shim (tests/wgsl/wgsl_run), and
// the buffers read back are compared.
//   node tests/wgsl/tint_exec.mjs <dawn-checkout> --summary OUT/summary.json
//        [--wgsl-run build/tests/wgsl/wgsl_run] [--out DIR] [--only DIR,DIR...] [--timeout S]
// Per entry point: the bindings its layout "auto" uses and their sizes come from `wgsl_run plan`
// (a runtime-sized array: 64 elements); entry points without a storage buffer, or with an
// override that has no default, are skipped. Every 32-bit word of every buffer is filled the same
// on both sides (seeded by file and entry point): half small integers 0..15, half floats in
// [-8, 8) on a 1/1024 grid. One workgroup is dispatched. Words compare as equal bits, else
// "close" (both read as finite f32 within 1e-5 relative, both below 1e-30 in magnitude, or both
// NaN), else they differ. Writes DIR/results.json (per entry point) and prints the counts.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dawnAdapter } from '../dawn/dawn_adapter.mjs';
import { openDevice } from '../dawn/kernel_job.mjs';

function parseArgs(argv) {
  const a = { wgslRun: resolve('build/tests/wgsl/wgsl_run'), out: resolve('out/tint-exec'), only: null, timeout: 20 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i], v = () => argv[++i];
    if (k === '--summary') a.summary = resolve(v());
    else if (k === '--wgsl-run') a.wgslRun = resolve(v());
    else if (k === '--out') a.out = resolve(v());
    else if (k === '--only') a.only = v().split(',').filter(Boolean);
    else if (k === '--timeout') a.timeout = Number(v());
    else if (!k.startsWith('--') && !a.dawn) a.dawn = resolve(k);
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.dawn || !a.summary) throw new Error('usage: tint_exec.mjs <dawn-checkout> --summary OUT/summary.json [...]');
  return a;
}

// Runs a child process; resolves { code, stdout, stderr } (code 'timeout' past `seconds`).
function run(cmd, args, seconds) {
  return new Promise((done) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '', timedOut = false;
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, seconds * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code: timedOut ? 'timeout' : signal ?? code, stdout, stderr });
    });
  });
}

// Deterministic words (xorshift32 seeded from a hash): small integers or moderate floats.
function fillWords(seedText, count) {
  let s = createHash('sha256').update(seedText).digest().readUInt32LE(0) || 1;
  const next = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s; };
  const words = new Uint32Array(count), f = new Float32Array(1), u = new Uint32Array(f.buffer);
  for (let i = 0; i < count; i++) {
    const r = next();
    if (r & 1) words[i] = (r >>> 1) & 15;
    else { f[0] = (((r >>> 1) % 16384) - 8192) / 1024; words[i] = u[0]; }
  }
  return words;
}

const f32 = (w) => new Float32Array(new Uint32Array([w]).buffer)[0];
function compareWord(a, b) {
  if (a === b) return 'equal';
  const x = f32(a), y = f32(b);
  if (Number.isNaN(x) && Number.isNaN(y)) return 'close';
  if (!Number.isFinite(x) || !Number.isFinite(y)) return 'differ';
  if (Math.abs(x) < 1e-30 && Math.abs(y) < 1e-30) return 'close';
  return Math.abs(x - y) <= 1e-5 * Math.max(Math.abs(x), Math.abs(y)) ? 'close' : 'differ';
}

// One entry point on Dawn: { errors, words: [Uint32Array per binding] }.
async function runDawn(device, wgsl, entry, bindings, input, seconds) {
  const errors = [];
  const buffers = [];
  let offset = 0;
  for (const b of bindings) {
    const buffer = device.createBuffer({
      size: b.size,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(buffer, 0, input.buffer, input.byteOffset + offset, b.size);
    buffers.push(buffer);
    offset += b.size;
  }
  const destroy = () => buffers.forEach((b) => b.destroy());
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: wgsl });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: entry } });
  let e = await device.popErrorScope();
  if (e) { destroy(); return { errors: [`pipeline: ${e.message}`] }; }
  const groupCount = Math.max(0, ...bindings.map((b) => b.group + 1));
  device.pushErrorScope('validation');
  const groups = [];
  for (let g = 0; g < groupCount; g++) {
    groups.push(device.createBindGroup({
      layout: pipeline.getBindGroupLayout(g),
      entries: bindings.map((b, i) => [b, i]).filter(([b]) => b.group === g)
        .map(([b, i]) => ({ binding: b.binding, resource: { buffer: buffers[i] } })),
    }));
  }
  e = await device.popErrorScope();
  if (e) { destroy(); return { errors: [`bind group: ${e.message}`] }; }
  const total = bindings.reduce((t, b) => t + b.size, 0);
  const staging = device.createBuffer({ size: total, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  groups.forEach((g, n) => pass.setBindGroup(n, g));
  pass.dispatchWorkgroups(1, 1, 1);
  pass.end();
  offset = 0;
  bindings.forEach((b, i) => { encoder.copyBufferToBuffer(buffers[i], 0, staging, offset, b.size); offset += b.size; });
  device.queue.submit([encoder.finish()]);
  const mapped = await Promise.race([
    staging.mapAsync(GPUMapMode.READ).then(() => true, () => false),
    new Promise((r) => setTimeout(() => r('timeout'), seconds * 1000)),
  ]);
  if (mapped !== true) { destroy(); return { errors: [mapped === 'timeout' ? 'dawn: timeout' : 'dawn: map failed'] }; }
  const bytes = new Uint32Array(staging.getMappedRange().slice(0));
  staging.unmap();
  staging.destroy();
  destroy();
  return { errors, bytes };
}

function split(bytes, bindings) {
  const out = [];
  let w = 0;
  for (const b of bindings) { out.push(bytes.subarray(w, w + b.size / 4)); w += b.size / 4; }
  return out;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  mkdirSync(args.out, { recursive: true });
  const summary = JSON.parse(readFileSync(args.summary, 'utf8'));
  const files = Object.entries(summary.files)
    .filter(([f, r]) => r.tint === 'accepts' && r.class === 'translates' && r.hasCompute)
    .filter(([f]) => !args.only || args.only.some((d) => f.startsWith(d + '/')))
    .map(([f]) => f).sort();
  const { adapter } = await dawnAdapter();
  const uncaptured = [];
  let device = await openDevice(adapter, uncaptured);
  const results = [];
  const counts = { files: files.length, filesRun: 0, entries: 0, agree: 0, agreeWithinTolerance: 0, differ: 0, refused: {}, skipped: {} };
  const skip = (reason) => { counts.skipped[reason] = (counts.skipped[reason] ?? 0) + 1; };
  const started = Date.now();
  for (const [n, file] of files.entries()) {
    const path = join(args.dawn, 'test/tint', file);
    const wgsl = readFileSync(path, 'utf8');
    const plan = await run(args.wgslRun, ['plan', path], args.timeout);
    if (plan.code !== 0) { results.push({ file, skip: `plan failed: ${plan.code} ${plan.stderr.trim()}` }); skip('plan failed'); continue; }
    const entries = JSON.parse(plan.stdout).entries;
    const runnable = [];
    for (const e of entries) {
      if (e.skip) { results.push({ file, entry: e.entry, skip: e.skip }); skip(e.skip.startsWith('override') ? 'override without a default' : 'wgslc rejects this entry point'); }
      else if (!e.bindings.some((b) => b.type !== 'uniform')) { results.push({ file, entry: e.entry, skip: 'no storage buffer' }); skip('no storage buffer'); }
      else runnable.push(e);
    }
    if (runnable.length === 0) continue;
    counts.filesRun++;
    const dir = join(args.out, 'jobs', String(n));
    mkdirSync(dir, { recursive: true });
    const jobs = runnable.map((e, i) => {
      const words = fillWords(`${file}:${e.entry}`, e.bindings.reduce((t, b) => t + b.size / 4, 0));
      const input = join(dir, `in${i}.bin`), output = join(dir, `out${i}.bin`);
      writeFileSync(input, words);
      return { entry: e.entry, dispatch: [1, 1, 1], bindings: e.bindings, input, output, words };
    });
    writeFileSync(join(dir, 'job.json'), JSON.stringify({ wgsl: path, runs: jobs.map(({ words, ...j }) => j) }));
    const oursPromise = run(args.wgslRun, ['run', join(dir, 'job.json')], args.timeout * jobs.length);
    const dawnRuns = [];
    for (const j of jobs) {
      const r = await runDawn(device, wgsl, j.entry, j.bindings, j.words, args.timeout);
      r.errors.push(...uncaptured.splice(0));
      dawnRuns.push(r);
      if (r.errors.some((m) => m.startsWith('dawn:'))) {  // lost or stuck: start a new device
        device.destroy?.();
        device = await openDevice(adapter, uncaptured);
      }
    }
    const ours = await oursPromise;
    let oursRuns = null;
    try { oursRuns = JSON.parse(ours.stdout).runs; } catch { /* below */ }
    jobs.forEach((j, i) => {
      counts.entries++;
      const rec = { file, entry: j.entry, sizes: j.bindings.map((b) => `${b.group}.${b.binding}:${b.type}:${b.size}`) };
      const d = dawnRuns[i];
      const o = oursRuns?.[i] ?? { errors: [`wgsl_run: ${ours.code} ${ours.stderr.trim().slice(0, 300)}`] };
      if (d.errors.length || o.errors.length) {
        rec.result = 'error';
        rec.dawnErrors = d.errors;
        rec.oursErrors = o.errors;
        const why = d.errors.length && o.errors.length ? 'both sides refuse' : d.errors.length ? 'Dawn refuses' : 'shim refuses';
        counts.refused[why] = (counts.refused[why] ?? 0) + 1;
        results.push(rec);
        return;
      }
      const ourWords = new Uint32Array(Uint8Array.from(readFileSync(j.output)).buffer);
      const dw = split(d.bytes, j.bindings), ow = split(ourWords, j.bindings);
      let close = 0, maxRel = 0, tiny = 0;
      const diffs = [];
      j.bindings.forEach((b, k) => {
        for (let w = 0; w < dw[k].length; w++) {
          const c = compareWord(ow[k][w], dw[k][w]);
          if (c === 'close') {
            close++;
            const x = f32(ow[k][w]), y = f32(dw[k][w]);
            if (Math.max(Math.abs(x), Math.abs(y)) >= 1e-30) maxRel = Math.max(maxRel, Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y)));
            else tiny++;  // both below 1e-30: a zero's sign, a denormal flushed, or NaNs
          }
          else if (c === 'differ') diffs.push({ binding: `${b.group}.${b.binding}`, word: w, ours: ow[k][w], dawn: dw[k][w], oursF: f32(ow[k][w]), dawnF: f32(dw[k][w]) });
        }
      });
      if (diffs.length) { rec.result = 'differ'; rec.differingWords = diffs.length; rec.diffs = diffs.slice(0, 8); counts.differ++; }
      else if (close) { rec.result = 'close'; rec.closeWords = close; rec.maxRelative = maxRel; rec.tinyOrNaNWords = tiny; counts.agreeWithinTolerance++; }
      else { rec.result = 'equal'; counts.agree++; }
      results.push(rec);
    });
    if (n % 50 === 0) console.error(`${n}/${files.length} files, ${Math.round((Date.now() - started) / 1000)} s`);
  }
  counts.seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(join(args.out, 'results.json'), JSON.stringify({ meta: { date: new Date().toISOString(), summary: args.summary, only: args.only }, counts, results }, null, 1));
  console.log(JSON.stringify(counts, null, 1));
  for (const r of results.filter((x) => x.result === 'differ')) console.log(`differ: ${r.file} ${r.entry} (${r.differingWords} words)`);
  process.reallyExit(0);
}

await main();
