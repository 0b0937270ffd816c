// The views that put a character into a world: its root motion bent by a warp point toward a target the user
// drags, and foot planting on uneven ground with a look-at target. Each scenery owns what it adds to the
// scene, places its figures every frame (`step`, after the characters' update, before they are drawn) and
// names the objects the user may drag (`handles`, moved through `drag`).
import * as THREE from 'three';
import { findLegs, HeightField, rootMatrix, WarpSegment } from './world.mjs';

function line(points, color) {
  const geometry = new THREE.BufferGeometry().setFromPoints(points.map((p) => new THREE.Vector3(...p)));
  return new THREE.Line(geometry, new THREE.LineBasicMaterial({ color }));
}

/** A flat ring on the ground with a tick showing a facing: a target the user drags. */
function marker(size, color) {
  const group = new THREE.Group();
  const ring = new THREE.Mesh(new THREE.RingGeometry(0.12 * size, 0.17 * size, 32), new THREE.MeshBasicMaterial({ color, side: THREE.DoubleSide }));
  ring.rotation.x = -Math.PI / 2;
  const tick = new THREE.Mesh(new THREE.BoxGeometry(0.03 * size, 0.01 * size, 0.3 * size), new THREE.MeshBasicMaterial({ color }));
  tick.position.z = 0.15 * size;
  group.add(ring, tick);
  return group;
}

/** The ball the user drags for a look-at, at `position` (a figure's size across). */
function lookAtBall(size, position) {
  const ball = new THREE.Mesh(new THREE.SphereGeometry(0.06 * size, 16, 12), new THREE.MeshStandardMaterial({ color: 0xffe082, emissive: 0x5a4a10 }));
  ball.position.set(...position);
  return ball;
}

/**
 * What a figure draws from when a view computes its pose itself: the model matrices at `model` (`joints` of
 * them) in place of a character's. The page's controls (play, switch, the blend slider) call the character's
 * methods; here they do nothing, the view reading them from `shown` instead.
 */
function matricesOnly(sinew, model, joints) {
  return {
    modelMatrices: () => sinew.floats(model, 16 * joints),
    palette: () => new Float32Array(0),
    update: () => {},
    playSlot: () => {},
    crossfade: () => {},
    transitionSynced: () => 0,
    bounds: (radius, list) => {
      const m = sinew.floats(model, 16 * joints);
      const min = [Infinity, Infinity, Infinity];
      const max = [-Infinity, -Infinity, -Infinity];
      for (const j of list) {
        for (let c = 0; c < 3; ++c) {
          min[c] = Math.min(min[c], m[16 * j + 12 + c] - radius);
          max[c] = Math.max(max[c], m[16 * j + 12 + c] + radius);
        }
      }
      return { min, max };
    },
  };
}

/** The figure `figure` of `shown` drawn from `character` (its meshes dropped: they follow a palette). */
function drawFrom(shown, figure, character) {
  figure.meshes?.group.removeFromParent();
  figure.character = character;
  figure.meshes = undefined;
  if (shown.figures[0] === figure) shown.character = character;
}

function dispose(scene, objects) {
  for (const object of objects) {
    scene.remove(object);
    object.traverse((o) => {
      o.geometry?.dispose();
      o.material?.dispose();
    });
  }
}

/**
 * Root motion: the first figure walks one segment of its clip (up to 3 s) from the origin, its path drawn
 * on the ground as the clip has it (grey) and as a warp point bends it to the target (blue); the segment
 * starts over at its end.
 */
export class RootMotionScenery {
  constructor({ shown, scene, size }) {
    this.shown = shown;
    this.scene = scene;
    this.size = size;
    this.figure = shown.figures[0];
    const asset = shown.asset;
    const markerTime = Math.min(asset.clipDuration(shown.clip), 3);
    this.segment = new WarpSegment(asset.sinew, asset, shown.clip, markerTime);
    const [mx, , mz] = this.segment.marker.translation;
    this.moves = Math.hypot(mx, mz) > 0.05 * size;
    // The target starts 35° off the clip's own end, so the bend shows before anyone drags it.
    const turn = 35 * Math.PI / 180;
    this.segment.aimAt([mx * Math.cos(turn) + mz * Math.sin(turn), 0, mz * Math.cos(turn) - mx * Math.sin(turn)]);
    this.target = marker(size, 0x7fd1ff);
    this.handles = [this.target];
    this.time = 0;
    this.redraw();
  }

  /** What the view says about the blob (a clip without root motion walks nowhere). */
  note() {
    return this.moves ? '' : 'this clip has no root motion: bake it with --root-motion to see a path';
  }

  /** The world box the view uses: both paths and the target, a figure's height above them. */
  extent() {
    const points = [...this.segment.path(16, false), ...this.segment.path(16, true), this.segment.target.translation];
    const min = [0, 1, 2].map((c) => Math.min(...points.map((p) => p[c])));
    const max = [0, 1, 2].map((c) => Math.max(...points.map((p) => p[c])));
    max[1] += this.size;
    return { min, max };
  }

  redraw() {
    dispose(this.scene, [this.paths, this.target].filter(Boolean));
    this.paths = new THREE.Group();
    this.paths.add(line(this.segment.path(64, false), 0x5c6672), line(this.segment.path(64, true), 0x7fd1ff));
    const { translation: [x, y, z], yaw } = this.segment.target;
    this.target.position.set(x, y, z);
    this.target.rotation.y = yaw;
    this.scene.add(this.paths, this.target);
  }

  drag(_handle, point) {
    this.segment.aimAt([point.x, 0, point.z]);
    this.redraw();
  }

  /** The segment's clock follows the character's; at the segment's end both start over. */
  seek(time) {
    this.time = time;
  }

  step(dt, speed) {
    this.time += dt * speed;
    if (this.time >= this.segment.markerTime) {
      this.time -= this.segment.markerTime;
      this.shown.play(this.time);
      this.shown.figures.forEach((f) => f.character.update(0));
    }
    this.figure.placement.copy(rootMatrix(this.segment.at(this.time)));
  }

  dispose() {
    dispose(this.scene, [this.paths, this.target]);
  }
}

/** How far from the middle of the ground the planting view's figures walk before they start over, in figures. */
const REACH = 1.4;

/**
 * Foot planting: the figures walk by their root motion over rolling ground, the first with its feet planted on
 * it (`sinew_character_plant_feet`, the ground answered at `sinew_character_foot_probes`' points), the second
 * as the animation has it; both heads aim at a target the user drags (`sinew_character_aim_ik`). A figure
 * that walks off the ground starts over.
 */
export class PlantingScenery {
  constructor({ shown, scene, size }) {
    this.shown = shown;
    this.scene = scene;
    this.size = size;
    const asset = shown.asset;
    this.legs = findLegs(asset);
    this.head = asset.findJoint(/^head$/i);
    this.field = new HeightField(0.1 * size, 1.4 * size);
    this.ground = this.field.mesh(2 * (REACH + 0.6) * size, 64);
    this.look = lookAtBall(size, [0, 0.9 * size, 1.2 * size]);
    this.handles = [this.look];
    scene.add(this.ground, this.look);
    // The clip's direction of travel, model space: the heads' forward before any aim.
    const travel = asset.clipMotionBetween(shown.clip, 0, asset.clipDuration(shown.clip)).translation;
    const length = Math.hypot(travel[0], travel[2]);
    this.travel = length > 0 ? new THREE.Vector3(travel[0] / length, 0, travel[2] / length) : new THREE.Vector3(0, 0, 1);
    this.figures = shown.figures.map((figure, k) => ({
      figure,
      planted: k === 0,
      planter: asset.sinew.reserve(48),
      world: null,
      report: null,
    }));
    this.figures.forEach((f) => this.restart(f));
    // From the side of the walk, so both figures cross the view.
    this.cameraFrom = new THREE.Vector3(this.travel.z, 0.8, -this.travel.x).multiplyScalar(1.2).addScaledVector(this.travel, 0.3);
  }

  note() {
    if (!this.legs) return 'no legs found by name (Foot_L, LFoot, LeftFoot…): the feet are not planted';
    return '';
  }

  /** Back to the start: the far edge of the ground, a fresh planter (zeroed: nothing planted yet). */
  restart(f) {
    const start = this.travel.clone().multiplyScalar(-REACH * this.size).add(new THREE.Vector3(f.figure.offset, 0, 0));
    f.world = { translation: [start.x, this.field.height(start.x, start.z), start.z], yaw: 0 };
    new Uint8Array(this.shown.asset.sinew.memory.buffer, f.planter, 48).fill(0);
  }

  /** The ground the figures cross, a figure's height above it. */
  extent() {
    const a = this.travel.clone().multiplyScalar(-REACH * this.size);
    const b = this.travel.clone().multiplyScalar(REACH * this.size);
    const spread = Math.max(...this.figures.map((f) => Math.abs(f.figure.offset)));
    return {
      min: [Math.min(a.x, b.x) - spread, -this.field.amplitude, Math.min(a.z, b.z)],
      max: [Math.max(a.x, b.x) + spread, this.size, Math.max(a.z, b.z)],
    };
  }

  drag(_handle, point) {
    this.look.position.set(point.x, this.look.position.y, point.z);
  }

  step(dt) {
    for (const f of this.figures) this.walk(f, dt);
  }

  /** One frame of one figure: root motion onto the ground, feet planted, head aimed, figure placed. */
  walk(f, dt) {
    const { character } = f.figure;
    const motion = character.rootMotion();
    const turn = new THREE.Matrix4().makeRotationY(f.world.yaw);
    const step = new THREE.Vector3(...motion.translation).applyMatrix4(turn);
    let [x, , z] = f.world.translation;
    x += step.x;
    z += step.z;
    f.world = { translation: [x, this.field.height(x, z), z], yaw: f.world.yaw + motion.yaw };
    const along = new THREE.Vector3(x - f.figure.offset, 0, z).dot(this.travel);
    if (along > REACH * this.size) this.restart(f);
    const world = rootMatrix(f.world);
    if (this.legs) {
      const request = { pelvis: this.legs.pelvis, legs: this.legs.legs, world: world.toArray(), dt, weight: f.planted ? 1 : 0 };
      const probes = character.footProbes(f.planter, request);
      request.groundHeight = probes.map(([px, , pz]) => this.field.height(px, pz));
      request.groundNormal = probes.map(([px, , pz]) => this.field.normal(px, pz));
      request.planted = this.legs.names.map((name) => character.rangeWeight(0, `plant:${name}`) > 0.5);
      f.report = character.plantFeet(f.planter, request);
    }
    if (this.head >= 0) this.aim(character, world);
    f.figure.placement.copy(world);
  }

  /** Turns the head toward the look target, its forward the clip's travel direction in its own frame. */
  aim(character, world) {
    const model = character.modelMatrices();
    const head = new THREE.Matrix4().fromArray(model, 16 * this.head);
    const forward = this.travel.clone().transformDirection(head.clone().invert());
    const target = this.look.position.clone().applyMatrix4(world.clone().invert());
    character.aim({ joint: this.head, forward: forward.toArray(), target: target.toArray(), maxAngle: 1.2, weight: 1 });
  }

  dispose() {
    dispose(this.scene, [this.ground, this.look]);
  }
}

/** Aim-pose grid of the aim view: yaw and pitch of each row and column, degrees. */
const AIM_GRID = [-60, -30, 0, 30, 60];
/** The joints the aim poses turn, a third each, and the one that aims. */
const AIM_SPINE = ['Spine', 'Chest', 'Neck'];

/**
 * IK by interpolation (`sinew_aim_blend`): 25 aim poses made from the rest pose by turning Spine, Chest and Neck
 * on a ±60° grid, blended every frame so the Head looks at the ball the user drags, three corrections a frame.
 * The first figure shows the blend (its clip is not drawn); skeletons without those joints keep their clip.
 */
export class AimScenery {
  constructor({ shown, scene, size }) {
    this.shown = shown;
    this.scene = scene;
    this.size = size;
    const asset = shown.asset;
    this.asset = asset;
    const find = (name) => asset.findJoint(new RegExp(`^${name}$`, 'i'));
    this.spine = AIM_SPINE.map(find);
    this.head = find('Head');
    this.ball = lookAtBall(size, [0.5 * size, 0.9 * size, 1.0 * size]);
    this.handles = [this.ball];
    scene.add(this.ball);
    this.result = null;
    if (this.head < 0 || this.spine.some((j) => j < 0)) return;
    this.build();
  }

  /** The aim poses, their measured angles, and the buffers the blend writes; the figure drawn from them. */
  build() {
    const { asset } = this;
    const s = asset.sinew;
    const rest = asset.restPoseCopy();
    this.model = s.reserve(64 * asset.joints);
    asset.localToModel(rest, this.model);
    const restModel = (j) => new THREE.Matrix4().fromArray(s.floats(this.model, 16 * asset.joints), 16 * j);
    // The head's axis along model +Z at rest; each spine turn seen from the joint's parent at rest.
    this.forward = new THREE.Vector3(0, 0, 1).transformDirection(restModel(this.head).invert()).toArray();
    const parentRotation = this.spine.map((j) => {
      const p = asset.jointParent(j);
      return p < 0 ? new THREE.Quaternion() : new THREE.Quaternion().setFromRotationMatrix(restModel(p));
    });
    const degrees = AIM_GRID.map((d) => d * Math.PI / 180);
    this.poses = [];
    for (const pitch of degrees) {
      for (const yaw of degrees) {
        const pose = asset.restPoseCopy();
        const turn = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 1, 0), yaw / 3)
          .multiply(new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(-1, 0, 0), pitch / 3));
        this.spine.forEach((j, k) => {
          const t = asset.poseJoint(pose, j);
          const parent = parentRotation[k];
          const q = parent.clone().invert().multiply(turn).multiply(parent).multiply(new THREE.Quaternion(...t.rotation));
          asset.setPoseJoint(pose, j, { ...t, rotation: [q.x, q.y, q.z, q.w] });
        });
        this.poses.push(pose);
      }
    }
    // Labelled as an animator would: each column's yaw along the middle row, each row's pitch down the middle.
    const angles = (pose) => {
      asset.localToModel(pose, this.model);
      const d = new THREE.Vector3(...this.forward).transformDirection(restModel(this.head));
      return [Math.atan2(d.x, d.z), Math.asin(Math.min(1, Math.max(-1, d.y)))];
    };
    const n = AIM_GRID.length;
    this.yaws = AIM_GRID.map((_, y) => angles(this.poses[2 * n + y])[0]);
    this.pitches = AIM_GRID.map((_, p) => angles(this.poses[p * n + 2])[1]);
    this.pose = asset.restPoseCopy();
    // The figure (and the view's bounds) read the blend's matrices instead of the character's.
    drawFrom(this.shown, this.shown.figures[0], matricesOnly(s, this.model, asset.joints));
    this.step();
  }

  note() {
    if (!this.poses) return 'no Spine, Chest, Neck and Head by name: the aim view needs them (try example.snw)';
    return 'IK by interpolation: 25 aim poses blended so the head looks at the ball (drag it)';
  }

  /** The last aim's error and grid parameters, for the stats line. */
  status() {
    const r = this.result;
    return r ? `aim error ${(r.error * 180 / Math.PI).toFixed(3)}° at grid (${r.parameters.map((p) => p.toFixed(2)).join(', ')})` : '';
  }

  extent() {
    const { min, max } = this.shown.bounds(0);
    const b = this.ball.position;
    return { min: [Math.min(min[0], b.x), Math.min(min[1], 0), Math.min(min[2], b.z)], max: [Math.max(max[0], b.x), Math.max(max[1], b.y), Math.max(max[2], b.z)] };
  }

  drag(_handle, point) {
    this.ball.position.set(point.x, this.ball.position.y, point.z);
  }

  /** The blend toward the ball, from where the head stood last frame. */
  step() {
    if (!this.poses) return;
    const { asset } = this;
    const m = asset.sinew.floats(this.model, 16 * asset.joints);
    const head = new THREE.Vector3(m[16 * this.head + 12], m[16 * this.head + 13], m[16 * this.head + 14]);
    const direction = this.ball.position.clone().sub(head);
    this.result = asset.sinew.aimBlend(asset, {
      poses: this.poses, yaws: this.yaws, pitches: this.pitches, joint: this.head, forward: this.forward,
      direction: direction.toArray(), iterations: 3,
    }, this.pose, asset.soaJoints(), this.model, asset.joints);
    this.wanted = direction.normalize().toArray();
  }

  dispose() {
    dispose(this.scene, [this.ball]);
  }
}

/**
 * A blend graph (`sinew_blend_graph_*`): a 1-D blend space over the clip and the "blend with" clip, at the blend
 * slider, the two clocks synced by normalized time (each clip one cycle over the blended duration). The graph
 * reads only the clips the slider reaches: at either end the other clip is not decoded, and the status line shows
 * each leaf's decoded frames, the unread one's resting.
 */
export class BlendScenery {
  constructor({ shown, scene, size }) {
    this.shown = shown;
    this.scene = scene;
    this.size = size;
    this.handles = [];
    const asset = shown.asset;
    const s = asset.sinew;
    this.asset = asset;
    this.graph = s.blendGraph(asset, [
      { kind: 'clip', leaf: 0 },
      { kind: 'clip', leaf: 1 },
      { kind: 'space1d', children: [0, 1], positions: [0, 1], weight: 0 },
    ], 1);
    this.pose = asset.restPoseCopy();
    // A blob baked with root motion: its motion root carries the travel, which a game moves the character by;
    // the figure stays where it stands, as a character's pose does.
    this.motionRoot = asset.jointName(0) === 'motion_root' ? asset.poseJoint(this.pose, 0) : null;
    this.model = s.reserve(64 * asset.joints);
    this.phase = 0;
    this.decoded = [0, 0];
    this.resting = [false, false];
    drawFrom(shown, shown.figures[0], matricesOnly(s, this.model, asset.joints));
    this.step(0, 0);
  }

  note() {
    return 'Blend graph: a 1-D blend space between the clip and the "blend with" clip at the blend slider; '
      + 'a clip the slider leaves unread is not decoded';
  }

  /** Each leaf's clip and decoded frames, the unread one marked. */
  status() {
    const leaves = this.clips().map((clip, k) => `clip ${clip} ${this.decoded[k]}${this.resting[k] ? ' (resting)' : ''}`);
    return `frames decoded: ${leaves.join(', ')}`;
  }

  clips() {
    return [this.shown.clip, this.shown.second];
  }

  /** The figure's box with half its size of room around it, the ground included. */
  extent() {
    const { min, max } = this.shown.bounds(0);
    const room = 0.5 * Math.max(...max.map((v, k) => v - min[k]));
    return { min: [min[0] - room, Math.min(min[1], 0), min[2] - room], max: max.map((v) => v + room) };
  }

  seek(time) {
    this.phase = (time / Math.max(this.asset.clipDuration(this.shown.clip), 1e-3)) % 1;
  }

  drag() {}

  /** One frame: both clocks on by `dt`, the graph evaluated at the slider, the figure posed. */
  step(dt, speed) {
    const { asset, shown } = this;
    const clips = this.clips();
    const durations = clips.map((clip) => Math.max(asset.clipDuration(clip), 1e-3));
    const blend = Math.min(1, Math.max(0, shown.blend));
    this.phase = (this.phase + dt * speed / (durations[0] + (durations[1] - durations[0]) * blend)) % 1;
    const leaves = clips.map((clip, k) => ({ clip, time: this.phase * durations[k] }));
    this.graph.evaluate(leaves, [blend], this.pose, asset.soaJoints());
    if (this.motionRoot) asset.setPoseJoint(this.pose, 0, this.motionRoot);
    asset.localToModel(this.pose, this.model);
    const decoded = [0, 1].map((leaf) => this.graph.decodedFrames(leaf));
    this.resting = decoded.map((d, k) => dt > 0 && d === this.decoded[k]);
    this.decoded = decoded;
  }

  dispose() {}
}
