// Runs a kernel list on headless Chromium's WebGPU (SwiftShader) and returns the final buffer
// contents: run_kernels.mjs's twin for bundles recorded in Chromium, whose device rounds some
// kernels differently from Dawn's GL backend on llvmpipe.
// Usage: node run_kernels_chromium.mjs job.json result.json
//   job: as run_kernels.mjs's
//   result: { buffers: {id: [u32 bit patterns]}, errors: [messages],
//             adapter: {vendor, architecture, description} (the page's WebGPU adapter) }
// Chromium is Debian's (/usr/bin/chromium, or $CHROMIUM), driven by npm playwright-core (`npm ci
// --prefix` this directory). The page is served on 127.0.0.1 (a fresh port): it imports
// kernel_job.mjs, the code run_kernels.mjs runs in Node, fetches the job (its buffers' data as
// one binary blob), runs it and posts the read-back bytes; the exit status is 0 when a result was
// written (kernels' errors are in it), non-zero with a message on stderr otherwise.
import { createServer } from 'node:http';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultBuffers } from './kernel_job.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [jobPath, resultPath] = process.argv.slice(2);
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
// Playwright adds --headless and a fresh temporary --user-data-dir (removed on close) itself.
const chromiumArgs = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--no-sandbox', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function fail(message) {
  process.stderr.write(`run_kernels_chromium: ${message}\n`);
  process.exit(1);
}

if (!jobPath || !resultPath) fail('usage: node run_kernels_chromium.mjs job.json result.json');
if (!existsSync(executablePath)) {
  fail(`no Chromium at ${executablePath}: install Debian's (apt install chromium) or set CHROMIUM to a Chromium binary`);
}
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('playwright-core')) throw e;
  fail(`needs the npm package playwright-core, which is not installed in ${here}: run \`npm ci --prefix ${here}\``);
}

// The job without its data (each buffer's bytes as [offset, length] in one blob) and the blob.
function split(job) {
  const parts = [];
  let total = 0;
  const buffers = job.buffers.map((b) => {
    if (!b.data) return { size: b.size, dtype: b.dtype, data: null };
    const typed = b.dtype === 'f32' ? new Float32Array(b.data) : b.dtype === 'i32' ? new Int32Array(b.data) : new Uint32Array(b.data);
    parts.push(Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength));
    const bytes = [total, typed.byteLength];
    total += typed.byteLength;
    return { size: b.size, dtype: b.dtype, data: null, bytes };
  });
  return { meta: JSON.stringify({ buffers, kernels: job.kernels, read: job.read, features: job.features ?? [] }), blob: Buffer.concat(parts, total) };
}

function serve(meta, blob, onResult) {
  const page = '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>tensorgrad kernels</title>';
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    const send = (type, body) => { res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }); res.end(body); };
    if (req.method === 'GET' && path === '/index.html') return send('text/html', page);
    if (req.method === 'GET' && path === '/kernel_job.mjs') return send('text/javascript', readFileSync(join(here, 'kernel_job.mjs')));
    if (req.method === 'GET' && path === '/job.json') return send('application/json', meta);
    if (req.method === 'GET' && path === '/job.bin') return send('application/octet-stream', blob);
    if (req.method === 'POST' && path === '/result.bin') {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => { onResult(Buffer.concat(chunks)); send('text/plain', 'ok'); });
      return;
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

// Runs in the page.
async function runInPage() {
  const { openDevice, runJob } = await import('/kernel_job.mjs');
  if (!navigator.gpu) return { fatal: 'navigator.gpu is missing in the page: this Chromium has no WebGPU' };
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) return { fatal: 'no WebGPU adapter in the page (navigator.gpu.requestAdapter() gave null; SwiftShader missing?)' };
  const info = adapter.info ?? {};
  const adapterInfo = { vendor: info.vendor ?? '', architecture: info.architecture ?? '', description: info.description ?? '',
    subgroupMinSize: info.subgroupMinSize ?? 0, subgroupMaxSize: info.subgroupMaxSize ?? 0 };
  const [job, blob] = await Promise.all([fetch('/job.json').then((r) => r.json()), fetch('/job.bin').then((r) => r.arrayBuffer())]);
  for (const b of job.buffers) {
    if (b.bytes) b.data = new Uint8Array(blob, b.bytes[0], b.bytes[1]);
    delete b.bytes;
  }
  const errors = [];
  const device = await openDevice(adapter, errors, job.features);
  let lost = null;
  device.lost.then((l) => { lost = l; });
  const { bytes, offsets, sizes } = await runJob(device, job, errors);
  // A Blob body: an ArrayBuffer body posts an order of magnitude slower (0.5 s for 3 MB).
  const posted = await fetch('/result.bin', { method: 'POST', body: new Blob([bytes]) });
  if (!posted.ok) return { fatal: `posting the result failed: ${posted.status}` };
  if (lost) errors.push(`device lost: ${lost.reason}: ${lost.message}`);
  return { errors, adapter: adapterInfo, offsets, sizes };
}

class Fatal extends Error {}

async function main() {
  const job = JSON.parse(readFileSync(jobPath, 'utf8'));
  const { meta, blob } = split(job);
  let resultBytes = null;
  const server = await serve(meta, blob, (b) => { resultBytes = b; });
  let browser;
  try {
    try {
      browser = await chromium.launch({ executablePath, headless: true, args: chromiumArgs });
    } catch (e) {
      throw new Fatal(`could not start Chromium at ${executablePath}: ${e.message}`);
    }
    const tab = await browser.newPage();
    tab.on('pageerror', (e) => process.stderr.write(`page error: ${e}\n`));
    tab.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') process.stderr.write(`page ${m.type()}: ${m.text()}\n`); });
    await tab.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    const done = await tab.evaluate(runInPage);
    if (done.fatal) throw new Fatal(done.fatal);
    if (!resultBytes) throw new Fatal('the page posted no result');
    const bytes = resultBytes.buffer.slice(resultBytes.byteOffset, resultBytes.byteOffset + resultBytes.byteLength);
    writeFileSync(resultPath, JSON.stringify({ buffers: resultBuffers(job, bytes, done.offsets, done.sizes), errors: done.errors, adapter: done.adapter }));
  } finally {
    await browser?.close().catch(() => {});
    server.close();
  }
}

try {
  await main();
} catch (e) {
  fail(e instanceof Fatal ? e.message : `running the kernels in Chromium failed: ${e?.stack ?? e}`);
}
process.exit(0);
