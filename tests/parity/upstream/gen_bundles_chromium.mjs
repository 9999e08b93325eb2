// Writes ../bundles/<case>.chromium.tgbundle.json: the same recording as gen_bundles.mjs, made in
// a real browser — Debian's Chromium (WebGPU on SwiftShader) driven by playwright-core — where
// tensorgrad/js/tgbundle.mjs takes its browser path and offers the bundle as a download, which is
// what is saved, by the `tgbundle/playwright` helper saveBundle (tensorgrad/js/playwright.mjs, taken
// from --repo) as a user's Playwright test saves it. Called by `gen_goldens.sh --bundles --chromium`;
// it says whether the recorded losses equal the case's golden from Dawn for Node.
//
// A case is ../cases/<name>.mjs, or, when there is none, ../bundle_cases/<name>.mjs (bundle-only
// cases, which the C++ parity tests do not enumerate and which have no Dawn golden).
//
// The page is served on 127.0.0.1 from two roots: /repo/ (this checkout: the cases and the
// recorder) and /generator/ (the scratch directory: upstream's dist/index.js and record_case.mjs),
// so call sites neutralise to the same <repo>/ and <generator>/ names as the Node bundles'.
import { readFileSync, writeFileSync, mkdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromiumPath, launchChromium, serve, openTab } from './chromium.mjs';
import { checkRecorded, goldenMismatch } from './record_case.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const DEFAULT_CASES = ['mlp_sin', 'transformer', 'tanh_overflow'];
const CASE_DIRS = ['cases', 'bundle_cases'];  // under tests/parity/, searched in this order

function parseArgs(argv) {
  const o = { repo: resolve(here, '../../..'), out: resolve(here, '../bundles'), golden: resolve(here, '../golden'),
    chromium: undefined, names: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upstream') o.upstream = resolve(argv[++i]);
    else if (a === '--version') o.version = argv[++i];
    else if (a === '--repo') o.repo = resolve(argv[++i]);
    else if (a === '--out') o.out = resolve(argv[++i]);
    else if (a === '--golden') o.golden = resolve(argv[++i]);
    else if (a === '--chromium') o.chromium = argv[++i];
    else if (a.startsWith('--')) throw new Error(`gen_bundles_chromium: unknown option ${a}`);
    else o.names.push(a.replace(/\.mjs$/, ''));
  }
  // Names become URL and file path components: plain names only.
  for (const n of o.names) if (!/^[A-Za-z0-9_-]+$/.test(n)) throw new Error(`gen_bundles_chromium: bad case name '${n}'`);
  if (!o.upstream || !o.version) throw new Error('usage: gen_bundles_chromium.mjs --upstream DIST_INDEX_JS --version V [--repo DIR] [--out DIR] [--chromium PATH] [case ...]');
  o.chromium = chromiumPath(o.chromium);
  return o;
}

const page = (version) => `<!doctype html><meta charset="utf-8"><title>tgbundle in Chromium</title><body>
<script type="module">
import * as tg from '/generator/upstream/dist/index.js';
import { recordBundle } from '/repo/tensorgrad/js/tgbundle.mjs';
import { mulberry32 } from '/repo/tests/parity/cases/feeds.mjs';
import { recordCase } from '/generator/record_case.mjs';
try {
  const q = new URLSearchParams(location.search);
  const name = q.get('case'), dir = q.get('dir');
  if (!/^[A-Za-z0-9_-]+$/.test(name) || !${JSON.stringify(CASE_DIRS)}.includes(dir)) throw new Error('bad case ' + dir + '/' + name);
  const c = (await import('/repo/tests/parity/' + dir + '/' + name + '.mjs')).default(tg);
  const info = (await navigator.gpu?.requestAdapter())?.info;
  const adapter = info ? (info.description || [info.vendor, info.architecture].filter(Boolean).join(' ') || null) : null;
  const { bundle, losses } = await recordCase(tg, recordBundle, mulberry32, c,
    { path: name + '.chromium.tgbundle.json', tensorgrad: ${JSON.stringify(version)}, adapter });
  window.__done = { losses, steps: bundle.steps.length, forwards: bundle.forwards.length, adapter };
} catch (e) {
  window.__done = { error: String(e?.stack ?? e) };
}
</script>`;

async function main() {
  const o = parseArgs(process.argv.slice(2));
  // From the checkout (this script runs from gen_goldens.sh's scratch copy).
  const { saveBundle } = await import(pathToFileURL(join(o.repo, 'tensorgrad/js/playwright.mjs')).href);
  const generator = dirname(dirname(dirname(o.upstream)));  // <scratch>/upstream/dist/index.js → <scratch>
  const server = await serve({ '/repo/': o.repo, '/generator/': generator }, () => page(o.version));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await launchChromium(o.chromium);
  try {
    mkdirSync(o.out, { recursive: true });
    for (const name of o.names.length > 0 ? o.names : DEFAULT_CASES) {
      const dir = CASE_DIRS.find((d) => existsSync(join(o.repo, 'tests/parity', d, `${name}.mjs`)));
      if (!dir) throw new Error(`no case ${name}.mjs in tests/parity/{${CASE_DIRS.join(',')}}/ of ${o.repo}`);
      const { context, tab, errors } = await openTab(browser, { acceptDownloads: true });
      const query = `case=${name}&dir=${dir}`;
      const path = join(o.out, `${name}.chromium.tgbundle.json`);
      // The package's Playwright helper saves the download (and checks it is a bundle), as a
      // user's end-to-end test does; the trigger loads the page and waits for its result.
      let done;
      await saveBundle(tab, { path, timeout: 20 * 60_000, trigger: async () => {
        await tab.goto(`${origin}/index.html?${query}`);
        done = await (await tab.waitForFunction(() => window.__done, null, { timeout: 20 * 60_000, polling: 500 })).jsonValue();
        if (done.error) throw new Error(`case ${name} in Chromium: ${done.error}`);
      } });
      await context.close();
      if (errors.length) throw new Error(`case ${name}: the page reported errors:\n${errors.join('\n')}`);
      const neutral = readFileSync(path, 'utf8').replaceAll(`${origin}/repo/`, '<repo>/').replaceAll(`${origin}/generator/`, '<generator>/')
        .replaceAll(`${origin}/index.html?${query}`, '<page>');
      writeFileSync(path, neutral);
      const bundle = JSON.parse(neutral);
      checkRecorded(name, bundle, done.losses);
      // Browsers' backends may round differently (SwiftShader is not Dawn-on-GL's llvmpipe): a
      // difference from the golden is reported, and it is what the bundle's own losses then show.
      // A bundle-only case has no Dawn golden: its losses are listed instead.
      const goldenPath = join(o.golden, `${name}.json`);
      const off = existsSync(goldenPath) ? goldenMismatch(bundle, JSON.parse(readFileSync(goldenPath, 'utf8'))) : undefined;
      console.log(`${name}: ${bundle.steps.length} steps, ${bundle.forwards.length} forwards, adapter '${done.adapter}', ${(statSync(path).size / 1024).toFixed(0)} KiB; ` +
        (off === undefined ? `no Dawn golden (losses ${bundle.steps.map((s) => s.loss).join(' ')})`
          : off ? `differs from the Dawn golden first at step ${off.step} (${off.loss} vs ${off.golden})` : 'every loss equals the Dawn golden'));
    }
  } finally {
    await browser.close();
    server.close();
  }
}

main().then(() => process.exit(0), (e) => { console.error(e?.stack ?? String(e)); process.exit(1); });
