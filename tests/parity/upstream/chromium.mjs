// What gen_bundles_chromium.mjs and gen_goldens_chromium.mjs share: a static server on 127.0.0.1
// for the page (/index.html) and named roots, and Debian's Chromium with WebGPU on SwiftShader.
import { createServer } from 'node:http';
import { readFileSync, statSync, existsSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--no-sandbox',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
];

export function chromiumPath(path = process.env.CHROMIUM || '/usr/bin/chromium') {
  if (!existsSync(path)) throw new Error(`no Chromium at ${path} (Debian: apt install chromium; or set CHROMIUM)`);
  return path;
}

// Headless (playwright's default) Chromium at executablePath.
export const launchChromium = (executablePath) => chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });

const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.map': 'application/json' };

// roots: { '/prefix/': directory }; html(url): the page at /index.html. Resolves to the server.
export function serve(roots, html) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/index.html') { res.writeHead(200, { 'content-type': 'text/html' }); return res.end(html(url)); }
    if (url.pathname === '/favicon.ico') { res.writeHead(204); return res.end(); }
    for (const [prefix, dir] of Object.entries(roots)) {
      if (!url.pathname.startsWith(prefix)) continue;
      const file = normalize(join(dir, decodeURIComponent(url.pathname.slice(prefix.length))));
      if (!file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) break;
      res.writeHead(200, { 'content-type': types[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream' });
      return res.end(readFileSync(file));
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

// A fresh context and tab collecting the page's errors (uncaught, console.error, HTTP >= 400).
export async function openTab(browser, options = {}) {
  const context = await browser.newContext(options);
  const tab = await context.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  tab.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  tab.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} for ${r.url()}`); });
  return { context, tab, errors };
}
