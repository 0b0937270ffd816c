// The viewer: one sinew character per blob, driven through the C ABI (web/sinew.mjs) and drawn with three.js:
// its skeleton as bones from each joint to its parent, read from the model matrices every frame, and a glTF
// character's own meshes skinned by sinew's palette (web/skinned.mjs). `?test=1` makes
// the page deterministic (a fixed step, no animation loop) and exposes `window.sinewTest` to the browser tests;
// `?blob=NAME` picks a blob from `blobs.json` (entries `{ blob, mesh }`: the glTF file a blob came from, when it
// has one, is drawn as its skinned meshes).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { AimScenery, BlendScenery, PlantingScenery, RootMotionScenery } from './scenery.mjs';
import { loadSkinnedMeshes } from './skinned.mjs';
import {
  INERTIALIZATION_DEFAULT, INERTIALIZATION_NONE, LAYER_BASE, loadSinew, SAMPLING_CUBIC, SYNC_NONE, SYNC_PHASE, WRAP_LOOP,
} from './sinew.mjs';

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
scene.add(new THREE.HemisphereLight(0xdfe8f2, 0x2a2f36, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(2, 4, 3);
scene.add(sun);
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

/**
 * The bones drawn, [parent, joint] pairs: none out of the skeleton's roots, which are scene or file nodes
 * rather than body joints (CesiumMan's `Z_UP`, the robot's armature, a BVH's root), nor out of their children
 * under a `motion_root` the baker added: that root carries the travel, and the file's root below it moves
 * against it while the body stays in place.
 */
function drawnBones(asset) {
  const depth = [];
  const top = asset.jointName(0) === 'motion_root' ? 1 : 0;
  const bones = [];
  for (let j = 0; j < asset.joints; ++j) {
    const p = asset.jointParent(j);
    depth[j] = p >= 0 ? depth[p] + 1 : 0;
    if (p >= 0 && depth[p] > top) bones.push([p, j]);
  }
  return bones;
}

/**
 * One character, `offset` along x from the others: its skeleton drawn as bone lines (over everything), and its
 * glTF meshes (`meshes`, a `SkinnedMeshes`) driven by its palette when the blob came with them.
 */
class Figure {
  constructor(asset, { inertialized, cubic, color, offset, meshes }) {
    this.asset = asset;
    this.inertialized = inertialized;
    this.offset = offset;
    this.character = asset.createCharacter({
      layers: [{ kind: LAYER_BASE, controls: 2 }],
      inertialization: inertialized ? INERTIALIZATION_DEFAULT : INERTIALIZATION_NONE,
      sampling: cubic ? SAMPLING_CUBIC : 0,
    });
    this.bytes = this.character.bytes;
    this.bones = drawnBones(asset);
    this.body = [...new Set(this.bones.flat())];
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(this.bones.length * 6), 3));
    this.lines = new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ color, depthTest: false }));
    this.lines.frustumCulled = false;
    this.lines.renderOrder = 1;
    scene.add(this.lines);
    this.meshes = meshes;
    if (meshes) {
      meshes.group.matrixAutoUpdate = false;
      scene.add(meshes.group);
    }
    // The figure's world transform (the views that move a character set it); its offset otherwise.
    this.placement = new THREE.Matrix4().makeTranslation(offset, 0, 0);
  }

  draw() {
    const model = this.character.modelMatrices();
    const positions = this.lines.geometry.attributes.position;
    const point = new THREE.Vector3();
    const at = (j) => point.set(model[16 * j + 12], model[16 * j + 13], model[16 * j + 14]).applyMatrix4(this.placement);
    this.bones.forEach(([p, j], k) => {
      positions.setXYZ(2 * k, ...at(p).toArray());
      positions.setXYZ(2 * k + 1, ...at(j).toArray());
    });
    positions.needsUpdate = true;
    if (this.meshes) {
      this.meshes.group.matrix.copy(this.placement);
      this.meshes.group.matrixWorldNeedsUpdate = true;
      this.meshes.pose(this.character.palette());
    }
  }

  /** Which of the two drawings show. */
  show({ bones, meshes }) {
    this.lines.visible = bones;
    if (this.meshes) this.meshes.group.visible = meshes;
  }

  dispose() {
    scene.remove(this.lines);
    this.lines.geometry.dispose();
    this.meshes?.dispose();
  }
}

/** The joint deepest in the hierarchy (a hand, a toe): the one the transition plot follows. */
function deepestJoint(asset) {
  const depth = Array.from({ length: asset.joints }, () => 0);
  let deepest = 0;
  for (let j = 0; j < asset.joints; ++j) {
    const p = asset.jointParent(j);
    depth[j] = p >= 0 ? depth[p] + 1 : 0;
    if (depth[j] > depth[deepest]) deepest = j;
  }
  return deepest;
}

/** A figure the plot follows, by the joint's name: a left foot (or ankle), for the wrong-foot moment. */
function leftFoot(asset) {
  const foot = asset.findJoint(/^(left.?foot|l.?foot|foot.?l|left.?ankle)$/i);
  return foot >= 0 ? foot : asset.findJoint(/left.*(foot|ankle)|(foot|ankle).*left/i);
}

const BLUE = 0x7fd1ff;
const ORANGE = 0xffb74d;

/**
 * The views: each figure's switch (an inertialized transition entered at time 0, a crossfade, or an
 * inertialized transition entered at the leading clip's stride phase), its sampling (`cubic`), colour and label;
 * the joint the plot follows through the switch (none for one figure) and whether it plots the joint's height or
 * its velocity; the view's playback speed and note.
 */
const VIEWS = {
  one: { figures: [{ enter: 'inertialize', color: BLUE }] },
  transition: {
    figures: [{ enter: 'inertialize', color: BLUE, label: 'inertialized' }, { enter: 'crossfade', color: ORANGE, label: 'crossfaded' }],
    plotted: deepestJoint,
  },
  'root motion': { figures: [{ enter: 'inertialize', color: BLUE }], scenery: RootMotionScenery },
  aim: { figures: [{ enter: 'inertialize', color: BLUE }], scenery: AimScenery },
  blend: { figures: [{ enter: 'inertialize', color: BLUE }], scenery: BlendScenery },
  planting: {
    figures: [{ enter: 'inertialize', color: BLUE, label: 'planted' }, { enter: 'inertialize', color: ORANGE, label: 'as animated' }],
    scenery: PlantingScenery,
  },
  smooth: {
    figures: [{ enter: 'inertialize', color: BLUE, label: 'cubic', cubic: true }, { enter: 'inertialize', color: ORANGE, label: 'linear' }],
    plotted: deepestJoint,
    plotVelocity: true,
    speed: 0.2,
    note: 'Slow motion: blue samples a spline through the keys (cubic, velocity continuous), orange lerps '
      + 'neighbouring keys (linear): the plotted velocity of orange steps at every key.',
  },
  locomotion: {
    figures: [{ enter: 'phase', color: BLUE, label: 'entered at the matched phase' }, { enter: 'inertialize', color: ORANGE, label: 'entered at 0 s' }],
    plotted: (asset) => { const foot = leftFoot(asset); return foot >= 0 ? foot : deepestJoint(asset); },
  },
};

/**
 * One blob shown in one of the `VIEWS`: its figures side by side, switched together, one joint's height
 * plotted through the switch; or, in a view with a scenery (`web/scenery.mjs`), its figures placed in that
 * world every frame.
 */
class Shown {
  /** Loads `entry` (of `blobs.json`: the blob, and the glTF file it was baked from when there is one). */
  static async load(sinew, entry, mode) {
    const blob = new Uint8Array(await (await fetch(`./blobs/${entry.blob}`)).arrayBuffer());
    const asset = sinew.loadAsset(blob);
    const figures = (VIEWS[mode] ?? VIEWS.one).figures.length;
    const meshes = entry.mesh && asset.skinJoints > 0
      ? await Promise.all(Array.from({ length: figures }, () => loadSkinnedMeshes(`./${entry.mesh}`, asset.skinJoints)))
      : [];
    return new Shown(asset, mode, meshes);
  }

  constructor(asset, mode, meshes) {
    this.asset = asset;
    this.mode = VIEWS[mode] ? mode : 'one';
    this.view = VIEWS[this.mode];
    const size = this.measure();
    const spacing = 1.2 * size;
    const first = -spacing * (this.view.figures.length - 1) / 2;
    this.figures = this.view.figures.map(({ enter, cubic, color }, k) => new Figure(asset,
      { inertialized: enter !== 'crossfade', cubic, color, offset: first + k * spacing, meshes: meshes[k] }));
    this.showing({ bones: true, meshes: true });
    this.character = this.figures[0].character;
    this.plotted = this.view.plotted?.(asset);
    this.history = this.figures.map(() => []);
    this.switchedAt = null;
    this.entered = [];
    this.clip = 0;
    this.second = Math.min(1, this.asset.clips - 1);
    this.blend = 0;
    this.speed = this.view.speed ?? 1;
    this.play(0);
    this.scenery = this.view.scenery && new this.view.scenery({ shown: this, scene, size });
  }

  /** The character's size, from a throwaway character's first pose, for the figures' spacing. */
  measure() {
    const probe = this.asset.createCharacter({ inertialization: INERTIALIZATION_NONE });
    probe.play(0, 0);
    probe.update(0);
    const { min, max } = probe.bounds(0, [...new Set(drawnBones(this.asset).flat())]);
    return Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2], 1e-3);
  }

  play(time) {
    this.scenery?.seek?.(time);
    for (const { character } of this.figures) {
      character.playSlot({ slot: 0, clip: this.clip, time, speed: this.speed, weight: 1 - this.blend, wrap: WRAP_LOOP });
      character.playSlot({ slot: 1, clip: this.second, time, speed: this.speed, weight: this.blend, wrap: WRAP_LOOP });
    }
  }

  /**
   * Switches every figure to `clip` over 0.3 s as its view says; `entered` keeps each figure's entry time in
   * the new clip.
   */
  switchTo(clip) {
    this.entered = this.figures.map(({ character }, k) => {
      const enter = this.view.figures[k].enter;
      if (enter === 'crossfade') {
        character.crossfade(clip, 0, this.speed, 0.3);
        return 0;
      }
      return character.transitionSynced(clip, 0, this.speed, 0.3, enter === 'phase' ? SYNC_PHASE : SYNC_NONE);
    });
    this.clip = clip;
    this.switchedAt = this.history[0].length;
  }

  update(dt) {
    const started = performance.now();
    this.character.update(dt);
    this.micros = (performance.now() - started) * 1000;
    this.figures.slice(1).forEach((f) => f.character.update(dt));
    this.scenery?.step(dt, this.speed);
    this.figures.forEach((f, k) => {
      f.draw();
      if (this.plotted === undefined) return;
      const model = f.character.modelMatrices();
      const h = this.history[k];
      h.push(model[16 * this.plotted + 13]);
      if (h.length > 240) h.shift();
    });
    if (this.switchedAt !== null && this.history[0].length === 240) this.switchedAt -= 1;
  }

  /** The first figure's box (its drawn joints', grown by `radius`), model space. */
  bounds(radius) {
    return this.character.bounds(radius, this.figures[0].body);
  }

  /** Which drawings show: bone lines, meshes (where the blob has them). */
  showing(which) {
    this.figures.forEach((f) => f.show(which));
  }

  dispose() {
    this.figures.forEach((f) => f.dispose());
    this.scenery?.dispose();
  }
}

/**
 * The plotted joint's height over the last frames (or its change per frame, in a view that plots velocity), one
 * line per figure, the switch marked.
 */
function plot() {
  const canvas = $('plot');
  canvas.hidden = shown?.plotted === undefined;
  if (canvas.hidden) return;
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, canvas.width, canvas.height);
  const velocity = shown.view.plotVelocity;
  const series = shown.history.map((h) => (velocity ? h.slice(1).map((v, i) => v - h[i]) : h));
  const all = series.flat();
  const lo = Math.min(...all);
  const hi = Math.max(...all, lo + 1e-6);
  const y = (v) => canvas.height - 16 - (v - lo) / (hi - lo) * (canvas.height - 28);
  const x = (i) => 6 + i * (canvas.width - 12) / 240;
  if (shown.switchedAt !== null && shown.switchedAt >= 0) {
    g.strokeStyle = '#5c6672';
    g.beginPath();
    g.moveTo(x(shown.switchedAt), 0);
    g.lineTo(x(shown.switchedAt), canvas.height);
    g.stroke();
  }
  shown.figures.forEach((_, k) => {
    const h = series[k];
    g.strokeStyle = `#${shown.view.figures[k].color.toString(16).padStart(6, '0')}`;
    g.beginPath();
    h.forEach((v, i) => (i ? g.lineTo(x(i), y(v)) : g.moveTo(x(i), y(v))));
    g.stroke();
  });
  g.fillStyle = '#9aa4b0';
  const [a, b] = shown.view.figures.map(({ label }, k) => `${label}${shown.entered.length ? ` (${shown.entered[k].toFixed(2)} s)` : ''}`);
  const quantity = velocity ? 'vertical velocity' : 'height';
  g.fillText(`${shown.asset.jointName(shown.plotted)} ${quantity}: ${a} (blue), ${b} (orange)`, 8, canvas.height - 3);
}

const sinew = await loadSinew(await (await fetch('./sinew_ffi.wasm')).arrayBuffer());
const blobs = await (await fetch('./blobs.json')).json();
let shown = null;
let playing = !testMode;
let time = 0;

async function show(name) {
  $('error').textContent = '';
  const entry = blobs.find((b) => b.blob === name) ?? { blob: name };
  const next = await Shown.load(sinew, entry, $('mode').value);
  shown?.dispose();
  shown = next;
  for (const id of ['clip', 'second']) {
    $(id).replaceChildren(...Array.from({ length: shown.asset.clips }, (_, c) => new Option(`clip ${c}`, c)));
  }
  $('second').value = shown.second;
  $('speed').value = shown.speed;
  time = 0;
  shown.update(0);
  frameCamera();
  $('note').textContent = shown.scenery?.note() ?? shown.view.note ?? '';
  showKnots();
}

// A clip baked on knots (`sinew-bake bake --knots`) marks each knot in a strip under the time slider: where the
// motion turns they crowd, where it glides they thin out.
let knotTicks = [];
function showKnots() {
  const duration = shown.asset.clipDuration(shown.clip);
  knotTicks = Array.from(shown.asset.clipKnots(shown.clip), (t) => (duration > 0 ? t / duration : 0));
  const strip = $('knots');
  for (const element of [strip, strip.previousElementSibling]) element.hidden = knotTicks.length === 0;
  const g = strip.getContext('2d');
  g.clearRect(0, 0, strip.width, strip.height);
  // Translucent ticks: where knots crowd within a pixel the strip brightens.
  g.fillStyle = 'rgba(127, 209, 255, 0.35)';
  for (const tick of knotTicks) g.fillRect(Math.min(Math.round(tick * (strip.width - 1)), strip.width - 1), 0, 1, strip.height);
}

// Dragging a view's handle (a warp target, a look-at target) over the horizontal plane through it; the orbit
// controls pause meanwhile.
const raycaster = new THREE.Raycaster();
let dragging = null;
function pointerRay(event) {
  const box = renderer.domElement.getBoundingClientRect();
  const ndc = new THREE.Vector2((event.clientX - box.left) / box.width * 2 - 1, 1 - (event.clientY - box.top) / box.height * 2);
  raycaster.setFromCamera(ndc, camera);
  return raycaster.ray;
}
renderer.domElement.addEventListener('pointerdown', (event) => {
  const handles = shown?.scenery?.handles ?? [];
  if (handles.length === 0) return;
  pointerRay(event);
  const hit = raycaster.intersectObjects(handles, true)[0];
  if (!hit) return;
  dragging = handles.find((h) => h === hit.object || h.getObjectById(hit.object.id));
  controls.enabled = false;
});
renderer.domElement.addEventListener('pointermove', (event) => {
  if (!dragging) return;
  const plane = new THREE.Plane(new THREE.Vector3(0, 1, 0), -dragging.getWorldPosition(new THREE.Vector3()).y);
  const point = pointerRay(event).intersectPlane(plane, new THREE.Vector3());
  if (point) shown.scenery.drag(dragging, point);
});
addEventListener('pointerup', () => {
  dragging = null;
  controls.enabled = true;
});

/** Points the camera at the character's bounds (sinew_character_bounds), whatever its units. */
function frameCamera() {
  const joints = shown.bounds(0);
  // A mesh reaches past its joints (a head above the last neck joint): a margin of a quarter of the figure.
  const margin = shown.figures[0].meshes ? 0.25 * Math.max(...joints.max.map((v, k) => v - joints.min[k])) : 0;
  // A view with a world frames the world's part it uses; the others frame the figures side by side.
  const { min, max } = shown.scenery?.extent() ?? shown.bounds(margin);
  if (!shown.scenery) {
    const spread = Math.max(...shown.figures.map((f) => Math.abs(f.offset)));
    min[0] -= spread;
    max[0] += spread;
  }
  const center = new THREE.Vector3((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
  const size = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2], 1e-3);
  controls.target.copy(center);
  // Figures side by side need room around them; a world's box is the room already.
  const from = shown.scenery?.cameraFrom ?? new THREE.Vector3(0.8, 0.5, 1.0);
  camera.position.copy(center).add(from.clone().multiplyScalar((shown.scenery ? 1.1 : 2) * size));
  camera.near = size / 100;
  camera.far = size * 100;
  camera.updateProjectionMatrix();
  controls.update();
  grid.scale.setScalar(size);
  grid.position.set(center.x, min[1], center.z);
  grid.visible = !shown.scenery?.ground;
}

for (const { blob } of blobs) $('blob').append(new Option(blob, blob));
// A blob named in the address but not listed (a file of one's own, a test's broken fixture) is offered too.
const first = params.get('blob') ?? blobs[0].blob;
if (!blobs.some((b) => b.blob === first)) $('blob').append(new Option(first, first));
$('blob').value = first;
$('blob').onchange = () => show($('blob').value).catch(showError);
$('clip').onchange = () => { shown.clip = +$('clip').value; shown.play(time); showKnots(); };
$('second').onchange = () => { shown.second = +$('second').value; shown.play(time); };
$('blend').oninput = () => { shown.blend = +$('blend').value; shown.play(time); };
$('speed').oninput = () => { shown.speed = +$('speed').value; shown.play(time); };
$('scrub').oninput = () => {
  time = +$('scrub').value * shown.asset.clipDuration(shown.clip);
  shown.play(time);
  shown.update(0);
};
$('mode').value = params.get('mode') ?? 'one';
$('mode').onchange = () => show($('blob').value).catch(showError);
$('play').onclick = () => { playing = !playing; $('play').textContent = playing ? 'pause' : 'play'; };
$('switch').onclick = () => {
  shown.switchTo((shown.clip + 1) % shown.asset.clips);
  $('clip').value = shown.clip;
};

try {
  await show($('blob').value);
} catch (e) {
  showError(e);
}

function stats() {
  if (!shown) return;
  const extra = shown.scenery?.status?.();
  $('stats').textContent = `${shown.micros.toFixed(1)} µs per update in wasm (SIMD128) · ${shown.asset.joints} joints · `
    + `${shown.figures[0].bytes} bytes per character · ABI ${sinew.abiVersion()}`
    + `${knotTicks.length ? ` · ${knotTicks.length} knots` : ''}${extra ? ` · ${extra}` : ''}`;
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
  plot();
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
    // Renders the next frame with the drawings `which` asks for and returns the first figure's box (its joints',
    // grown by `margin` of its largest side, placed in the world) projected to the canvas, in pixels.
    draw({ bones = true, meshes = true, floor = true, margin = 0 } = {}) {
      shown.showing({ bones, meshes });
      grid.visible = floor;
      shown.update(1 / 30);
      renderer.render(scene, camera);
      const joints = shown.bounds(0);
      const size = Math.max(...joints.max.map((v, k) => v - joints.min[k]));
      const { min, max } = shown.bounds(margin * size);
      const placement = shown.figures[0].placement;
      const corners = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => new THREE.Vector3(
        k & 1 ? max[0] : min[0], k & 2 ? max[1] : min[1], k & 4 ? max[2] : min[2]).applyMatrix4(placement).project(camera));
      const { width, height } = renderer.domElement;
      const xs = corners.map((c) => (c.x + 1) / 2 * width);
      const ys = corners.map((c) => (1 - c.y) / 2 * height);
      return { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys), width, height };
    },
    /**
     * Root motion: moves the warp target to (x, z) (world, the character's units) and plays the segment to its
     * marker; returns the warped root there, the target, the clip's own root there, and the figure's placement
     * (column-major) on the last frame.
     */
    warp(x, z, frames) {
      const scenery = shown.scenery;
      scenery.drag(null, new THREE.Vector3(x, 0, z));
      for (let f = 0; f < frames; ++f) shown.update(1 / 30);
      renderer.render(scene, camera);
      const { segment } = scenery;
      return {
        atMarker: segment.at(segment.markerTime),
        target: segment.target,
        unwarped: segment.marker,
        placement: shown.figures[0].placement.toArray(),
        time: scenery.time,
      };
    },
    /**
     * Foot planting: `frames` frames; per frame and figure, each foot's lock, whether it reached, its ankle's
     * world height less the ground's there, and its model-space height (the animation's own, for a figure not
     * planted).
     */
    planting(frames) {
      const { scenery } = shown;
      const legs = scenery.legs.legs;
      const out = [];
      for (let f = 0; f < frames; ++f) {
        shown.update(1 / 30);
        out.push(scenery.figures.map(({ figure, report }) => {
          const model = figure.character.modelMatrices();
          return legs.map(([, , ankle], side) => {
            const world = new THREE.Vector3(model[16 * ankle + 12], model[16 * ankle + 13], model[16 * ankle + 14]).applyMatrix4(figure.placement);
            const clearance = world.y - scenery.field.height(world.x, world.z);
            return { lock: report.lock[side], reached: report.reached[side], clearance, animated: model[16 * ankle + 13] };
          });
        }));
      }
      renderer.render(scene, camera);
      return out;
    },
    /**
     * IK by interpolation: moves the look-at ball to (x, y, z) (model space), renders a frame, and returns the
     * aim's result with the direction it wanted.
     */
    aim(x, y, z) {
      const { scenery } = shown;
      scenery.ball.position.set(x, y, z);
      shown.update(1 / 30);
      renderer.render(scene, camera);
      return { ...scenery.result, wanted: scenery.wanted };
    },
    /**
     * Blend graph: sets the blend slider to `blend`, plays `frames` frames, and returns each leaf's decoded
     * frames before and after.
     */
    blendGraph(blend, frames) {
      const { scenery } = shown;
      shown.blend = blend;
      const before = [...scenery.decoded];
      for (let f = 0; f < frames; ++f) shown.update(1 / 30);
      renderer.render(scene, camera);
      return { before, after: [...scenery.decoded], status: scenery.status() };
    },
    /**
     * The shown clip's knots: how many, their ticks in the strip (fractions of the clip), whether the strip shows,
     * and the stats line; renders a frame.
     */
    knots() {
      stats();
      renderer.render(scene, camera);
      const count = knotTicks.length;
      return { count, ticks: [...knotTicks], strip: !$('knots').hidden, stats: $('stats').textContent };
    },
    /** Whether the blob's glTF meshes are drawn. */
    hasMeshes: () => shown.figures[0].meshes !== undefined,
    error: () => $('error').textContent,
    // `frames` frames; each figure's plotted joint height per frame.
    heights(frames) {
      for (let f = 0; f < frames; ++f) shown.update(1 / 30);
      plot();
      renderer.render(scene, camera);
      return shown.history;
    },
    // Switches the figures after `before` frames; returns each figure's plotted joint height per frame and
    // each figure's entry time in the new clip.
    transition(before, after) {
      for (let f = 0; f < before; ++f) shown.update(1 / 30);
      shown.switchTo((shown.clip + 1) % shown.asset.clips);
      for (let f = 0; f < after; ++f) shown.update(1 / 30);
      plot();
      renderer.render(scene, camera);
      return { heights: shown.history, entered: shown.entered, joint: shown.asset.jointName(shown.plotted) };
    },
  };
  window.sinewReady = true;
} else {
  requestAnimationFrame(frame);
}
