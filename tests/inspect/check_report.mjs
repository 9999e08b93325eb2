// Opens a tg-inspect HTML report in headless Chromium (Debian's, through npm playwright-core)
// and prints what the inspect tests check, as one JSON line: console errors and uncaught
// exceptions, graph nodes drawn, kernels listed, kernels left after a search, and whether
// clicking a kernel shows its WGSL and SPIR-V (and, for a bundle, upstream's WGSL).
//   node check_report.mjs REPORT.html QUERY [SCREENSHOT.png]
import { chromium } from 'playwright-core';

const [report, query, screenshot] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const result = { errors: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', m => { if (m.type() === 'error') result.errors.push('console: ' + m.text()); });
  page.on('pageerror', e => result.errors.push('exception: ' + e.message));
  // No network: the report must be self-contained.
  await page.route('**/*', r => (r.request().url().startsWith('file:') ? r.continue() : r.abort()));
  await page.goto('file://' + report);
  result.graphNodes = await page.locator('#graph-box svg g.node').count();
  result.svgBytes = (await page.locator('#graph-box').innerHTML()).length;
  await page.click('nav button[data-s="kernels"]');
  result.kernels = await page.locator('#kernel-table tbody tr').count();
  await page.fill('#search', query);
  result.visibleAfterSearch = await page.locator('#kernel-table tbody tr:visible').count();
  result.countText = await page.locator('#count').textContent();
  await page.locator('#kernel-table tbody tr:visible').first().click();
  result.detailWgsl = (await page.locator('#code').textContent()).includes('@compute');
  await page.click('#detail .tabs button[data-t="spirv"]');
  result.detailSpirv = (await page.locator('#code').textContent()).includes('OpEntryPoint');
  result.highlighted = await page.locator('#code span.op').count();
  // Bundles: the WGSL upstream ran in the browser, in its own tab.
  result.upstreamTab = (await page.locator('#detail .tabs button[data-t="upstream"]').count()) > 0;
  if (result.upstreamTab) {
    await page.click('#detail .tabs button[data-t="upstream"]');
    result.upstreamWgsl = (await page.locator('#code').textContent()).includes('@compute');
  }
  if (screenshot) {
    await page.fill('#search', 'matmul');
    await page.locator('#kernel-table tbody tr:visible').nth(2).click();
    await page.click('#detail .tabs button[data-t="wgsl"]');
    await page.screenshot({ path: screenshot });
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
