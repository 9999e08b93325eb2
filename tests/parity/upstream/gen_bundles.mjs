// Writes ../bundles/<case>.tgbundle.json: the parity cases trained by upstream tensorgrad in Dawn
// for Node, recorded through tensorgrad/js/tgbundle.mjs exactly as a user's script would (the
// recorder wraps train.step). Called by `gen_goldens.sh --bundles`; the recorded losses must equal
// the case's golden (same upstream, same feeds).
import { readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { adapterInfo } from './node_env.mjs';  // first: installs navigator.gpu, Worker
import { recordCase, checkRecorded, goldenMismatch } from './record_case.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const DEFAULT_CASES = ['mlp_sin', 'transformer', 'mnist_cnn', 'digit_canvas'];

function parseArgs(argv) {
  const o = { cases: resolve(here, '../cases'), out: resolve(here, '../bundles'), golden: resolve(here, '../golden'), names: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upstream') o.upstream = argv[++i];
    else if (a === '--version') o.version = argv[++i];
    else if (a === '--recorder') o.recorder = argv[++i];
    else if (a === '--cases') o.cases = resolve(argv[++i]);
    else if (a === '--out') o.out = resolve(argv[++i]);
    else if (a === '--golden') o.golden = resolve(argv[++i]);
    else if (a === '--commit' || a === '--verify-untraced') { if (a === '--commit') i++; }
    else if (a.startsWith('--')) throw new Error(`gen_bundles: unknown option ${a}`);
    else o.names.push(a.replace(/\.mjs$/, ''));
  }
  if (!o.upstream || !o.version || !o.recorder) throw new Error('usage: gen_bundles.mjs --upstream DIST_INDEX_JS --version V --recorder TGBUNDLE_MJS [--cases DIR] [--out DIR] [case ...]');
  return o;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const tg = await import(pathToFileURL(resolve(o.upstream)).href);
  const { recordBundle } = await import(pathToFileURL(resolve(o.recorder)).href);
  const { mulberry32 } = await import(pathToFileURL(join(o.cases, 'feeds.mjs')).href);
  mkdirSync(o.out, { recursive: true });
  // The adapter upstream will get, asked for once up front: adapterInfo is otherwise unset until
  // upstream's first compile, and the first bundle of a run would record no adapter.
  await navigator.gpu.requestAdapter();
  for (const name of o.names.length > 0 ? o.names : DEFAULT_CASES) {
    const c = (await import(pathToFileURL(join(o.cases, `${name}.mjs`)).href)).default(tg);
    const path = join(o.out, `${name}.tgbundle.json`);
    const { bundle, losses } = await recordCase(tg, recordBundle, mulberry32, c, {
      path, tensorgrad: o.version,
      adapter: adapterInfo?.description || [adapterInfo?.vendor, adapterInfo?.architecture].filter(Boolean).join(' ') || null,
    });
    // Call sites name files by URL: make those of this machine's checkout and scratch directory
    // neutral, so the committed bundles do not change with where they were generated.
    const neutral = readFileSync(path, 'utf8')
      .replaceAll(pathToFileURL(resolve(o.cases, '../../..')).href + '/', '<repo>/')
      .replaceAll(pathToFileURL(here).href + '/', '<generator>/');
    writeFileSync(path, neutral);
    checkRecorded(name, bundle, losses);
    const off = goldenMismatch(bundle, JSON.parse(readFileSync(join(o.golden, `${name}.json`), 'utf8')));
    if (off) throw new Error(`case ${name}: step ${off.step} loss ${off.loss} differs from golden/${name}.json's ${off.golden}`);
    console.log(`${name}: ${bundle.steps.length} steps, ${bundle.forwards.length} forwards, ${(statSync(path).size / 1024).toFixed(0)} KiB`);
  }
}

main().then(() => process.exit(0), (e) => { console.error(e?.stack ?? String(e)); process.exit(1); });
