// The tgbundle npm package (tensorgrad/js) as a web project uses it, with no upstream tensorgrad:
// `npm pack` it, `npm install` the tarball into a scratch app, serve a page on 127.0.0.1 that
// imports the installed `tgbundle` (through an import map built from the package's `exports`) and
// re-offers a committed Chromium recording with writeBundle, open it in Debian's headless Chromium
// (playwright-core from tests/inspect/node_modules, `npm ci --prefix tests/inspect`) launched with
// `chromiumWebGPUArgs`, and capture the download with `saveBundle` from `tgbundle/playwright`.
// Checks: the saved bundle equals the recording, webgpuAdapterText names SwiftShader, saveBundle's
// errors (a page that offers nothing, a download that is not a bundle, bad arguments), and, given
// a tgparity, that `tgparity run` of the saved bundle passes (the replay on SwiftShader).
//
//   node tests/js/playwright_helper_test.mjs [TGPARITY]
//
// Exit 0: every check passed; 1: a check failed; 77: skipped (no playwright-core or no Chromium),
// saying why. Environment: CHROMIUM (default /usr/bin/chromium), NPM (default npm),
// TG_PLAYWRIGHT_CORE (a playwright-core package folder instead of tests/inspect's),
// TG_KEEP_TMP=1 keeps the scratch folder.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const pkgDir = join(repo, 'tensorgrad/js');
const recording = join(repo, 'tests/parity/bundles/tanh_overflow.chromium.tgbundle.json');
const tgparity = process.argv[2];
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const npm = process.env.NPM || 'npm';
const SKIP = 77;

let failures = 0;
const ok = (what) => console.log(`ok   - ${what}`);
const fail = (what) => { failures++; console.log(`FAIL - ${what}`); };
const check = (cond, what, detail = '') => (cond ? ok(what) : fail(detail ? `${what}: ${detail}` : what));
// Resolves to the error `promise` rejects with, or fails the check when it resolves.
async function rejection(promise) {
  try { await promise; } catch (e) { return e; }
  return null;
}

function skip(why) {
  console.log(`SKIP - ${why}`);
  process.exit(SKIP);
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  if (r.error || r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed${r.error ? `: ${r.error.message}` : ` with exit ${r.status}`}\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  }
  return r.stdout;
}

// playwright-core: tests/inspect's (what the inspect tests use), unless TG_PLAYWRIGHT_CORE names one.
async function loadPlaywright() {
  const dir = process.env.TG_PLAYWRIGHT_CORE || join(repo, 'tests/inspect/node_modules/playwright-core');
  if (!existsSync(join(dir, 'package.json'))) skip(`no playwright-core at ${dir} (run: npm ci --prefix tests/inspect)`);
  const entry = createRequire(join(dir, 'package.json')).resolve(dir);
  const m = await import(pathToFileURL(entry).href);
  return m.chromium ?? m.default.chromium;
}

// A static server on 127.0.0.1: pages by name, the scratch app's node_modules, and the recording.
function serve(app, pages) {
  const types = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.json': 'application/json' };
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (pages[url.pathname]) { res.writeHead(200, { 'content-type': 'text/html' }); return res.end(pages[url.pathname]); }
    if (url.pathname === '/favicon.ico') { res.writeHead(204); return res.end(); }
    if (url.pathname === '/recording.json') { res.writeHead(200, { 'content-type': 'application/json' }); return res.end(readFileSync(recording)); }
    if (url.pathname.startsWith('/node_modules/tgbundle/')) {
      const base = join(app, 'node_modules/tgbundle');
      const file = resolve(base, decodeURIComponent(url.pathname.slice('/node_modules/tgbundle/'.length)));
      if (file.startsWith(base + '/') && existsSync(file)) {
        res.writeHead(200, { 'content-type': types[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream' });
        return res.end(readFileSync(file));
      }
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((ok_) => server.listen(0, '127.0.0.1', () => ok_(server)));
}

// A page that imports the installed package by its bare name and runs `body` (a module script).
const page = (importMap, body) => `<!doctype html><meta charset="utf-8"><title>tgbundle package test</title>
<script type="importmap">${JSON.stringify(importMap)}</script>
<body><script type="module">
import { writeBundle } from 'tgbundle';
try {
${body}
  window.__result = { ok: true };
} catch (e) {
  window.__result = { error: String(e?.stack ?? e) };
}
</script>`;

async function main() {
  if (!existsSync(chromiumPath)) skip(`no Chromium at ${chromiumPath} (Debian: apt install chromium; or set CHROMIUM)`);
  const chromium = await loadPlaywright();
  const original = JSON.parse(readFileSync(recording, 'utf8'));

  const tmp = mkdtempSync(join(tmpdir(), 'tgbundle-pkg-'));
  let browser, server;
  try {
    // 1. npm pack (offline), and what the tarball holds.
    const packed = JSON.parse(run(npm, ['pack', '--offline', '--json', '--pack-destination', tmp], pkgDir));
    const tarball = join(tmp, packed[0].filename);
    const files = packed[0].files.map((f) => f.path).sort();
    const expected = ['BUNDLE_FORMAT.md', 'README.md', 'package.json', 'playwright.d.ts', 'playwright.mjs', 'tgbundle.d.ts', 'tgbundle.mjs'];
    check(existsSync(tarball), `npm pack wrote ${packed[0].filename}`);
    check(isDeepStrictEqual(files, expected), 'the tarball holds the recorder, the Playwright helper, their types and the docs',
      `got ${files.join(', ')}`);

    // 2. npm install <tarball> into a scratch app (no dependencies: works offline).
    const app = join(tmp, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'tgbundle-test-app', private: true, type: 'module' }));
    run(npm, ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], app);
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/tgbundle/package.json'), 'utf8'));
    check(installed.name === 'tgbundle' && installed.type === 'module', `installed tgbundle ${installed.version}`);
    check(!existsSync(join(app, 'node_modules/playwright-core')), 'installing it pulls in no dependency (playwright-core is an optional peer)');
    // Node resolves both entry points through `exports`, from the app.
    writeFileSync(join(app, 'entry.mjs'), "export * from 'tgbundle/playwright';\nexport { recordBundle, writeBundle } from 'tgbundle';\n");
    const pkg = await import(pathToFileURL(join(app, 'entry.mjs')).href);
    check(['saveBundle', 'webgpuAdapterText', 'recordBundle', 'writeBundle'].every((f) => typeof pkg[f] === 'function') &&
      Array.isArray(pkg.chromiumWebGPUArgs), "'tgbundle' and 'tgbundle/playwright' resolve in Node and export the API");
    const { saveBundle, webgpuAdapterText, chromiumWebGPUArgs } = pkg;
    check(chromiumWebGPUArgs.includes('--enable-unsafe-webgpu') && chromiumWebGPUArgs.includes('--use-webgpu-adapter=swiftshader'),
      'chromiumWebGPUArgs enable WebGPU on SwiftShader');

    // 3. The pages, served on 127.0.0.1; the browser maps 'tgbundle' to the package's `exports`.
    const importMap = { imports: { tgbundle: `/node_modules/tgbundle/${installed.exports['.'].default.replace(/^\.\//, '')}` } };
    server = await serve(app, {
      '/offer.html': page(importMap, `  const bundle = await (await fetch('/recording.json')).json();
  await writeBundle(bundle, 'page.tgbundle.json');`),
      '/quiet.html': page(importMap, '  // offers nothing'),
      '/junk.html': page(importMap, "  await writeBundle({ format: 'not-a-bundle', steps: [] }, 'junk.tgbundle.json');"),
    });
    const origin = `http://127.0.0.1:${server.address().port}`;
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: [...chromiumWebGPUArgs] });
    const newPage = async () => {
      const p = await browser.newPage();
      const errors = [];
      p.on('pageerror', (e) => errors.push(String(e)));
      p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      p.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} for ${r.url()}`); });
      return { p, errors };
    };

    // 4. saveBundle captures the page's download: the same bundle, semantically.
    const out = join(tmp, 'out', 'page.tgbundle.json');
    {
      const { p, errors } = await newPage();
      const saved = await saveBundle(p, { path: out, timeout: 60_000, trigger: () => p.goto(`${origin}/offer.html`) });
      const result = await (await p.waitForFunction(() => window.__result, null, { timeout: 30_000 })).jsonValue();
      check(!result.error && errors.length === 0, 'the page imported the installed tgbundle and called writeBundle',
        result.error ?? errors.join('\n'));
      check(saved.path === out && saved.filename === 'page.tgbundle.json', `saveBundle saved '${saved.filename}' to the given path`,
        JSON.stringify(saved));
      check(saved.steps === original.steps.length && saved.version === original.version && saved.adapter === original.adapter,
        `saveBundle reports ${saved.steps} steps, version ${saved.version}, adapter '${saved.adapter}'`,
        `the recording has ${original.steps.length}, ${original.version}, '${original.adapter}'`);
      check(isDeepStrictEqual(JSON.parse(readFileSync(out, 'utf8')), original), 'the saved file equals the committed recording (as JSON)');
      const adapter = await webgpuAdapterText(p);
      check(typeof adapter === 'string' && adapter.toLowerCase().includes('swiftshader'), `webgpuAdapterText: '${adapter}'`,
        'expected it to name SwiftShader');
      await p.close();
    }

    // 5. Errors: a page that offers nothing times out saying so; a download that is not a bundle.
    {
      const { p } = await newPage();
      const path = join(tmp, 'out', 'never.tgbundle.json');
      const e = await rejection(saveBundle(p, { path, timeout: 1500, trigger: () => p.goto(`${origin}/quiet.html`) }));
      check(e && /never offered a bundle within 1500 ms/.test(e.message) && /`steps`/.test(e.message) && /`path`/.test(e.message),
        'a page that offers nothing: saveBundle times out saying the page never offered a bundle (steps? path?)', e ? e.message : 'it resolved');
      check(!existsSync(path), 'and writes nothing');
      await p.close();
    }
    {
      const { p } = await newPage();
      const e = await rejection(saveBundle(p, { path: join(tmp, 'out', 'junk.tgbundle.json'), timeout: 30_000,
        trigger: () => p.goto(`${origin}/junk.html`) }));
      check(e && /'junk\.tgbundle\.json'.*is not a tensorgrad bundle: format is "not-a-bundle"/.test(e.message),
        'a download that is not a bundle: saveBundle says so', e ? e.message : 'it resolved');
      await p.close();
    }
    {
      const { p } = await newPage();
      const noPath = await rejection(saveBundle(p, { timeout: 10 }));
      check(noPath instanceof TypeError && /give `path`/.test(noPath.message), 'saveBundle without a path asks for one', noPath?.message ?? 'it resolved');
      const boom = await rejection(saveBundle(p, { path: join(tmp, 'x.tgbundle.json'), timeout: 5_000, trigger: () => { throw new Error('trigger failed'); } }));
      check(boom?.message === 'trigger failed', "a failing trigger's error is saveBundle's", boom?.message ?? 'it resolved');
      await p.close();
    }
    await browser.close();
    browser = null;

    // 6. The saved bundle replays natively on SwiftShader, bit for bit.
    if (tgparity) {
      const r = spawnSync(tgparity, ['run', out], { encoding: 'utf8', timeout: 300_000 });
      const text = `${r.stdout ?? ''}${r.stderr ?? ''}`;
      check(r.status === 0 && /PASS/.test(text), `tgparity run of the saved bundle: exit ${r.status ?? r.error?.message}`,
        `expected exit 0 and PASS:\n${text}`);
      if (r.status === 0) console.log(text.trim().split('\n').filter((l) => /^(device|recorded on|PASS)/.test(l)).map((l) => `       ${l}`).join('\n'));
    } else {
      console.log('note - no tgparity given (argv[2]): the native replay was not checked');
    }
  } finally {
    if (browser) await browser.close().catch(() => {});
    server?.close();
    if (process.env.TG_KEEP_TMP) console.log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => {
    console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
    process.exit(failures ? 1 : 0);
  },
  (e) => {
    console.log(`FAIL - ${e?.stack ?? e}`);
    process.exit(1);
  },
);
