// `node web/perf/run.mjs PROGRAM.wasm ARGS…`: runs a wasm32-wasip1 build of `sinew-bench` inside a page of
// Debian's headless Chromium (SINEW_CHROMIUM, else /usr/bin/chromium) and prints what it printed; exits with its
// code. The page is served cross-origin isolated (COOP and COEP), which gives `performance.now()` Chromium's
// finest step (5 µs, against 100 µs otherwise): the profiler times a whole crowd per stage, tens of µs.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { argv, env, exit, stderr, stdout } from 'node:process';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const [program, ...args] = argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const files = {
  '/': [join(here, 'index.html'), 'text/html'],
  '/wasi.mjs': [join(here, 'wasi.mjs'), 'text/javascript'],
  '/sinew-bench.wasm': [program, 'application/wasm'],
};
const server = createServer(async (request, response) => {
  const file = files[new URL(request.url, 'http://x').pathname];
  const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
  try {
    if (!file) throw new Error('not served');
    const body = await readFile(file[0]);
    response.writeHead(200, { ...headers, 'Content-Type': file[1] });
    response.end(body);
  } catch {
    response.writeHead(404, headers);
    response.end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await puppeteer.launch({
  executablePath: env.SINEW_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  userDataDir: join(tmpdir(), `sinew-perf-chromium-${process.pid}`),
  // TurboFan from the start, as under Node: the code a page runs once warm, not its first seconds' baseline tier.
  args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--js-flags=--no-liftoff'],
});
let code = 1;
try {
  const page = await browser.newPage();
  const url = `http://127.0.0.1:${server.address().port}/?args=${encodeURIComponent(JSON.stringify(args))}`;
  await page.goto(url);
  await page.waitForFunction('window.sinewProfile !== undefined', { timeout: 600000, polling: 500 });
  const result = await page.evaluate(() => ({ ...window.sinewProfile, isolated: window.crossOriginIsolated }));
  if (!result.isolated) stderr.write('page-perf: the page is not cross-origin isolated; timer steps are coarse\n');
  stdout.write(result.stdout);
  stderr.write(result.stderr);
  code = result.code;
} finally {
  await browser.close();
  server.close();
}
exit(code);
