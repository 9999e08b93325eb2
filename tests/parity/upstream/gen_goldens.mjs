// Runs the parity cases (../cases/*.mjs) through upstream tensorgrad in Dawn for Node and writes
// ../golden/<case>.json (format 1, ../README.md). Called by gen_goldens.sh, which builds
// upstream; run by hand as
//   node gen_goldens.mjs --upstream DIST_INDEX_JS --commit SHA --version V [--cases DIR]
//                        [--out DIR] [--verify-untraced] [case ...]
// from a directory where `webgpu` resolves (gen_goldens.sh copies this file, node_env.mjs,
// kernel_trace.mjs and golden_record.mjs next to the node_modules it installs). What is recorded
// is golden_record.mjs's, shared with gen_goldens_chromium.mjs. --cases and --out default to
// ../cases and ../golden.
// --verify-untraced runs every case a second time with the kernel trace off and fails unless
// the losses, final parameters and forward outputs have the same bits.
import { readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { endianness } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { kernelTrace, adapterInfo, deviceErrors } from './node_env.mjs';  // first: installs navigator.gpu, Worker
import { goldenCase, golden } from './golden_record.mjs';

const here = dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const o = { cases: resolve(here, '../cases'), out: resolve(here, '../golden'), names: [], verifyUntraced: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upstream') o.upstream = argv[++i];
    else if (a === '--commit') o.commit = argv[++i];
    else if (a === '--version') o.version = argv[++i];
    else if (a === '--cases') o.cases = resolve(argv[++i]);
    else if (a === '--out') o.out = resolve(argv[++i]);
    else if (a === '--verify-untraced') o.verifyUntraced = true;
    else if (a.startsWith('--')) throw new Error(`gen_goldens: unknown option ${a}`);
    else o.names.push(a.replace(/\.mjs$/, ''));
  }
  if (!o.upstream || !o.commit || !o.version) {
    throw new Error('usage: gen_goldens.mjs --upstream DIST_INDEX_JS --commit SHA --version V [--cases DIR] [--out DIR] [--verify-untraced] [case ...]');
  }
  return o;
}

async function main() {
  if (endianness() !== 'LE') throw new Error('gen_goldens: hashes are of little-endian bytes; this host is big-endian');
  const o = parseArgs(process.argv.slice(2));
  const tg = await import(pathToFileURL(resolve(o.upstream)).href);
  const { mulberry32 } = await import(pathToFileURL(join(o.cases, 'feeds.mjs')).href);
  const names = o.names.length > 0 ? o.names
    : readdirSync(o.cases).filter((f) => f.endsWith('.mjs') && f !== 'feeds.mjs').map((f) => f.slice(0, -4)).sort();
  mkdirSync(o.out, { recursive: true });
  for (const name of names) {
    const mod = await import(pathToFileURL(join(o.cases, `${name}.mjs`)).href);
    const { c, rec, seconds, untracedSame } = await goldenCase({ kernelTrace, deviceErrors }, tg, mulberry32, mod, name,
      { verifyUntraced: o.verifyUntraced });
    const device = adapterInfo?.description ||
      [adapterInfo?.vendor, adapterInfo?.architecture, adapterInfo?.device].filter(Boolean).join(' ');
    writeFileSync(join(o.out, `${name}.json`), golden({ version: o.version, commit: o.commit, device }, c, rec));
    const last = c.training ? `final loss ${rec.losses[rec.losses.length - 1]}` : `${rec.outputs.length} outputs`;
    console.log(`${name}: ${c.steps} steps, ${rec.kernels.length} kernels, ${last}, ${seconds.toFixed(1)} s`);
    if (o.verifyUntraced) {
      if (!untracedSame) throw new Error(`case ${name}: results with the kernel trace on differ from those with it off`);
      console.log(`${name}: untraced run has the same losses, final params and forward outputs`);
    }
  }
}

main().then(
  () => process.exit(0),
  (e) => { console.error(e?.stack ?? String(e)); process.exit(1); },
);
