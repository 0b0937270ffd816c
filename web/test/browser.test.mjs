// The viewer in a real browser: Debian's Chromium, headless, driven by puppeteer-core over the page that
// `cargo xtask web-test` built (SINEW_WEB_DIR). Each blob's character is drawn (pixels other than the
// background inside the box sinew's own bounds give, projected; a screenshot per blob under SINEW_WEB_SHOTS),
// the page's frames equal the same wasm's frames run here in Node (which a c_api test holds to the native Rust
// API), and a broken blob shows the loader's error instead of a blank canvas.
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, test } from 'node:test';
import puppeteer from 'puppeteer-core';
import { loadSinew } from '../sinew.mjs';

const dir = process.env.SINEW_WEB_DIR;
const shots = process.env.SINEW_WEB_SHOTS;
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
let server;
let browser;
let origin;

before(async () => {
  server = createServer(async (request, response) => {
    const path = new URL(request.url, 'http://x').pathname;
    const file = normalize(join(dir, path === '/' ? 'index.html' : path));
    try {
      if (!file.startsWith(normalize(dir))) throw new Error('outside');
      const body = await readFile(file);
      response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await puppeteer.launch({
    executablePath: process.env.SINEW_CHROMIUM,
    headless: true,
    userDataDir: join(tmpdir(), `sinew-chromium-${process.pid}`),
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--window-size=800,600'],
  });
  await mkdir(shots, { recursive: true });
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** The page in test mode on `blob`, ready. */
async function open(blob) {
  const page = await browser.newPage();
  await page.setViewport({ width: 800, height: 600 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${origin}/?test=1&blob=${blob}`);
  await page.waitForFunction('window.sinewReady === true', { timeout: 60000 });
  return { page, errors };
}

test('the page plays the same frames as the wasm build in Node', async () => {
  const { page, errors } = await open('example.snw');
  const inPage = await page.evaluate(() => window.sinewTest.frames(24));
  const sinew = await loadSinew(await readFile(join(dir, 'sinew_ffi.wasm')));
  const asset = sinew.loadAsset(await readFile(join(dir, 'blobs/example.snw')));
  const character = asset.createCharacter();
  character.play(0, 0, 0, 1, 1);
  const hex = (floats) => Array.from(new Uint32Array(floats.slice().buffer), (b) => b.toString(16).padStart(8, '0')).join(' ');
  const inNode = [];
  for (let f = 0; f < 24; ++f) {
    if (f === 12) character.transition(asset.clips - 1, 0, 1, 0.25);
    character.update(1 / 30);
    inNode.push(`m ${f}: ${hex(character.modelMatrices())}`, `p ${f}: ${hex(character.palette())}`);
  }
  assert.deepEqual(inPage, inNode);
  assert.deepEqual(errors, []);
  await page.close();
});

/**
 * Pixels of the WebGL canvas inside and outside `rect` that are bone-coloured (`bones`: the bones' 0x7fd1ff has
 * far more blue than the background or the grid) or, otherwise, unlike the background (0x15181d).
 */
function countPixels(page, rect, bones) {
  return page.evaluate(({ left, right, top, bottom }, bones) => {
    const canvas = document.querySelector('canvas');
    const gl = canvas.getContext('webgl2');
    const { width, height } = canvas;
    const pixels = new Uint8Array(width * height * 4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
    const counts = { inside: 0, outside: 0 };
    for (let y = 0; y < height; ++y) {
      for (let x = 0; x < width; ++x) {
        const at = 4 * ((height - 1 - y) * width + x);
        const [r, g, b] = [pixels[at], pixels[at + 1], pixels[at + 2]];
        const hit = bones ? b > 150 && g > 120 : Math.abs(r - 0x15) + Math.abs(g - 0x18) + Math.abs(b - 0x1d) > 30;
        if (hit) counts[x >= left && x <= right && y >= top && y <= bottom ? 'inside' : 'outside'] += 1;
      }
    }
    return counts;
  }, rect, bones);
}

test('every blob is drawn inside its bounds, and a screenshot is kept', async () => {
  const entries = JSON.parse(await readFile(join(dir, 'blobs.json'), 'utf8'));
  for (const { blob } of entries) {
    const { page, errors } = await open(blob);
    assert.equal(await page.evaluate(() => window.sinewTest.error()), '', blob);
    const rect = await page.evaluate(() => window.sinewTest.draw());
    const drawn = await countPixels(page, rect, true);
    await page.screenshot({ path: join(shots, `${blob.replace(/\.snw$/, '')}.png`) });
    // The camera frames the character: its box lies on the canvas and fills a fair part of its height.
    const inside = rect.left >= 0 && rect.top >= 0 && rect.right <= rect.width && rect.bottom <= rect.height;
    assert.ok(inside && rect.bottom - rect.top > rect.height / 5, `${blob}: the box ${JSON.stringify(rect)} is off the canvas or tiny`);
    assert.ok(drawn.inside > 100, `${blob}: ${drawn.inside} bone pixels inside ${JSON.stringify(rect)}`);
    assert.deepEqual(errors, [], blob);
    await page.close();
  }
});

test("a glTF character's meshes follow sinew's palette", async () => {
  const entries = JSON.parse(await readFile(join(dir, 'blobs.json'), 'utf8'));
  const meshed = entries.filter((e) => e.mesh);
  if (meshed.length === 0) {
    // The shared data is required in CI; elsewhere its absence skips this test with a message.
    assert.ok(!process.env.SINEW_REQUIRE_DATA, 'SINEW_REQUIRE_DATA is set but no glTF character was baked');
    console.log('no glTF characters baked (../shared/data absent): the mesh test has nothing to draw');
  }
  for (const { blob } of meshed) {
    const { page, errors } = await open(blob);
    assert.ok(await page.evaluate(() => window.sinewTest.hasMeshes()), `${blob}: no meshes drawn`);
    // Meshes alone, no floor: what differs from the background is the skinned character. Nearly all of it lies in
    // the box around sinew's joints grown by half the figure (skin reaches past the joints: the robot's head, a
    // tail); a palette read in the wrong layout or order throws vertices far outside it.
    const first = await page.evaluate(() => window.sinewTest.draw({ bones: false, floor: false, margin: 0.5 }));
    const a = await countPixels(page, first, false);
    await page.screenshot({ path: join(shots, `${blob.replace(/\.snw$/, '')}-mesh.png`) });
    assert.ok(a.inside > 1000, `${blob}: ${a.inside} mesh pixels inside ${JSON.stringify(first)}`);
    assert.ok(a.outside < a.inside / 20, `${blob}: ${a.outside} mesh pixels outside the box, ${a.inside} inside`);
    // The palette moves the mesh (three's own bones never move: nothing animates them).
    const before = await page.screenshot({ encoding: 'base64' });
    await page.evaluate(() => { for (let f = 0; f < 9; ++f) window.sinewTest.draw({ bones: false, floor: false }); });
    const later = await page.screenshot({ encoding: 'base64' });
    assert.notEqual(before, later, `${blob}: the mesh did not move in 10 frames`);
    assert.deepEqual(errors, [], blob);
    await page.close();
  }
});

test('a broken blob shows the loader error, not a blank page', async () => {
  for (const [blob, message] of [['broken.snw', /truncated or inconsistent/], ['foreign.snw', /not a sinew asset/]]) {
    const { page } = await open(blob);
    assert.match(await page.evaluate(() => window.sinewTest.error()), message, blob);
    await page.screenshot({ path: join(shots, blob.replace('.snw', '.png')) });
    await page.close();
  }
});

test('an inertialized switch beside a crossfade: the two part during the switch and meet after it', async () => {
  const { page, errors } = await open('example.snw&mode=transition');
  const { heights: [inertialized, crossfaded] } = await page.evaluate(() => window.sinewTest.transition(10, 30));
  assert.equal(inertialized.length, 41);
  // Before the switch both play the same clip: the same heights, bit for bit.
  for (let f = 0; f < 10; ++f) assert.equal(inertialized[f], crossfaded[f], `frame ${f}`);
  // During the 0.3 s switch (9 frames) the two transitions differ; a second later both show the new clip alone.
  const during = inertialized.slice(11, 20).map((v, k) => Math.abs(v - crossfaded[11 + k]));
  assert.ok(Math.max(...during) > 1e-4, `the switches did not differ: ${during}`);
  assert.equal(inertialized[40], crossfaded[40]);
  await page.screenshot({ path: join(shots, 'transition.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test("walk to run: the matched-phase entry keeps the foot's rhythm, the unsynced one breaks it", async (t) => {
  const entries = JSON.parse(await readFile(join(dir, 'blobs.json'), 'utf8'));
  if (!entries.some((e) => e.blob === 'bandai-walk-run.snw')) {
    assert.ok(!process.env.SINEW_REQUIRE_DATA, 'SINEW_REQUIRE_DATA is set but the Bandai walk and run were not baked');
    t.skip('the Bandai takes are absent (../shared/data)');
    return;
  }
  const { page, errors } = await open('bandai-walk-run.snw&mode=locomotion');
  const { heights: [matched, unsynced], entered, joint } = await page.evaluate(() => window.sinewTest.transition(40, 30));
  await page.screenshot({ path: join(shots, 'locomotion.png') });
  console.log(`${joint}: entered the run at ${entered.map((e) => e.toFixed(3))} s`);
  assert.match(joint, /left|_l$/i);
  assert.equal(entered[1], 0);
  assert.ok(entered[0] > 0, `the matched entry is at ${entered[0]} s`);
  const jump = (h) => Math.max(...h.slice(40, 50).map((v, k) => Math.abs(v - h[39 + k])));
  console.log(`largest frame-to-frame foot height change in the switch: matched ${jump(matched)}, unsynced ${jump(unsynced)}`);
  // Entered at 0 s, the run puts the other foot down mid-stride: the left foot is yanked through the switch.
  // At the matched phase it carries on its stride (here 4.1 cm a frame at most, against 11 cm).
  assert.ok(jump(unsynced) > 1.5 * jump(matched), 'the matched entry moved the foot as much as the unsynced one');
  assert.deepEqual(errors, []);
  await page.close();
});

/** The Bandai walk and run, or a skip (a failure where SINEW_REQUIRE_DATA says the data must be there). */
async function bandai(t) {
  const entries = JSON.parse(await readFile(join(dir, 'blobs.json'), 'utf8'));
  if (entries.some((e) => e.blob === 'bandai-walk-run.snw')) return true;
  assert.ok(!process.env.SINEW_REQUIRE_DATA, 'SINEW_REQUIRE_DATA is set but the Bandai walk and run were not baked');
  t.skip('the Bandai takes are absent (../shared/data)');
  return false;
}

test('root motion: a warp point takes the walk to the dragged target at its marker', async (t) => {
  if (!(await bandai(t))) return;
  const { page, errors } = await open('bandai-walk-run.snw&mode=root motion');
  // A target a metre and a half to the side of where the clip's first 3 s end, then the whole segment played.
  const result = await page.evaluate(() => {
    const { unwarped } = window.sinewTest.warp(0, 0, 0);
    const [x, , z] = unwarped.translation;
    return window.sinewTest.warp(x + 150, z - 40, 89);
  });
  await page.screenshot({ path: join(shots, 'root-motion.png') });
  const distance = (a, b) => Math.hypot(a[0] - b[0], a[2] - b[2]);
  console.log(`warped root at the marker ${result.atMarker.translation.map((v) => v.toFixed(2))}, target ${result.target.translation.map((v) => v.toFixed(2))}, unwarped ${result.unwarped.translation.map((v) => v.toFixed(2))}`);
  assert.ok(distance(result.unwarped.translation, result.target.translation) > 100, 'the target is where the clip goes anyway');
  assert.ok(distance(result.atMarker.translation, result.target.translation) < 0.01, `the warped root misses the target: ${JSON.stringify(result)}`);
  assert.ok(Math.abs(result.atMarker.yaw - result.target.yaw) < 1e-4, `facing ${result.atMarker.yaw}, target ${result.target.yaw}`);
  // The figure stands where the warp says: 89 frames of 1/30 s is 2.967 s of the 3 s segment, near the target.
  const placed = [result.placement[12], result.placement[13], result.placement[14]];
  assert.ok(distance(placed, result.target.translation) < 10, `the figure is at ${placed} at ${result.time} s`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('foot planting: planted feet keep their animated height over the rolling ground, unplanted ones do not', async (t) => {
  if (!(await bandai(t))) return;
  const { page, errors } = await open('bandai-walk-run.snw&mode=planting');
  const frames = await page.evaluate(() => window.sinewTest.planting(150));
  await page.screenshot({ path: join(shots, 'planting.png') });
  // Frames where the planted figure holds a foot fully: its ankle over the ground against the animation's (the
  // other figure's model-space ankle, the same clip at the same time); the other figure's likewise.
  const on = [];
  const off = [];
  for (const [planted, animated] of frames) {
    for (const side of [0, 1]) {
      if (planted[side].lock < 0.95 || !planted[side].reached) continue;
      on.push(Math.abs(planted[side].clearance - animated[side].animated));
      off.push(Math.abs(animated[side].clearance - animated[side].animated));
    }
  }
  const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
  console.log(`${on.length} planted foot-frames: ankle height error planted ${mean(on).toFixed(4)}, as animated ${mean(off).toFixed(4)} (cm)`);
  assert.ok(on.length > 30, `only ${on.length} planted foot-frames in 150`);
  assert.ok(mean(on) < 0.3 * mean(off), `planted ${mean(on)} against ${mean(off)}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('every view draws its first figure inside its bounds', async () => {
  const entries = JSON.parse(await readFile(join(dir, 'blobs.json'), 'utf8'));
  // The walking views want a clip that walks; the example rig stands in without the shared data.
  const blob = entries.some((e) => e.blob === 'bandai-walk-run.snw') ? 'bandai-walk-run.snw' : 'example.snw';
  for (const mode of ['transition', 'smooth', 'locomotion', 'root motion', 'planting', 'aim', 'blend']) {
    // The aim view needs a Spine, Chest, Neck and Head, which the example rig has.
    const { page, errors } = await open(`${mode === 'aim' ? 'example.snw' : blob}&mode=${mode}`);
    const rect = await page.evaluate(() => window.sinewTest.draw());
    const drawn = await countPixels(page, rect, true);
    await page.screenshot({ path: join(shots, `view-${mode.replace(' ', '-')}.png`) });
    assert.ok(drawn.inside > 100, `${mode}: ${drawn.inside} bone pixels inside ${JSON.stringify(rect)}`);
    assert.deepEqual(errors, [], mode);
    await page.close();
  }
});

test("slow motion: the cubic figure's joint moves without the linear one's kinks at keys", async () => {
  const { page, errors } = await open('example.snw&mode=smooth');
  assert.match(await page.evaluate(() => document.getElementById('note').textContent), /Slow motion/);
  const [cubic, linear] = await page.evaluate(() => window.sinewTest.heights(150));
  // The largest second difference of the height over the frames: a kink's size (five frames per key here).
  const kink = (h) => Math.max(...h.slice(2).map((v, k) => Math.abs(v - 2 * h[k + 1] + h[k])));
  assert.ok(kink(linear) > 0, 'the linear figure did not move');
  assert.ok(kink(cubic) < 0.5 * kink(linear), `cubic ${kink(cubic)} against linear ${kink(linear)}`);
  await page.screenshot({ path: join(shots, 'smooth.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('IK by interpolation in the page: the head looks at the ball within 0.1°', async () => {
  const { page, errors } = await open('example.snw&mode=aim');
  assert.match(await page.evaluate(() => document.getElementById('note').textContent), /IK by interpolation/);
  // The ball up and to the left, then down and to the right, then nearly straight ahead.
  for (const [x, y, z] of [[0.4, 1.9, 1.0], [-0.5, 0.9, 1.2], [0.05, 1.5, 2.0]]) {
    const result = await page.evaluate((x, y, z) => window.sinewTest.aim(x, y, z), x, y, z);
    const degrees = result.error * 180 / Math.PI;
    assert.ok(degrees < 0.1, `ball at ${[x, y, z]}: error ${degrees}°`);
    // The error is the angle between what the head achieved and the way to the ball.
    const cos = result.achieved.reduce((sum, a, k) => sum + a * result.wanted[k], 0);
    assert.ok(Math.acos(Math.min(1, cos)) < 0.003, `achieved ${result.achieved}, wanted ${result.wanted}`);
  }
  await page.screenshot({ path: join(shots, 'aim.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a clip on knots: a strip under the time slider marks each knot', async (t) => {
  const entries = JSON.parse(await readFile(join(dir, 'blobs.json'), 'utf8'));
  if (!entries.some((e) => e.blob === 'cmu-walk-knots.snw')) {
    t.skip('the shared CMU walk was not baked (no shared data)');
    return;
  }
  const { page, errors } = await open('cmu-walk-knots.snw');
  const knots = await page.evaluate(() => window.sinewTest.knots());
  // `bake --knots 1` keeps a few hundred of the walk's 2752 frames, from 0 to the clip's end.
  assert.ok(knots.count > 100 && knots.count < 2752, `knots: ${knots.count}`);
  assert.equal(knots.ticks.length, knots.count);
  assert.equal(knots.ticks[0], 0);
  assert.ok(Math.abs(knots.ticks[knots.count - 1] - 1) < 1e-6, `last tick ${knots.ticks[knots.count - 1]}`);
  assert.ok(knots.ticks.every((t, k) => k === 0 || t > knots.ticks[k - 1]), 'ticks increase');
  assert.match(knots.stats, new RegExp(`· ${knots.count} knots`));
  assert.ok(knots.strip, 'the knot strip shows');
  await page.screenshot({ path: join(shots, 'knots.png') });
  // The example's clips have uniform frames: no ticks.
  await page.evaluate(() => { const blob = document.getElementById('blob'); blob.value = 'example.snw'; blob.onchange(); });
  await page.waitForFunction(() => window.sinewTest.knots().count === 0);
  assert.equal(await page.evaluate(() => window.sinewTest.knots().strip), false, 'no strip for uniform frames');
  assert.deepEqual(errors, []);
  await page.close();
});

test('blend graph in the page: the clip the blend slider leaves unread is not decoded', async () => {
  const entries = JSON.parse(await readFile(join(dir, 'blobs.json'), 'utf8'));
  const blob = entries.some((e) => e.blob === 'bandai-walk-run.snw') ? 'bandai-walk-run.snw' : 'example.snw';
  const { page, errors } = await open(`${blob}&mode=blend`);
  assert.match(await page.evaluate(() => document.getElementById('note').textContent), /Blend graph/);
  // At 0 only the first clip is read, at 1 only the second, between both; 40 frames at 30 Hz cross keys.
  const at = (blend) => page.evaluate((b) => window.sinewTest.blendGraph(b, 40), blend);
  const first = await at(0);
  assert.ok(first.after[0] > first.before[0], `first clip decoded nothing: ${JSON.stringify(first)}`);
  assert.equal(first.after[1], first.before[1], `second clip decoded at blend 0: ${JSON.stringify(first)}`);
  assert.match(first.status, /resting/);
  const second = await at(1);
  assert.equal(second.after[0], second.before[0], `first clip decoded at blend 1: ${JSON.stringify(second)}`);
  assert.ok(second.after[1] > second.before[1], `second clip decoded nothing: ${JSON.stringify(second)}`);
  const both = await at(0.5);
  assert.ok(both.after.every((d, k) => d > both.before[k]), `both clips at 0.5: ${JSON.stringify(both)}`);
  assert.doesNotMatch(both.status, /resting/);
  await page.screenshot({ path: join(shots, 'blend.png') });
  assert.deepEqual(errors, []);
  await page.close();
});
