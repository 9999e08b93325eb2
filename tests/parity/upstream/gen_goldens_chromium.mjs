// Writes ../golden/<case>.chromium.json: the same golden (format 1, ../README.md; the same
// golden_record.mjs) recorded by upstream tensorgrad running inside Debian's headless Chromium
// with WebGPU on SwiftShader, driven by playwright-core. Called by `gen_goldens.sh --chromium`;
// run by hand as
//   node gen_goldens_chromium.mjs --upstream DIST_INDEX_JS --commit SHA --version V [--repo DIR]
//                                 [--out DIR] [--golden DIR] [--chromium PATH] [--verify-untraced] [case ...]
// Cases default to every ../cases/*.mjs. Each case runs in a fresh page, served on 127.0.0.1 from
// /repo/ (this checkout: the cases) and /generator/ (the scratch directory: upstream's build and
// these scripts). The page imports trace_page.mjs before upstream, so upstream's own Worker runs
// kernel_trace.mjs's hook (see trace_page.mjs / trace_worker.mjs); `device` is the browser
// adapter's info. For each case it reports how the recording compares with the Dawn golden
// ../golden/<case>.json: the steps whose losses have the same bits, the first kernel whose trace
// differs, and NaN losses (kept as their f32 bits in `losses`, null in `lossValues`).
import { readFileSync, readdirSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumPath, launchChromium, serve, openTab } from './chromium.mjs';

const here = dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const o = { repo: resolve(here, '../../..'), out: resolve(here, '../golden'), golden: resolve(here, '../golden'),
    chromium: undefined, verifyUntraced: false, names: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upstream') o.upstream = resolve(argv[++i]);
    else if (a === '--commit') o.commit = argv[++i];
    else if (a === '--version') o.version = argv[++i];
    else if (a === '--repo') o.repo = resolve(argv[++i]);
    else if (a === '--out') o.out = resolve(argv[++i]);
    else if (a === '--golden') o.golden = resolve(argv[++i]);
    else if (a === '--chromium') o.chromium = argv[++i];
    else if (a === '--verify-untraced') o.verifyUntraced = true;
    else if (a.startsWith('--')) throw new Error(`gen_goldens_chromium: unknown option ${a}`);
    else o.names.push(a.replace(/\.mjs$/, ''));
  }
  if (!o.upstream || !o.commit || !o.version) {
    throw new Error('usage: gen_goldens_chromium.mjs --upstream DIST_INDEX_JS --commit SHA --version V [--repo DIR] [--out DIR] [--golden DIR] [--chromium PATH] [--verify-untraced] [case ...]');
  }
  o.chromium = chromiumPath(o.chromium);
  return o;
}

// The page: trace_page.mjs first (it wraps Worker before upstream makes one), then upstream.
const page = (o) => `<!doctype html><meta charset="utf-8"><title>tensorgrad golden in Chromium</title><body>
<script type="module">
import { kernelTrace, deviceErrors } from '/generator/trace_page.mjs';
import * as tg from '/generator/upstream/dist/index.js';
import { goldenCase, golden } from '/generator/golden_record.mjs';
import { mulberry32 } from '/repo/tests/parity/cases/feeds.mjs';
try {
  const name = new URLSearchParams(location.search).get('case');
  const mod = await import('/repo/tests/parity/cases/' + name + '.mjs');
  const info = (await navigator.gpu?.requestAdapter())?.info;
  const device = info ? (info.description || [info.vendor, info.architecture].filter(Boolean).join(' ')) : '';
  const { c, rec, seconds, untracedSame } = await goldenCase({ kernelTrace, deviceErrors }, tg, mulberry32, mod, name,
    { verifyUntraced: ${o.verifyUntraced} });
  window.__done = {
    text: golden({ version: ${JSON.stringify(o.version)}, commit: ${JSON.stringify(o.commit)}, device }, c, rec),
    seconds, untracedSame,
  };
} catch (e) {
  window.__done = { error: String(e?.stack ?? e) };
}
</script>`;

const isNaNBits = (h) => (parseInt(h, 16) & 0x7f800000) === 0x7f800000 && (parseInt(h, 16) & 0x007fffff) !== 0;
const b64 = (s) => Buffer.from(s ?? '', 'base64');

// The first kernel whose 8-byte trace hash differs between two traces of the same kernels.
function firstTraceDiff(kernels, a, b) {
  const x = b64(a), y = b64(b);
  for (let k = 0; k < kernels.length; k++) {
    if (!x.subarray(8 * k, 8 * k + 8).equals(y.subarray(8 * k, 8 * k + 8))) return k;
  }
  return -1;
}

// How the Chromium golden compares with the Dawn one.
function compare(g, dawn) {
  const r = { sameKernels: JSON.stringify(g.kernels) === JSON.stringify(dawn.kernels) };
  if (g.losses) {
    const same = g.losses.filter((x, i) => x === dawn.losses[i]).length;
    const first = g.losses.findIndex((x, i) => x !== dawn.losses[i]);
    const nan = g.losses.map((x, i) => (isNaNBits(x) ? i : -1)).filter((i) => i >= 0);
    r.losses = `${same}/${g.losses.length} losses identical` + (first >= 0 ? ` (first differing: step ${first})` : '') +
      (nan.length ? `; NaN losses at steps ${nan.join(',')} (bits ${[...new Set(nan.map((i) => g.losses[i]))].join(',')})` : '');
  } else {
    const same = g.outputs.filter((x, i) => x.sha256 === dawn.outputs[i]?.sha256).length;
    r.losses = `${same}/${g.outputs.length} outputs identical`;
  }
  r.trace = 'every kernel output identical';
  if (!r.sameKernels) { r.trace = 'the dispatched kernels differ'; return r; }
  for (let s = 0; s < g.trace.length; s++) {
    const k = firstTraceDiff(g.kernels, g.trace[s], dawn.trace[s]);
    if (k >= 0) { r.trace = `first differing kernel: step ${s}, kernel ${k} (op ${g.kernels[k][0]}, ${g.kernels[k][1]})`; return r; }
  }
  for (const [i, f] of (g.forwards ?? []).entries()) {
    const d = dawn.forwards?.[i];
    if (JSON.stringify(f.kernels) !== JSON.stringify(d?.kernels)) { r.trace = `forward '${f.name}' dispatches other kernels`; return r; }
    const k = firstTraceDiff(f.kernels, f.trace, d.trace);
    if (k >= 0) { r.trace = `first differing kernel: forward '${f.name}', kernel ${k} (op ${f.kernels[k][0]}, ${f.kernels[k][1]})`; return r; }
  }
  const params = Object.keys(g.finalParams).filter((n) => g.finalParams[n] !== dawn.finalParams[n]).length;
  if (params) r.trace += `, yet ${params} final params differ`;
  return r;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const cases = join(o.repo, 'tests/parity/cases');
  const names = o.names.length > 0 ? o.names
    : readdirSync(cases).filter((f) => f.endsWith('.mjs') && f !== 'feeds.mjs').map((f) => f.slice(0, -4)).sort();
  const generator = dirname(dirname(dirname(o.upstream)));  // <scratch>/upstream/dist/index.js → <scratch>
  const server = await serve({ '/repo/': o.repo, '/generator/': generator }, () => page(o));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await launchChromium(o.chromium);
  let failed = 0;
  try {
    mkdirSync(o.out, { recursive: true });
    for (const name of names) {
      const { context, tab, errors } = await openTab(browser);
      await tab.goto(`${origin}/index.html?case=${name}`);
      const done = await (await tab.waitForFunction(() => window.__done, null, { timeout: 30 * 60_000, polling: 500 })).jsonValue();
      await context.close();
      if (done.error) throw new Error(`case ${name} in Chromium: ${done.error}`);
      if (errors.length) throw new Error(`case ${name}: the page reported errors:\n${errors.join('\n')}`);
      const path = join(o.out, `${name}.chromium.json`);
      writeFileSync(path, done.text);
      const g = JSON.parse(done.text);
      let line = `${name}: ${g.steps} steps, ${g.kernels.length} kernels, device '${g.device}', ${done.seconds.toFixed(1)} s`;
      const dawnPath = join(o.golden, `${name}.json`);
      if (existsSync(dawnPath)) {
        const r = compare(g, JSON.parse(readFileSync(dawnPath, 'utf8')));
        line += `; vs Dawn: ${r.losses}; ${r.trace}`;
      }
      console.log(line);
      if (o.verifyUntraced) {
        if (!done.untracedSame) { console.error(`${name}: results with the kernel trace on differ from those with it off`); failed++; }
        else console.log(`${name}: untraced run has the same losses, final params and forward outputs`);
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  if (failed) throw new Error(`${failed} case(s) changed with the trace off`);
}

main().then(() => process.exit(0), (e) => { console.error(e?.stack ?? String(e)); process.exit(1); });
