// Playwright helpers for recording a graph bundle in an end-to-end test: the page trains with
// upstream tensorgrad and tgbundle.mjs's recordBundle, which offers the bundle as a download;
// saveBundle saves that download and checks it is a bundle, for `tgparity run` in CI.
//
//   import { chromium } from 'playwright-core'            // or @playwright/test's page fixture
//   import { saveBundle, chromiumWebGPUArgs } from 'tgbundle/playwright'
//   const browser = await chromium.launch({ args: chromiumWebGPUArgs })
//   const page = await browser.newPage()
//   const saved = await saveBundle(page, { path: 'model.tgbundle.json', trigger: () => page.goto(url) })
//
// Nothing here imports Playwright: the functions take the Page your test already has.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

// Chromium flags that give WebGPU in headless Chromium on SwiftShader (no GPU needed): the
// device whose bits `tgparity` replays with Chromium's own SwiftShader Vulkan driver.
// `--no-sandbox` is for containers and CI runners that run as root.
export const chromiumWebGPUArgs = Object.freeze([
  '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--no-sandbox',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
]);

const FORMAT = 'tensorgrad-bundle';
const VERSIONS = [1, 2];
const SUFFIX = '.tgbundle.json';

// The page's WebGPU adapter as recordBundle's `adapter` option takes it (tgparity picks the
// native device by it), or null when the page has no WebGPU adapter. Call it on your app's page
// (WebGPU needs a secure context: https, localhost or 127.0.0.1).
export async function webgpuAdapterText(page) {
  return page.evaluate(async () => {
    const adapter = await globalThis.navigator?.gpu?.requestAdapter();
    if (!adapter) return null;
    const info = adapter.info ?? (typeof adapter.requestAdapterInfo === 'function' ? await adapter.requestAdapterInfo() : null);
    return info ? (info.description || [info.vendor, info.architecture].filter(Boolean).join(' ') || null) : null;
  });
}

// Why `bundle` (parsed JSON) is not a graph bundle, or null when it is one.
function notABundle(bundle) {
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle)) return 'not a JSON object';
  if (bundle.format !== FORMAT) return `format is ${JSON.stringify(bundle.format)}, not "${FORMAT}"`;
  if (!VERSIONS.includes(bundle.version)) return `version ${JSON.stringify(bundle.version)} is not one of ${VERSIONS.join(', ')}`;
  if (!Array.isArray(bundle.steps)) return 'it has no steps array';
  return null;
}

// Waits for the page to offer a download named *.tgbundle.json (what recordBundle's writeBundle
// does in a browser once its `steps` are recorded, or on recorder.save()), saves it to `path`,
// and checks that it parses as a bundle. `trigger` (optional): an async function run once the
// wait has begun, e.g. () => page.goto(url) or () => page.click('#train'); without it the page
// must offer the download by itself within `timeout` ms. Resolves to { path, steps, adapter,
// version, filename }.
export async function saveBundle(page, { path, timeout = 120000, trigger } = {}) {
  if (!page || typeof page.waitForEvent !== 'function') throw new TypeError('saveBundle: the first argument must be a Playwright Page');
  if (typeof path !== 'string' || path === '') throw new TypeError('saveBundle: give `path`, the file to save the bundle to');
  if (trigger !== undefined && typeof trigger !== 'function') throw new TypeError('saveBundle: `trigger` must be a function (e.g. () => page.goto(url))');
  if (!(Number.isFinite(timeout) && timeout >= 0)) throw new TypeError(`saveBundle: timeout must be a number of ms, got ${timeout}`);

  const others = [];  // downloads that were not bundles by name, for the timeout's message
  const download = page.waitForEvent('download', {
    timeout,
    predicate: (d) => {
      const name = d.suggestedFilename();
      if (name.endsWith(SUFFIX)) return true;
      others.push(name);
      return false;
    },
  });
  download.catch(() => {});  // awaited below; a failing trigger must not leave it unhandled
  if (trigger) await trigger();

  let d;
  try {
    d = await download;
  } catch (e) {
    if (e?.name === 'TimeoutError') {
      throw new Error(`saveBundle: the page never offered a bundle within ${timeout} ms: no download named *${SUFFIX}` +
        (others.length ? ` (it offered ${others.map((n) => `'${n}'`).join(', ')}: recordBundle's \`path\` must end in ${SUFFIX})` : '') +
        '. Did recordBundle reach its `steps` (or the page call recorder.save())? Is its `path` set to a name ending in ' +
        `${SUFFIX}? Did the page fail before (listen to page.on('pageerror') and 'console')?`);
    }
    throw new Error(`saveBundle: waiting for the bundle download failed: ${e?.message ?? e}`);
  }
  const filename = d.suggestedFilename();
  const failure = await d.failure();
  if (failure) throw new Error(`saveBundle: the download '${filename}' failed: ${failure}`);
  const target = resolve(path);
  await mkdir(dirname(target), { recursive: true });
  await d.saveAs(target);

  let bundle, why;
  try {
    bundle = JSON.parse(await readFile(target, 'utf8'));
    why = notABundle(bundle);
  } catch (e) {
    why = `not JSON (${e.message})`;
  }
  if (why) throw new Error(`saveBundle: the download '${filename}' (saved to ${target}) is not a tensorgrad bundle: ${why}`);
  return { path: target, steps: bundle.steps.length, adapter: bundle.adapter ?? null, version: bundle.version, filename };
}
