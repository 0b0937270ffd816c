// The viewer: one sinew character per blob, driven through the C ABI (web/sinew.mjs) and drawn with three.js as
// its skeleton, bones from each joint to its parent read from the model matrices every frame. `?test=1` makes
// the page deterministic (a fixed step, no animation loop) and exposes `window.sinewTest` to the browser tests;
// `?blob=NAME` picks a blob from `blobs.json`.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { loadSinew, LAYER_BASE, WRAP_LOOP } from './sinew.mjs';

const params = new URLSearchParams(location.search);
const testMode = params.has('test');
const $ = (id) => document.getElementById(id);

function showError(error) {
  $('error').textContent = String(error.message ?? error);
  console.error(error);
}

const renderer = new THREE.WebGLRenderer({ antialias: !testMode, preserveDrawingBuffer: testMode });
renderer.setPixelRatio(testMode ? 1 : devicePixelRatio);
$('view').appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x15181d);
const grid = new THREE.GridHelper(4, 16, 0x3a424d, 0x262c34);
scene.add(grid);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 100);
camera.position.set(2.2, 1.6, 2.8);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 0.9, 0);
controls.update();

function resize() {
  const { clientWidth: w, clientHeight: h } = $('view');
  renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
}
addEventListener('resize', resize);
resize();

/** One character of one blob, and its skeleton drawn as bone lines. */
class Shown {
  constructor(sinew, blob) {
    this.asset = sinew.loadAsset(blob);
    this.character = this.asset.createCharacter({ layers: [{ kind: LAYER_BASE, controls: 2 }] });
    const parents = Array.from({ length: this.asset.joints }, (_, j) => this.asset.jointParent(j));
    this.bones = parents.flatMap((p, j) => (p >= 0 ? [[p, j]] : []));
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(this.bones.length * 6), 3));
    this.lines = new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ color: 0x7fd1ff }));
    this.lines.frustumCulled = false;
    scene.add(this.lines);
    this.clip = 0;
    this.second = Math.min(1, this.asset.clips - 1);
    this.blend = 0;
    this.speed = 1;
    this.play(0);
  }

  play(time) {
    const c = this.character;
    c.playSlot({ slot: 0, clip: this.clip, time, speed: this.speed, weight: 1 - this.blend, wrap: WRAP_LOOP });
    c.playSlot({ slot: 1, clip: this.second, time, speed: this.speed, weight: this.blend, wrap: WRAP_LOOP });
  }

  update(dt) {
    const started = performance.now();
    this.character.update(dt);
    this.micros = (performance.now() - started) * 1000;
    const model = this.character.modelMatrices();
    const positions = this.lines.geometry.attributes.position;
    this.bones.forEach(([p, j], k) => {
      positions.setXYZ(2 * k, model[16 * p + 12], model[16 * p + 13], model[16 * p + 14]);
      positions.setXYZ(2 * k + 1, model[16 * j + 12], model[16 * j + 13], model[16 * j + 14]);
    });
    positions.needsUpdate = true;
  }

  dispose() {
    scene.remove(this.lines);
    this.lines.geometry.dispose();
  }
}

const sinew = await loadSinew(await (await fetch('./sinew_ffi.wasm')).arrayBuffer());
const blobs = await (await fetch('./blobs.json')).json();
let shown = null;
let playing = !testMode;
let time = 0;

async function show(name) {
  $('error').textContent = '';
  const bytes = new Uint8Array(await (await fetch(`./blobs/${name}`)).arrayBuffer());
  const next = new Shown(sinew, bytes);
  shown?.dispose();
  shown = next;
  for (const id of ['clip', 'second']) {
    $(id).replaceChildren(...Array.from({ length: shown.asset.clips }, (_, c) => new Option(`clip ${c}`, c)));
  }
  $('second').value = shown.second;
  time = 0;
  shown.update(0);
  frameCamera();
}

/** Points the camera at the character's bounds (sinew_character_bounds), whatever its units. */
function frameCamera() {
  const { min, max } = shown.character.bounds(0);
  const center = new THREE.Vector3((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
  const size = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2], 1e-3);
  controls.target.copy(center);
  camera.position.copy(center).add(new THREE.Vector3(0.8, 0.5, 1.0).multiplyScalar(1.6 * size));
  camera.near = size / 100;
  camera.far = size * 100;
  camera.updateProjectionMatrix();
  controls.update();
  grid.scale.setScalar(size);
  grid.position.set(center.x, min[1], center.z);
}

for (const name of blobs) $('blob').append(new Option(name, name));
$('blob').value = params.get('blob') ?? blobs[0];
$('blob').onchange = () => show($('blob').value).catch(showError);
$('clip').onchange = () => { shown.clip = +$('clip').value; shown.play(time); };
$('second').onchange = () => { shown.second = +$('second').value; shown.play(time); };
$('blend').oninput = () => { shown.blend = +$('blend').value; shown.play(time); };
$('speed').oninput = () => { shown.speed = +$('speed').value; shown.play(time); };
$('scrub').oninput = () => {
  time = +$('scrub').value * shown.asset.clipDuration(shown.clip);
  shown.play(time);
  shown.update(0);
};
$('play').onclick = () => { playing = !playing; $('play').textContent = playing ? 'pause' : 'play'; };
$('switch').onclick = () => {
  const next = (shown.clip + 1) % shown.asset.clips;
  shown.character.transition(next, 0, shown.speed, 0.3);
  shown.clip = next;
  $('clip').value = next;
};

try {
  await show($('blob').value);
} catch (e) {
  showError(e);
}

function stats() {
  if (!shown) return;
  $('stats').textContent = `${shown.micros.toFixed(1)} µs per update in wasm (SIMD128) · ${shown.asset.joints} joints · `
    + `${shown.character.bytes} bytes per character · ABI ${sinew.abiVersion()}`;
}

let last = performance.now();
function frame(now) {
  const dt = Math.min((now - last) / 1000, 0.1);
  last = now;
  if (shown && playing) {
    try {
      shown.update(dt);
      time += dt * shown.speed;
    } catch (e) {
      showError(e);
      playing = false;
    }
  }
  stats();
  renderer.render(scene, camera);
  requestAnimationFrame(frame);
}

if (testMode) {
  // The browser tests' handle: `frames(n)` runs frame.c's script (clip 0, an inertialized switch to the last
  // clip at frame 12, 1/30 s steps) on a fresh character and returns its lines in frame.c's format; `draw()`
  // renders and returns the character's model-space box projected to the canvas, in pixels.
  window.sinewTest = {
    frames(n) {
      const character = shown.asset.createCharacter();
      character.play(0, 0, 0, 1, 1);
      const hex = (floats) => Array.from(new Uint32Array(floats.slice().buffer), (b) => b.toString(16).padStart(8, '0')).join(' ');
      const lines = [];
      for (let f = 0; f < n; ++f) {
        if (f === 12) character.transition(shown.asset.clips - 1, 0, 1, 0.25);
        character.update(1 / 30);
        lines.push(`m ${f}: ${hex(character.modelMatrices())}`, `p ${f}: ${hex(character.palette())}`);
      }
      return lines;
    },
    draw() {
      shown.update(1 / 30);
      renderer.render(scene, camera);
      const { min, max } = shown.character.bounds(0);
      const corners = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => new THREE.Vector3(
        k & 1 ? max[0] : min[0], k & 2 ? max[1] : min[1], k & 4 ? max[2] : min[2]).project(camera));
      const { width, height } = renderer.domElement;
      const xs = corners.map((c) => (c.x + 1) / 2 * width);
      const ys = corners.map((c) => (1 - c.y) / 2 * height);
      return { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys), width, height };
    },
    error: () => $('error').textContent,
  };
  window.sinewReady = true;
} else {
  requestAnimationFrame(frame);
}
