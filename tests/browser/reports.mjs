// Loads toolwire's HTML report pages in headless Chromium and checks what a reader sees.
// Usage: node reports.mjs OUT_DIR (written by run.sh: OUT_DIR/main, OUT_DIR/mm)
import { chromium } from 'playwright-core';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const out = process.argv[2];
const WIDTH = 1400;
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.log(`FAIL ${what}`);
  } else {
    console.log(`ok   ${what}`);
  }
}

const profile = mkdtempSync(join(tmpdir(), 'toolwire-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.TOOLWIRE_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--no-first-run'],
  viewport: { width: WIDTH, height: 900 },
  offline: true,
});

// Open a page; every console error, page error and request off the file fails the test.
async function open(file) {
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!r.url().startsWith('file:')) errors.push(`request: ${r.url()}`); });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return { page, errors };
}

// The PNG's width from its IHDR chunk.
function pngWidth(buf) {
  return buf.length > 24 && buf.toString('latin1', 1, 4) === 'PNG' ? buf.readUInt32BE(16) : 0;
}

async function matrix(file, table, mayBeEmpty = false) {
  const name = file.slice(out.length + 1);
  const { page, errors } = await open(file);
  check(await page.locator(`table#${table}`).count() === 1, `${name}: table#${table} present`);
  const cells = await page.locator(`table#${table} tbody td`).count();
  const visible = cells ? await page.locator(`table#${table} tbody tr:visible td`).first().isVisible() : false;
  if (mayBeEmpty && cells === 0)
    check(await page.locator('#nodiff').isVisible(), `${name}: no rows, and it says so`);
  else
    check(cells > 0 && visible, `${name}: ${cells} cells, the first row visible`);
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, document.body.scrollWidth]);
  check(widths[0] <= WIDTH && widths[1] <= WIDTH, `${name}: no horizontal overflow (scrollWidth ${widths})`);
  const wrap = await page.evaluate((t) => {
    const w = document.getElementById(t).closest('.wrap');
    return [w.scrollWidth, w.clientWidth];
  }, table);
  check(wrap[0] <= wrap[1], `${name}: the table fits without scrolling (${wrap[0]} <= ${wrap[1]})`);
  const shot = join(out, name.replace(/[/.]/g, '_') + '.png');
  await page.screenshot({ path: shot });
  const png = readFileSync(shot);
  check(pngWidth(png) === WIDTH && statSync(shot).size > 10000,
        `${name}: screenshot ${pngWidth(png)} px wide, ${statSync(shot).size} bytes`);
  return { page, errors, name };
}

async function done({ page, errors, name }) {
  check(errors.length === 0, `${name}: no script errors or requests${errors.length ? ': ' + errors.join('; ') : ''}`);
  await page.close();
}

// every page of the main job
// every backend of the main job: one page each beside the comparison page
const mainPages = readdirSync(join(out, 'main'))
  .filter((f) => f.endsWith('.html') && f !== 'comparison.html')
  .map((f) => f.slice(0, -'.html'.length));
check(['mock-replay', 'mock-hermes', 'mock-anthropic', 'mock-vllm-native', 'ref-anthropic']
  .every((b) => mainPages.includes(b)), `main: the backend pages (${mainPages.join(', ')})`);
for (const b of mainPages) {
  const m = await matrix(join(out, 'main', `${b}.html`), 'm');
  if (b === 'mock-replay') {
    check(await m.page.locator('#legend').isVisible(), `${m.name}: legend visible`);
    check(await m.page.locator('#m td.xfail').count() > 0, `${m.name}: expected failures shown as such`);
    const fx = await m.page.locator('#m td.fx').first().evaluate((e) => getComputedStyle(e).position);
    check(fx === 'sticky', `${m.name}: the fixture column is sticky (${fx})`);
    // the filter: "all fixtures" shows the rows this backend did not run
    const before = await m.page.locator('#m tbody tr:visible').count();
    await m.page.selectOption('#filter', 'all');
    const after = await m.page.locator('#m tbody tr:visible').count();
    check(after >= before && after === await m.page.locator('#m tbody tr').count(),
          `${m.name}: filter "all" shows every row (${before} -> ${after})`);
  }
  await done(m);
}
{
  const m = await matrix(join(out, 'main', 'comparison.html'), 'cmp', true);
  check(await m.page.locator('#backends tbody tr').count() === mainPages.length, `${m.name}: every backend listed`);
  await done(m);
}

// the run with mismatches and transport errors
{
  const m = await matrix(join(out, 'mm', 'mock.html'), 'm');
  const p = m.page;
  const res = p.locator('tr:has(td.fx:has-text("wrong_expectations")) td.fail.mm[data-c="RES-01"]');
  check(await res.count() === 1, `${m.name}: the result mismatch is a cell of its own (RES-01)`);
  await res.click();
  const detail = await p.locator('#detail').textContent();
  check(/MISMATCH/.test(detail) && /It is sunny in Paris/.test(detail),
        `${m.name}: clicking it shows the difference`);
  const xpass = p.locator('tr:has(td.fx:has-text("wrong_expectations")) td.xpass.mm[data-c="OAI-R04"]');
  check(await xpass.count() === 1, `${m.name}: a check expected to fail that passed is marked`);
  const fail = p.locator('tr:has(td.fx:has-text("expected_failure_left_out")) td.fail.mm[data-c="OAI-R04"]');
  const xfail = p.locator('tr:has(td.fx:text-is("openai/expected_failure")) td.xfail[data-c="OAI-R04"]');
  check(await fail.count() === 1 && await xfail.count() === 1,
        `${m.name}: unexpected and expected failures are different cells`);
  const [fb, xb] = [await fail.evaluate((e) => getComputedStyle(e).backgroundColor),
                    await xfail.evaluate((e) => getComputedStyle(e).backgroundColor)];
  check(fb !== xb, `${m.name}: and look different (${fb} vs ${xb})`);
  await fail.click();
  check(/MISMATCH/.test(await p.locator('#detail').textContent()), `${m.name}: the failure's evidence on click`);
  await p.selectOption('#filter', 'mismatch');
  const shown = await p.locator('#m tbody tr:visible td.fx').allTextContents();
  check(shown.length === 2 && shown.every((t) => t.startsWith('≠')),
        `${m.name}: the mismatch filter shows the two mismatching fixtures (${shown.length})`);
  await p.selectOption('#filter', 'run');
  const drop = p.locator('tr:has(td.fx:has-text("stream_dropped")) td.http.terr');
  check(await drop.count() === 1 && /transfer broke/.test(await drop.getAttribute('title')),
        `${m.name}: the broken transfer shown in its row`);
  await done(m);
}
{
  const m = await matrix(join(out, 'mm', 'nowhere.html'), 'm');
  const rows = await m.page.locator('#m tbody tr:visible').count();
  const t = m.page.locator('#m tbody tr:visible td.http.terr');
  check(rows >= 3 && await t.count() === rows && /no response/.test(await t.first().getAttribute('title')),
        `${m.name}: no response shown in each of its ${rows} rows`);
  await done(m);
}
{
  const m = await matrix(join(out, 'mm', 'comparison.html'), 'cmp');
  const diff = m.page.locator('#cmp td.diff');
  check(await diff.count() > 0, `${m.name}: differing cells marked`);
  await diff.first().click();
  check((await m.page.locator('#detail').textContent()).length > 10, `${m.name}: a cell's evidence on click`);
  await done(m);
}

await context.close();
rmSync(profile, { recursive: true, force: true });
console.log(failures ? `browser: ${failures} failed` : 'browser: all passed');
process.exit(failures ? 1 : 0);
