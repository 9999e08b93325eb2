// Measures wgsl_subset (wgslc) on Tint's own WGSL test corpus (<dawn>/test/tint/**/*.wgsl, minus
// the *.expected.* outputs), with Tint (Dawn for Node) as the oracle.
//
//   node tests/wgsl/tint_corpus.mjs <dawn-checkout> [--wgslc PATH] [--jobs N] [--out DIR]
//        [--only DIR,DIR...] [--compare OLD_SUMMARY.json] [--timeout SECONDS] [--dawn-commit SHA]
//   (scripts/tint_corpus.sh sets EGL_PLATFORM/XDG_RUNTIME_DIR and calls this.)
//
// Tint's verdict per file: createShaderModule + getCompilationInfo, then createComputePipeline
// (layout 'auto') for each @compute entry point; files with no @compute entry point get only the
// shader-module verdict. All verdicts come from ONE long-lived worker process (this script with
// --tint-worker), restarted from the next file if Dawn crashes or hangs; the worker recreates its
// device when Dawn loses it. Verdicts are cached in <out>/tint_verdicts.json keyed by each file's
// sha256, so a rerun with a new wgslc only reruns wgslc.
//
// Tint-accepted files are classed: translates, unsupported (our diagnostic says "unsupported in
// this WGSL subset"), false error (any other rejection), internal error, crash (signal or odd exit
// status), hang (past --timeout). Tint-rejected files: correctly rejected, falsely accepted (or
// internal error / crash / hang). Files Tint rejects only because this device lacks a feature or
// limit (f16, subgroups, texture formats, compatibility mode on GL ES...) form their own group and
// count toward neither. Writes <out>/summary.json (per-file classes) and <out>/report.txt.
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync, createWriteStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const VERDICT_VERSION = 1; // bump when the way a verdict is obtained changes (invalidates the cache)

// ---------------------------------------------------------------------------------------------
// WGSL source scanning (comments stripped; good enough for Tint's test files)
function stripComments(src) {
  let out = '', i = 0, depth = 0;
  while (i < src.length) {
    if (depth === 0 && src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (src.startsWith('/*', i)) {
      depth++; i += 2;
    } else if (depth > 0 && src.startsWith('*/', i)) {
      depth--; i += 2; out += ' ';
    } else {
      if (depth === 0 || src[i] === '\n') out += src[i];
      i++;
    }
  }
  return out;
}
function scanSource(src) {
  const s = stripComments(src);
  const compute = [...s.matchAll(/@\s*compute\b[\s\S]*?\bfn\s+([^\s(<]+)/g)].map((m) => m[1]);
  const graphics = /@\s*(vertex|fragment)\b/.test(s);
  // Overrides with no initializer need a pipeline constant; give them 1 (key: @id or name).
  const constants = {};
  for (const m of s.matchAll(/((?:@\s*\w+\s*(?:\([^)]*\))?\s*)*)\boverride\s+([^\s:;=]+)\s*(?::\s*[^;=]+)?;/g)) {
    const id = /@\s*id\s*\(\s*(\d+)/.exec(m[1]);
    constants[id ? id[1] : m[2]] = 1;
  }
  return { compute, graphics, constants };
}

// A Dawn error message's first line, plus the next one when the first ends in ':' (e.g. "An error
// occurred while generating GLSL:"), without the " - While ..." context lines.
function headline(msg) {
  const l = String(msg).split('\n').filter((x) => x.trim() && !/^\s*- While/.test(x));
  return (l[0] ?? '').trim().endsWith(':') && l[1] ? `${l[0].trim()} ${l[1].trim()}` : (l[0] ?? '').trim();
}

// ---------------------------------------------------------------------------------------------
// Worker: Tint verdicts, one JSON line in ({path}) -> one JSON line out, in order.
async function tintWorker() {
  const { dawnAdapter } = await import(pathToFileURL(join(repoRoot, 'tests/dawn/dawn_adapter.mjs')).href);
  const { adapter, backend } = await dawnAdapter();
  const requiredLimits = {};
  for (const k in adapter.limits) if (typeof adapter.limits[k] === 'number') requiredLimits[k] = adapter.limits[k];
  let device = null, lost = null;
  async function newDevice() {
    lost = null;
    // Every feature and the adapter's best limits: accept as much as this device can.
    device = await adapter.requestDevice({ requiredFeatures: [...adapter.features], requiredLimits });
    const d = device;
    d.lost.then((info) => { if (d === device) lost = info?.message ?? 'device lost'; });
    d.onuncapturederror = () => {};
  }
  await newDevice();
  process.stderr.write(`tint worker: ${backend}, features: ${[...adapter.features].join(' ')}\n`);

  // Runs fn inside validation/internal/out-of-memory error scopes; returns its first error.
  async function scoped(fn) {
    let pushed = 0, e = null;
    try {
      for (const f of ['validation', 'internal', 'out-of-memory']) { device.pushErrorScope(f); pushed++; }
      await fn();
    } finally {
      for (; pushed > 0; pushed--) e = (await device.popErrorScope()) ?? e;
    }
    return e;
  }
  async function verdict(code) {
    const { compute, constants } = scanSource(code);
    const messages = [];
    let module;
    const e = await scoped(async () => {
      module = device.createShaderModule({ code });
      const info = await module.getCompilationInfo();
      for (const m of info.messages) if (m.type === 'error') messages.push(`${m.lineNum}:${m.linePos}: ${m.message}`);
    });
    if (messages.length || e)
      return { ok: false, stage: 'module', messages: messages.length ? messages : [headline(e.message)] };
    for (const entryPoint of compute) {
      const stage = { module, entryPoint };
      if (Object.keys(constants).length) stage.constants = constants;
      const pe = await scoped(async () => { device.createComputePipeline({ layout: 'auto', compute: stage }); });
      if (pe) return { ok: false, stage: 'pipeline', entryPoint, messages: [headline(pe.message)] };
    }
    return { ok: true, stage: null, messages: [] };
  }

  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const { path } = JSON.parse(line);
    const code = readFileSync(path, 'utf8');
    let r;
    for (let attempt = 0; ; attempt++) {
      try {
        r = await verdict(code);
      } catch (err) {
        r = { ok: false, stage: 'exception', messages: [String(err?.message ?? err).split('\n')[0]] };
      }
      if (!lost) break;
      // Dawn lost the device while on this file: a fresh device, and one more try.
      const why = lost;
      await newDevice();
      if (attempt >= 1) { r = { ok: false, stage: 'device-lost', messages: [`device lost: ${why}`] }; break; }
    }
    process.stdout.write(JSON.stringify(r) + '\n');
  }
  // Exit without tearing Dawn down (its GL backend can hang in teardown).
  process.reallyExit(0);
}

// ---------------------------------------------------------------------------------------------
// Parent: Tint verdicts through the worker (restarted after a crash/hang), cached by sha256.
function runTintVerdicts(paths, { logPath, hangSeconds = 120 }) {
  const results = new Array(paths.length);
  const log = createWriteStream(logPath, { flags: 'a' });
  let next = 0;
  return new Promise((resolveAll) => {
    function start() {
      if (next >= paths.length) { log.end(); resolveAll(results); return; }
      const begin = next;
      const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--tint-worker'],
                          { stdio: ['pipe', 'pipe', 'pipe'] });
      child.stderr.pipe(log, { end: false });
      let timer = null, killedForHang = false;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => { killedForHang = true; child.kill('SIGKILL'); }, hangSeconds * 1000);
      };
      arm();
      createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        results[next++] = JSON.parse(line);
        arm();
        if (next % 500 === 0) process.stderr.write(`  tint: ${next}/${paths.length}\n`);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (next < paths.length) {
          // The worker died (or hung) on paths[next]: record that, go on from the file after it.
          const why = killedForHang ? `Tint hung (> ${hangSeconds} s)` : `Tint worker died (${signal ?? 'exit ' + code})`;
          if (next === begin && !killedForHang && code !== null && code !== 0 && begin === 0) {
            // Failed before any verdict on the very first start: a setup problem, not a file's.
            process.stderr.write(`tint worker failed to start; see ${logPath}\n`);
            process.exit(2);
          }
          log.write(`\n${why} on ${paths[next]}\n`);
          results[next++] = { ok: false, stage: 'tint-failure', messages: [why] };
        }
        start();
      });
      child.stdin.on('error', () => {});
      child.stdin.end(paths.slice(begin).map((p) => JSON.stringify({ path: p })).join('\n') + '\n');
    }
    start();
  });
}

// ---------------------------------------------------------------------------------------------
// wgslc, in parallel, with a per-file timeout.
function runWgslc(wgslc, file, timeoutMs) {
  return new Promise((res) => {
    const t0 = Date.now();
    const child = spawn(wgslc, [file], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '', hung = false;
    child.stderr.on('data', (d) => { if (stderr.length < 65536) stderr += d; });
    const timer = setTimeout(() => { hung = true; child.kill('SIGKILL'); }, timeoutMs);
    child.on('error', (err) => { clearTimeout(timer); res({ code: null, signal: null, stderr: String(err), ms: 0, spawnError: true }); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal, stderr, hung, ms: Date.now() - t0 });
    });
  });
}
async function pool(items, jobs, fn) {
  const out = new Array(items.length);
  let i = 0;
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, async () => {
    while (i < items.length) { const k = i++; out[k] = await fn(items[k], k); }
  }));
  return out;
}

// The wgslc outcome: translates / unsupported / error / internal error / crash / hang.
function wgslcOutcome(r) {
  const errors = [...r.stderr.matchAll(/error: (.*)$/gm)].map((m) => m[1].trim());
  const first = errors[0] ?? r.stderr.trim().split('\n')[0] ?? '';
  if (r.spawnError) throw new Error(`cannot run wgslc: ${r.stderr}`);
  if (r.hung) return { outcome: 'hang', message: '' };
  if (r.signal) return { outcome: 'crash', message: `signal ${r.signal}` };
  const internal = errors.find((e) => /internal error/i.test(e)) ?? (/internal error/i.test(r.stderr) ? first : null);
  if (r.code === 0) return internal ? { outcome: 'internal error', message: internal } : { outcome: 'translates', message: '' };
  if (r.code !== 1) return { outcome: 'crash', message: `exit status ${r.code}: ${first}` };
  if (internal) return { outcome: 'internal error', message: internal };
  if (/unsupported in this WGSL subset/.test(first)) return { outcome: 'unsupported', message: first };
  return { outcome: 'error', message: first || '(no diagnostic)' };
}

// Tint's verdict, with rejections caused only by this device set apart.
const DEVICE_LIMITED = [
  /is not allowed in the current environment/, // enable f16/subgroups/..., language features
  /requires feature/i, /FeatureName::/, /in compatibility mode/i,
  /does not support storage texture access/, /\bmax[A-Z]\w+/, /larger than the maximum allowed/i,
  /An error occurred while generating/, // Tint's backend (GLSL here) failed on a valid module
];
function tintGroup(v) {
  if (v.ok) return 'accepts';
  if (v.stage === 'tint-failure' || v.stage === 'device-lost' || v.stage === 'exception') return 'failed';
  if (v.messages.some((m) => DEVICE_LIMITED.some((re) => re.test(m)))) return 'device-limited';
  return 'rejects';
}
function classify(group, o) {
  if (group === 'accepts') return o.outcome === 'error' ? 'false error' : o.outcome;
  if (group === 'rejects') {
    if (o.outcome === 'translates') return 'falsely accepted';
    if (o.outcome === 'error' || o.outcome === 'unsupported') return 'correctly rejected';
    return o.outcome;
  }
  return o.outcome === 'error' ? 'rejects' : o.outcome; // device-limited / failed: just what wgslc did
}

// Message classes: line:col gone, quoted names and numbers normalised (keepQuoted: for
// "unsupported" reasons, which quote the construct, not a user's name; matCxR still merged).
function normalise(msg, { keepQuoted = false } = {}) {
  let s = msg.replace(/^\s*\d+:\d+:\s*/, '');
  if (!keepQuoted) {
    s = s.replace(/'[^'\n]*'/g, "'…'").replace(/"[^"\n]*"/g, '"…"').replace(/`[^`\n]*`/g, '`…`')
         .replace(/\b[A-Za-z]\w*_[0-9a-f]{6}\b/g, '…') // Tint's generated names (textureLoad_1f5b6d)
         .replace(/\b(?:vec[234]|mat[234]x[234]|array|atomic|ptr)<[^<>]*(?:<[^<>]*>[^<>]*)?>/g, 'T') // types
         .replace(/\b(?:vec[234]|mat[234]x[234])[fhiu]\b/g, 'T')
         .replace(/\b(?:bool|i32|u32|f32|f16|abstract-int|abstract-float)\b/g, 'T');
  }
  s = s.replace(/\bvec[234]\b/g, 'vecN').replace(/\bmat[234]x[234]\b/g, 'matCxR').replace(/\bmat[234]x[234][fh]\b/g, 'matCxR');
  return s.replace(/\b0x[0-9a-fA-F]+\b/g, 'N')
          .replace(/(?<![\p{L}\p{N}_])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?[a-z]*(?![\p{L}\p{N}_])/gu, 'N');
}

// ---------------------------------------------------------------------------------------------
function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && e.name.endsWith('.wgsl') && !e.name.includes('.expected.')) out.push(p);
  }
  return out;
}
function parseArgs(argv) {
  const a = { jobs: availableParallelism(), timeout: 10, out: join(repoRoot, 'out/tint-corpus'),
              wgslc: join(repoRoot, 'build/wgsl_subset/wgslc'), only: null, compare: null, dawnCommit: null, top: 25 };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i], v = () => { if (i + 1 >= argv.length) usage(`${k} needs a value`); return argv[++i]; };
    if (k === '--wgslc') a.wgslc = resolve(v());
    else if (k === '--jobs') a.jobs = Number(v());
    else if (k === '--out') a.out = resolve(v());
    else if (k === '--only') a.only = v().split(',').filter(Boolean);
    else if (k === '--compare') a.compare = resolve(v());
    else if (k === '--timeout') a.timeout = Number(v());
    else if (k === '--dawn-commit') a.dawnCommit = v();
    else if (k === '--top') a.top = Number(v());
    else if (k === '-h' || k === '--help') usage();
    else if (k.startsWith('--')) usage(`unknown option ${k}`);
    else rest.push(k);
  }
  if (rest.length !== 1) usage('give one Dawn checkout directory');
  a.dawn = resolve(rest[0]);
  return a;
}
function usage(err) {
  if (err) console.error(`error: ${err}`);
  console.error('usage: tint_corpus.mjs <dawn-checkout> [--wgslc PATH] [--jobs N] [--out DIR] [--only DIR,...]\n' +
                '                       [--compare OLD_SUMMARY.json] [--timeout S] [--dawn-commit SHA] [--top N]');
  process.exit(err ? 2 : 0);
}
const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');
const pct = (n, d) => (d ? `${((100 * n) / d).toFixed(1)}%` : '-');

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const tintDir = join(args.dawn, 'test/tint');
  if (!existsSync(tintDir)) usage(`${tintDir} does not exist`);
  if (!existsSync(args.wgslc)) usage(`wgslc not found: ${args.wgslc} (--wgslc PATH)`);
  mkdirSync(args.out, { recursive: true });
  const lines = [];
  const say = (s = '') => { lines.push(s); console.log(s); };
  const t0 = Date.now();

  let files = walk(tintDir).map((p) => relative(tintDir, p)).sort();
  if (args.only) files = files.filter((f) => args.only.some((d) => f === d || f.startsWith(d.replace(/\/?$/, '/'))));
  const info = files.map((f) => {
    const buf = readFileSync(join(tintDir, f));
    const scan = scanSource(buf.toString('utf8'));
    return { file: f, sha: sha256(buf), hasCompute: scan.compute.length > 0,
             computeOnly: scan.compute.length > 0 && !scan.graphics };
  });

  // Tint verdicts (cached).
  const require = createRequire(join(repoRoot, 'tests/dawn/package.json'));
  const webgpuVersion = JSON.parse(readFileSync(join(dirname(require.resolve('webgpu/package.json')), 'package.json'), 'utf8')).version;
  const cacheMeta = { verdictVersion: VERDICT_VERSION, webgpu: webgpuVersion, backend: process.env.DAWN_BACKEND ?? 'opengles' };
  const cachePath = join(args.out, 'tint_verdicts.json');
  let cache = { meta: cacheMeta, verdicts: {} };
  if (existsSync(cachePath)) {
    const c = JSON.parse(readFileSync(cachePath, 'utf8'));
    if (JSON.stringify(c.meta) === JSON.stringify(cacheMeta)) cache = c;
    else console.error('tint verdict cache is for another Dawn/verdict version: recomputing');
  }
  const todo = [...new Set(info.filter((x) => !cache.verdicts[x.sha]).map((x) => x.sha))];
  const pathOf = new Map(info.map((x) => [x.sha, join(tintDir, x.file)]));
  console.error(`${files.length} files; Tint verdicts: ${files.length - info.filter((x) => todo.includes(x.sha)).length} cached, ` +
                `${todo.length} to compute; wgslc: ${args.wgslc}, --jobs ${args.jobs}`);

  const tTint0 = Date.now();
  const tintPromise = todo.length
    ? runTintVerdicts(todo.map((s) => pathOf.get(s)), { logPath: join(args.out, 'tint_worker.log') }).then((rs) => {
        rs.forEach((r, k) => { cache.verdicts[todo[k]] = r; });
        writeFileSync(cachePath, JSON.stringify(cache));
        return (Date.now() - tTint0) / 1000;
      })
    : Promise.resolve(0);
  let done = 0;
  const tW0 = Date.now();
  const wres = await pool(info, args.jobs, async (x) => {
    const r = wgslcOutcome(await runWgslc(args.wgslc, join(tintDir, x.file), args.timeout * 1000));
    if (++done % 1000 === 0) process.stderr.write(`  wgslc: ${done}/${info.length}\n`);
    return r;
  });
  const wgslcSeconds = (Date.now() - tW0) / 1000;
  const tintSeconds = await tintPromise;

  // Classify.
  const perFile = {};
  const rows = info.map((x, k) => {
    const v = cache.verdicts[x.sha];
    const group = tintGroup(v);
    const o = wres[k];
    const row = { ...x, group, class: classify(group, o), message: o.message, tint: v.messages[0] ?? '', tintStage: v.stage };
    perFile[x.file] = { tint: group, class: row.class, computeOnly: x.computeOnly, hasCompute: x.hasCompute,
                        message: o.message || undefined, tintMessage: v.messages[0] || undefined, sha256: x.sha };
    return row;
  });

  // Report.
  let commit = args.dawnCommit;
  if (!commit) try { commit = execFileSync('git', ['-C', args.dawn, 'rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim(); } catch {}
  say(`Tint corpus: ${tintDir}${commit ? ` (Dawn ${commit})` : ''}${args.only ? `, only ${args.only.join(',')}` : ''}`);
  say(`wgslc: ${args.wgslc}; Tint: Dawn for Node (webgpu ${webgpuVersion}), backend ${cacheMeta.backend}`);
  const cnt = (rs, pred) => rs.filter(pred).length;
  const all = rows, co = rows.filter((r) => r.computeOnly);
  const col = (label, pred, base) => {
    const a = cnt(all, pred), c = cnt(co, pred);
    const ba = base ? cnt(all, base) : 0, bc = base ? cnt(co, base) : 0;
    say(`${label.padEnd(44)}${String(a).padStart(7)}${base ? pct(a, ba).padStart(8) : ''.padStart(8)}` +
        `${String(c).padStart(9)}${base ? pct(c, bc).padStart(8) : ''.padStart(8)}`);
  };
  say();
  say(`${''.padEnd(44)}${'all files'.padStart(15)}${'compute-only'.padStart(17)}`);
  col('files', () => true);
  col('  with no @compute entry point', (r) => !r.hasCompute);
  const acc = (r) => r.group === 'accepts', rej = (r) => r.group === 'rejects';
  col('Tint accepts', acc);
  for (const c of ['translates', 'unsupported', 'false error', 'internal error', 'crash', 'hang'])
    col(`  ${c}`, (r) => acc(r) && r.class === c, acc);
  col('Tint rejects', rej);
  for (const c of ['correctly rejected', 'falsely accepted', 'internal error', 'crash', 'hang'])
    col(`  ${c}`, (r) => rej(r) && r.class === c, rej);
  const lim = (r) => r.group === 'device-limited';
  col('Tint rejects: device/backend limitation', lim);
  for (const c of ['translates', 'unsupported', 'rejects', 'internal error', 'crash', 'hang'])
    if (cnt(all, (r) => lim(r) && r.class === c)) col(`  wgslc ${c}`, (r) => lim(r) && r.class === c, lim);
  if (cnt(all, (r) => r.group === 'failed')) col('Tint failed (crash/hang/device lost)', (r) => r.group === 'failed');

  const top = (title, rs, key) => {
    const groups = new Map();
    for (const r of rs) {
      const k = key(r);
      const g = groups.get(k) ?? { n: 0, example: r.file };
      g.n++; groups.set(k, g);
    }
    const sorted = [...groups].sort((a, b) => b[1].n - a[1].n);
    say();
    say(`${title}: ${rs.length} files, ${groups.size} classes${sorted.length > args.top ? ` (top ${args.top})` : ''}`);
    for (const [k, g] of sorted.slice(0, args.top)) say(`${String(g.n).padStart(6)}  ${k}\n${''.padStart(8)}e.g. ${g.example}`);
  };
  top('False errors (Tint accepts, wgslc rejects)', rows.filter((r) => acc(r) && r.class === 'false error'), (r) => normalise(r.message));
  top('Internal errors', rows.filter((r) => r.class === 'internal error'), (r) => normalise(r.message));
  const bugs = rows.filter((r) => r.class === 'crash' || r.class === 'hang');
  if (bugs.length) top('Crashes and hangs', bugs, (r) => `${r.class}: ${r.message}`);
  top('Unsupported (Tint accepts; a documented limit of the subset)', rows.filter((r) => acc(r) && r.class === 'unsupported'),
      (r) => normalise(r.message, { keepQuoted: true }));
  top('Falsely accepted (Tint rejects, wgslc translates), by Tint message', rows.filter((r) => rej(r) && r.class === 'falsely accepted'),
      (r) => normalise(r.tint));
  const failed = rows.filter((r) => r.group === 'failed');
  if (failed.length) top('Tint failures', failed, (r) => normalise(r.tint));
  say();
  say(`time: Tint ${tintSeconds.toFixed(0)} s (${todo.length} verdicts computed), wgslc ${wgslcSeconds.toFixed(0)} s, ` +
      `total ${((Date.now() - t0) / 1000).toFixed(0)} s`);

  const summary = {
    meta: { date: new Date().toISOString(), dawn: args.dawn, dawnCommit: commit ?? null, only: args.only,
            wgslc: args.wgslc, wgslcSha256: sha256(readFileSync(args.wgslc)), webgpu: webgpuVersion,
            backend: cacheMeta.backend, timeoutSeconds: args.timeout },
    counts: Object.fromEntries(['all', 'computeOnly'].map((sub) => {
      const rs = sub === 'all' ? all : co, m = {};
      for (const r of rs) { m[r.group] ??= { total: 0 }; m[r.group].total++; m[r.group][r.class] = (m[r.group][r.class] ?? 0) + 1; }
      return [sub, { files: rs.length, ...m }];
    })),
    files: perFile,
  };
  writeFileSync(join(args.out, 'summary.json'), JSON.stringify(summary, null, 1) + '\n');

  if (args.compare) {
    const old = JSON.parse(readFileSync(args.compare, 'utf8')).files;
    const label = (e) => `${e.tint === 'accepts' ? '' : `[Tint ${e.tint}] `}${e.class}`;
    const changes = new Map();
    for (const [f, e] of Object.entries(perFile)) {
      const o = old[f];
      if (!o) continue;
      if (o.tint === e.tint && o.class === e.class) continue;
      const k = `${label(o)} → ${label(e)}`;
      if (!changes.has(k)) changes.set(k, []);
      changes.get(k).push(e.message ? `${f}  (${e.message.length > 160 ? e.message.slice(0, 157) + '...' : e.message})` : f);
    }
    const only = (a, b) => Object.keys(a).filter((f) => !(f in b)).length;
    say();
    say(`Compared with ${args.compare}: ${[...changes.values()].reduce((n, l) => n + l.length, 0)} files changed class` +
        ` (${only(perFile, old)} files new, ${only(old, perFile)} gone)`);
    for (const [k, l] of [...changes].sort((a, b) => b[1].length - a[1].length)) {
      say(`${String(l.length).padStart(6)}  ${k}`);
      for (const f of l) say(`          ${f}`);
    }
  }
  writeFileSync(join(args.out, 'report.txt'), lines.join('\n') + '\n');
  console.error(`wrote ${join(args.out, 'summary.json')} and report.txt`);
}

if (process.argv[2] === '--tint-worker') await tintWorker();
else await main();
