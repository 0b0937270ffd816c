// sinew in the browser and in Node: the C ABI of `sinew-ffi` built for wasm32 with SIMD128, called as it is (no
// bindings generator). The module's memory holds the blobs, the assets and the characters, each laid out by the
// C ABI in pages `sinew_web_reserve` grows; this file only moves bytes in and out and turns statuses into
// errors carrying the library's message.

const ASSET_SIZE = 1280; // SINEW_ASSET_SIZE
const BLOB_ALIGN = 16; // SINEW_BLOB_ALIGN
const LAYER_DESC_SIZE = 8; // sinew_layer_desc: kind, controls
const CHARACTER_DESC_SIZE = 28; // sinew_character_desc on wasm32: a 4-byte pointer and six u32
export const LAYER_BASE = 0;
export const LAYER_OVERLAY = 1;
export const INERTIALIZATION_NONE = 0;
export const INERTIALIZATION_DEFAULT = 1;
export const WRAP_LOOP = 0;
export const WRAP_CLAMP = 1;
export const SYNC_NONE = 0;
export const SYNC_PHASE = 1;
export const SYNC_FOOT_PHASE = 2;
/** A flag of a character's `sampling`: a Catmull-Rom spline through the keys (C1) instead of a lerp of two. */
export const SAMPLING_CUBIC = 0x100;
// Where calls' argument structs are written in the scratch page (results use its first 64 bytes).
const ARGS = 512;
const REPORT = 1024;
const NAME = 1536;
const AIM = 2048;

/** `sinew_blend_node::kind` by name (`SINEW_BLEND_NODE_*`). */
export const BLEND_NODE = { clip: 0, lerp: 1, sum: 2, additive: 3, space1d: 4, space2d: 5, chunks: 6 };
// The graph structs on wasm32: sinew_blend_node (eight u32, six pointers), sinew_blend_graph_desc (a pointer,
// four u32), sinew_blend_leaf (clip, wrap, time, reserved).
const BLEND_NODE_SIZE = 56;
const BLEND_DESC_SIZE = 20;
const BLEND_LEAF_SIZE = 16;

/** A status other than SINEW_OK, with the library's message. */
export class SinewError extends Error {
  constructor(sinew, what, status) {
    super(`${what}: ${sinew.message(status)} (status ${status})`);
    this.status = status;
  }
}

/** Instantiates the library from its wasm bytes. */
export async function loadSinew(wasmBytes) {
  let memory = null;
  const imports = {
    env: {
      // The library aborts only on a bug (every input is checked first).
      abort() {
        throw new Error('sinew aborted: a bug in the library');
      },
    },
  };
  const { instance } = await WebAssembly.instantiate(wasmBytes, imports);
  memory = instance.exports.memory;
  return new Sinew(instance.exports, memory);
}

export class Sinew {
  constructor(exports, memory) {
    this.c = exports;
    this.memory = memory;
    // Scratch for calls' outputs: one reserved page, reused.
    this.scratch = this.reserve(4096);
  }

  abiVersion() {
    return this.c.sinew_abi_version();
  }

  /** The library's message for a status. */
  message(status) {
    const at = this.c.sinew_status_message(status);
    const bytes = new Uint8Array(this.memory.buffer, at);
    return new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0)));
  }

  check(what, status) {
    if (status !== 0) throw new SinewError(this, what, status);
  }

  /** `bytes` of fresh memory, 64 KiB aligned. */
  reserve(bytes) {
    const at = this.c.sinew_web_reserve(bytes);
    if (at === 0) throw new Error(`sinew: cannot grow the wasm memory by ${bytes} bytes`);
    return at;
  }

  u32(at) {
    return new DataView(this.memory.buffer).getUint32(at, true);
  }

  f32(at) {
    return new DataView(this.memory.buffer).getFloat32(at, true);
  }

  /** `count` floats at `at`, viewed (valid until the memory grows). */
  floats(at, count) {
    return new Float32Array(this.memory.buffer, at, count);
  }

  /** Writes numbers at `at` as consecutive 4-byte fields: integers as u32 where `ints` marks them, else f32. */
  write(at, values, ints = []) {
    const view = new DataView(this.memory.buffer);
    values.forEach((v, k) => (ints.includes(k) ? view.setUint32(at + 4 * k, v, true) : view.setFloat32(at + 4 * k, v, true)));
  }

  /** `count` f32 fields at `at`, copied out. */
  read(at, count) {
    return Array.from(this.floats(at, count));
  }

  /**
   * A warp point (Gears of War 4) applied to an unwarped root `{ translation: [x, y, z], yaw }` at clip time
   * `time`: `warp` is `{ marker, target, markerTime, windows: [[start, end] × 3] }` (translation, rotation,
   * facing), `marker` and `target` roots as above.
   */
  warpPointApply(warp, unwarped, time) {
    const at = this.scratch + ARGS;
    const root = (r) => [...r.translation, r.yaw];
    this.write(at, [...root(warp.marker), ...root(warp.target), warp.markerTime, ...warp.windows.flat()]);
    this.write(at + 64, root(unwarped));
    this.check('warp point', this.c.sinew_warp_point_apply(at, at + 64, time, at + 96));
    const [x, y, z, yaw] = this.read(at + 96, 4);
    return { translation: [x, y, z], yaw };
  }

  /**
   * IK by interpolation (`sinew_aim_blend`): `poses` (addresses of pose buffers, `num_yaws * num_pitches`, on a
   * grid of `yaws` × `pitches` radians) blended to aim `joint`'s `forward` axis along `direction`, written to
   * `pose` (`count` lane groups) and `model` (`numMatrices`). Returns `{ parameters, achieved, error }`.
   */
  aimBlend(asset, { poses, yaws, pitches, joint, forward, direction, iterations }, pose, count, model, numMatrices) {
    const at = this.scratch + AIM;
    const lists = at + 64;
    const view = new DataView(this.memory.buffer);
    poses.forEach((p, k) => view.setUint32(lists + 4 * k, p, true));
    const angles = lists + 4 * poses.length;
    [...yaws, ...pitches].forEach((a, k) => view.setFloat32(angles + 4 * k, a, true));
    // sinew_aim_blend_request on wasm32: three pointers, three u32, two float[3], a u32 (52 bytes).
    this.write(at, [lists, angles, angles + 4 * yaws.length, yaws.length, pitches.length, joint, ...forward, ...direction,
      iterations], [0, 1, 2, 3, 4, 5, 12]);
    const result = at + 56;
    this.check('aim blend', this.c.sinew_aim_blend(asset.handle, at, pose, count, model, numMatrices, result));
    const [u, v, x, y, z, error] = this.read(result, 6);
    return { parameters: [u, v], achieved: [x, y, z], error };
  }

  /**
   * A blend graph (`sinew_blend_graph_*`) on `asset`'s skeleton: `nodes` in order, children first, the last the
   * root, each `{ kind, leaf, a, b, weight, y, children, positions }` (`kind` a `BLEND_NODE` name; the fields a
   * kind does not read may be left out; masks, references, sums and triangles are not offered here), reading
   * `numParams` parameters.
   */
  blendGraph(asset, nodes, numParams) {
    const lists = nodes.map((n) => [...(n.children ?? []), ...(n.positions ?? [])].length);
    const at = this.reserve(BLEND_DESC_SIZE + BLEND_NODE_SIZE * nodes.length + 4 * lists.reduce((a, b) => a + b, 0));
    const view = new DataView(this.memory.buffer);
    let list = at + BLEND_DESC_SIZE + BLEND_NODE_SIZE * nodes.length;
    nodes.forEach((n, k) => {
      const node = at + BLEND_DESC_SIZE + BLEND_NODE_SIZE * k;
      const children = n.children ?? [];
      const positions = n.positions ?? [];
      children.forEach((c, i) => view.setUint32(list + 4 * i, c, true));
      positions.forEach((p, i) => view.setFloat32(list + 4 * (children.length + i), p, true));
      const kind = BLEND_NODE[n.kind];
      if (kind === undefined) throw new Error(`blend graph: node ${k} has no kind ${n.kind}`);
      this.write(node, [kind, n.leaf ?? 0, n.a ?? 0, n.b ?? 0, n.weight ?? 0, n.y ?? 0, children.length, 0,
        0, 0, 0, children.length ? list : 0, positions.length ? list + 4 * children.length : 0, 0],
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
      list += 4 * (children.length + positions.length);
    });
    // Interpolation linear, no decoders kept.
    this.write(at, [at + BLEND_DESC_SIZE, nodes.length, numParams, 0, 0], [0, 1, 2, 3, 4]);
    const leaves = nodes.reduce((count, n) => count + (n.kind === 'clip' ? 1 : n.kind === 'chunks' ? n.children.length : 0), 0);
    return new BlendGraph(this, asset, at, leaves, numParams);
  }

  /** Loads a baked blob (its bytes are copied into the module's memory, aligned). */
  loadAsset(blob) {
    const bytes = blob instanceof Uint8Array ? blob : new Uint8Array(blob);
    const at = this.reserve(bytes.length + BLOB_ALIGN);
    new Uint8Array(this.memory.buffer, at, bytes.length).set(bytes);
    const asset = this.reserve(ASSET_SIZE);
    this.check('loading the blob', this.c.sinew_asset_load(at, bytes.length, asset));
    return new Asset(this, asset);
  }
}

/** A blend graph's state in the module's memory and the description it was made from (see `Sinew.blendGraph`). */
export class BlendGraph {
  constructor(sinew, asset, desc, leaves, numParams) {
    this.sinew = sinew;
    this.asset = asset;
    this.desc = desc;
    this.leaves = leaves;
    this.numParams = numParams;
    const s = sinew;
    s.check('blend graph size', s.c.sinew_blend_graph_required_bytes(asset.handle, desc, s.scratch));
    const bytes = s.u32(s.scratch);
    this.memory = s.reserve(bytes);
    s.check('blend graph', s.c.sinew_blend_graph_init(this.memory, bytes, asset.handle, desc, s.scratch));
    this.handle = s.u32(s.scratch);
    this.args = s.reserve(BLEND_LEAF_SIZE * leaves + 4 * numParams);
  }

  /**
   * The root's pose into `pose` (`count` lane groups): leaf `l` samples `leaves[l] = { clip, time, wrap }`
   * (seconds; `WRAP_LOOP` unless given), the parameters `params`.
   */
  evaluate(leaves, params, pose, count) {
    const s = this.sinew;
    // The arguments' room was sized for the graph: other counts are refused before anything is written.
    if (leaves.length !== this.leaves || params.length !== this.numParams) {
      throw new Error(`blend graph: ${leaves.length} leaves and ${params.length} parameters given, `
        + `the graph takes ${this.leaves} and ${this.numParams}`);
    }
    const paramsAt = this.args + BLEND_LEAF_SIZE * this.leaves;
    leaves.forEach(({ clip, time, wrap = WRAP_LOOP }, k) => s.write(this.args + BLEND_LEAF_SIZE * k, [clip, wrap, time, 0], [0, 1, 3]));
    s.write(paramsAt, params);
    s.check('blend graph evaluation', s.c.sinew_blend_graph_evaluate(this.handle, this.asset.handle, this.desc,
      this.args, leaves.length, paramsAt, params.length, pose, count));
  }

  /** Frames leaf `leaf` has decoded since the graph was made (an unread leaf's count rests). */
  decodedFrames(leaf) {
    const s = this.sinew;
    s.check('decoded frames', s.c.sinew_blend_graph_decoded_frames(this.handle, leaf, s.scratch));
    return Number(new DataView(s.memory.buffer).getBigUint64(s.scratch, true));
  }
}

export class Asset {
  constructor(sinew, handle) {
    this.sinew = sinew;
    this.handle = handle;
    this.joints = this.count('sinew_asset_num_joints');
    this.clips = this.count('sinew_asset_num_clips');
    this.skinJoints = this.count('sinew_asset_num_skin_joints');
  }

  count(call) {
    const s = this.sinew;
    s.check(call, s.c[call](this.handle, s.scratch));
    return s.u32(s.scratch);
  }

  clipDuration(clip) {
    const s = this.sinew;
    s.check('clip duration', s.c.sinew_asset_clip_duration(this.handle, clip, s.scratch));
    return s.f32(s.scratch);
  }

  /** Clip `clip`'s knot times in seconds (a copy), or an empty array for a clip with uniform frames. */
  clipKnots(clip) {
    const s = this.sinew;
    s.check('clip knots', s.c.sinew_asset_clip_knots(this.handle, clip, s.scratch, s.scratch + 4));
    const [at, count] = [s.u32(s.scratch), s.u32(s.scratch + 4)];
    return count === 0 ? new Float32Array(0) : new Float32Array(s.memory.buffer, at, count).slice();
  }

  jointName(joint) {
    const s = this.sinew;
    s.check('joint name', s.c.sinew_asset_joint_name(this.handle, joint, s.scratch, s.scratch + 4));
    const [at, len] = [s.u32(s.scratch), s.u32(s.scratch + 4)];
    return new TextDecoder().decode(new Uint8Array(s.memory.buffer, at, len));
  }

  /** The first joint whose name matches `pattern`, or -1. */
  findJoint(pattern) {
    for (let j = 0; j < this.joints; ++j) if (pattern.test(this.jointName(j))) return j;
    return -1;
  }

  /** The root's motion over clip time `[start, end]` (`sinew_clip_motion_between`): `{ translation, yaw }`. */
  clipMotionBetween(clip, start, end) {
    const s = this.sinew;
    const at = s.scratch + ARGS;
    s.check('clip motion', s.c.sinew_clip_motion_between(this.handle, clip, start, end, at));
    const [x, y, z, yaw] = s.read(at, 4);
    return { translation: [x, y, z], yaw };
  }

  /** Lane groups of a pose of this skeleton (`sinew_asset_num_soa_joints`). */
  soaJoints() {
    const s = this.sinew;
    s.check('lane groups', s.c.sinew_asset_num_soa_joints(this.handle, s.scratch));
    return s.u32(s.scratch);
  }

  /** A fresh pose buffer (160 bytes a lane group) holding the rest pose. */
  restPoseCopy() {
    const s = this.sinew;
    s.check('rest pose', s.c.sinew_asset_rest_pose(this.handle, s.scratch, s.scratch + 4));
    const [at, count] = [s.u32(s.scratch), s.u32(s.scratch + 4)];
    const pose = s.reserve(160 * count);
    new Uint8Array(s.memory.buffer, pose, 160 * count).set(new Uint8Array(s.memory.buffer, at, 160 * count));
    return pose;
  }

  /** Joint `joint` of the pose at `pose`: `{ translation: [3], rotation: [x, y, z, w], scale: [3] }`. */
  poseJoint(pose, joint) {
    const s = this.sinew;
    s.check('pose joint', s.c.sinew_pose_joint(pose, this.soaJoints(), joint, s.scratch + ARGS));
    const v = s.read(s.scratch + ARGS, 10);
    return { translation: v.slice(0, 3), rotation: v.slice(3, 7), scale: v.slice(7, 10) };
  }

  /** Sets joint `joint` of the pose at `pose` (as `poseJoint` gives it). */
  setPoseJoint(pose, joint, { translation, rotation, scale }) {
    const s = this.sinew;
    s.write(s.scratch + ARGS, [...translation, ...rotation, ...scale]);
    s.check('set pose joint', s.c.sinew_pose_set_joint(pose, this.soaJoints(), joint, s.scratch + ARGS));
  }

  /** Model matrices of the pose at `pose` into `model` (64 bytes a joint, 32-byte aligned). */
  localToModel(pose, model) {
    const s = this.sinew;
    s.check('local to model', s.c.sinew_local_to_model(this.handle, pose, this.soaJoints(), 0, model, this.joints));
  }

  jointParent(joint) {
    const s = this.sinew;
    s.check('joint parent', s.c.sinew_asset_joint_parent(this.handle, joint, s.scratch));
    return new DataView(s.memory.buffer).getInt32(s.scratch, true);
  }

  /**
   * A character of this asset. `layers`: [{ kind, controls }], layer 0 the base.
   */
  createCharacter({ layers = [{ kind: LAYER_BASE, controls: 1 }], masks = 0, curves = 0,
    inertialization = INERTIALIZATION_DEFAULT, skinned = this.skinJoints > 0, sampling = 0 } = {}) {
    const s = this.sinew;
    const descAt = s.scratch + 64;
    const layersAt = descAt + CHARACTER_DESC_SIZE + 4;
    const view = new DataView(s.memory.buffer);
    layers.forEach((layer, k) => {
      view.setUint32(layersAt + LAYER_DESC_SIZE * k, layer.kind, true);
      view.setUint32(layersAt + LAYER_DESC_SIZE * k + 4, layer.controls, true);
    });
    [layersAt, layers.length, masks, curves, inertialization, skinned ? 1 : 0, sampling].forEach((v, k) =>
      view.setUint32(descAt + 4 * k, v, true));
    s.check('sizing the character', s.c.sinew_character_required_bytes(this.handle, descAt, s.scratch));
    const bytes = s.u32(s.scratch);
    const memory = s.reserve(bytes);
    s.check('laying out the character', s.c.sinew_character_init(memory, bytes, this.handle, descAt, s.scratch));
    return new Character(this, s.u32(s.scratch), bytes);
  }
}

export class Character {
  constructor(asset, handle, bytes) {
    this.asset = asset;
    this.sinew = asset.sinew;
    this.handle = handle;
    this.bytes = bytes;
  }

  play(layer, clip, time = 0, speed = 1, weight = 1) {
    const s = this.sinew;
    s.check('play', s.c.sinew_character_play(this.handle, this.asset.handle, layer, clip, time, speed, weight));
  }

  /** A clip in a slot: { layer, slot, clip, time, speed, weight, wrap, mask } (sinew_play; mask -1: none). */
  playSlot({ layer = 0, slot = 0, clip, time = 0, speed = 1, weight = 1, wrap = WRAP_LOOP, mask = -1 }) {
    const s = this.sinew;
    const at = s.scratch + 256;
    const view = new DataView(s.memory.buffer);
    [layer, slot, clip].forEach((v, k) => view.setUint32(at + 4 * k, v, true));
    [time, speed, weight].forEach((v, k) => view.setFloat32(at + 12 + 4 * k, v, true));
    view.setUint32(at + 24, wrap, true);
    view.setUint32(at + 28, mask >>> 0, true);
    s.check('play', s.c.sinew_character_play_slot(this.handle, this.asset.handle, at));
  }

  /** An inertialized switch of the base (duration 0: a cut). */
  transition(clip, time, speed, duration) {
    const s = this.sinew;
    s.check('transition', s.c.sinew_character_transition(this.handle, this.asset.handle, clip, time, speed, duration));
  }

  /** A crossfade of the base (duration 0: a cut): both clips sampled and blended meanwhile. */
  crossfade(clip, time, speed, duration) {
    const s = this.sinew;
    s.check('crossfade', s.c.sinew_character_crossfade(this.handle, this.asset.handle, clip, time, speed, duration));
  }

  /**
   * An inertialized switch of the base entering `clip` where `sync` (a `SYNC_*`) says; returns the start time
   * used (`time` when the clips match nothing).
   */
  transitionSynced(clip, time, speed, duration, sync) {
    const s = this.sinew;
    const c = s.c;
    s.check('transition', c.sinew_character_transition_synced(this.handle, this.asset.handle, clip, time, speed, duration, sync, s.scratch));
    return s.f32(s.scratch);
  }

  /**
   * The share of layer `layer`'s weight inside a range named `name` (a foot plant `plant:<joint>`) at the
   * clips' current times.
   */
  rangeWeight(layer, name) {
    const s = this.sinew;
    const bytes = new TextEncoder().encode(name);
    if (bytes.length > 512) throw new Error(`range name of ${bytes.length} bytes`);
    new Uint8Array(s.memory.buffer, s.scratch + NAME, bytes.length).set(bytes);
    s.check('range weight', s.c.sinew_character_range_weight(this.handle, this.asset.handle, layer, s.scratch + NAME, bytes.length, s.scratch));
    return s.f32(s.scratch);
  }

  /** The last update's root motion: `{ translation: [x, y, z], yaw }`. */
  rootMotion() {
    const s = this.sinew;
    s.check('root motion', s.c.sinew_character_root_motion(this.handle, s.scratch, s.scratch + 12));
    const [x, y, z, yaw] = s.read(s.scratch, 4);
    return { translation: [x, y, z], yaw };
  }

  /** Writes a `sinew_foot_planting` for `request` (see `plantFeet`) at `at`. */
  writePlanting(at, request) {
    const { pelvis, legs, planted = [0, 0], groundHeight = [0, 0], groundNormal = [[0, 1, 0], [0, 1, 0]], world,
      dt = 0, weight = 1 } = request;
    this.sinew.write(at, [pelvis, ...legs.flat(), ...planted.map((p) => (p ? 1 : 0)), ...groundHeight,
      ...groundNormal.flat(), ...world, dt, weight, 0, 0, 0, 0, 0], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  }

  /**
   * Where the game should probe the ground (world points, left then right) for `request`: `{ pelvis, legs:
   * [[hip, knee, ankle] × 2], world: 16 floats }`. `planter` is a 48-byte block from `sinew.reserve`.
   */
  footProbes(planter, request) {
    const s = this.sinew;
    const at = s.scratch + ARGS;
    this.writePlanting(at, request);
    s.check('foot probes', s.c.sinew_character_foot_probes(this.handle, planter, at, s.scratch + REPORT));
    const p = s.read(s.scratch + REPORT, 6);
    return [p.slice(0, 3), p.slice(3)];
  }

  /**
   * One frame of foot planting: `request` as `footProbes`' plus `planted: [l, r]`, `groundHeight: [l, r]`,
   * `groundNormal: [[x, y, z] × 2]`, `dt`, `weight`. Returns the report `{ pelvisDrop, reached, lock }`.
   */
  plantFeet(planter, request) {
    const s = this.sinew;
    const at = s.scratch + ARGS;
    this.writePlanting(at, request);
    s.check('foot planting', s.c.sinew_character_plant_feet(this.handle, this.asset.handle, planter, at, s.scratch + REPORT));
    const view = new DataView(s.memory.buffer);
    const r = s.scratch + REPORT;
    return { pelvisDrop: s.f32(r), reached: [view.getUint32(r + 4, true), view.getUint32(r + 8, true)], lock: [s.f32(r + 12), s.f32(r + 16)] };
  }

  /**
   * Turns `joint`'s `forward` axis (its own frame) toward the model-space `target`, `weight` of the way, at most
   * `maxAngle` radians (0: no limit). Returns the `SINEW_AIM_*` flags.
   */
  aim({ joint, forward, target, maxAngle = 0, weight = 1 }) {
    const s = this.sinew;
    const at = s.scratch + ARGS;
    s.write(at, [joint, ...forward, 0, 0, 0, 0, 0, 0, 0, ...target, maxAngle, 0, weight], [0, 10]);
    s.check('aim', s.c.sinew_character_aim_ik(this.handle, this.asset.handle, at, s.scratch));
    return s.u32(s.scratch);
  }

  update(dt) {
    const s = this.sinew;
    s.check('update', s.c.sinew_character_update(this.handle, this.asset.handle, dt));
  }

  /**
   * The model-space box around a box of half size `radius` on each of `joints` (every joint by default):
   * { min: [x, y, z], max: [x, y, z] }.
   */
  bounds(radius, joints = Array.from({ length: this.asset.joints }, (_, j) => j)) {
    const s = this.sinew;
    // sinew_joint_box: center[3], joint, half_extent[3], reserved; 32 bytes, 16-byte aligned.
    if (joints.length > this.asset.joints) throw new Error(`bounds of ${joints.length} joints; the skeleton has ${this.asset.joints}`);
    const boxes = this.boxes ?? (this.boxes = s.reserve(32 * this.asset.joints));
    const view = new DataView(s.memory.buffer);
    joints.forEach((j, k) => {
      const at = boxes + 32 * k;
      [0, 0, 0].forEach((v, c) => view.setFloat32(at + 4 * c, v, true));
      view.setUint32(at + 12, j, true);
      [radius, radius, radius].forEach((v, c) => view.setFloat32(at + 16 + 4 * c, v, true));
      view.setUint32(at + 28, 0, true);
    });
    s.check('bounds', s.c.sinew_character_bounds(this.handle, boxes, joints.length, s.scratch, s.scratch + 12));
    const f = (k) => s.f32(s.scratch + 4 * k);
    return { min: [f(0), f(1), f(2)], max: [f(3), f(4), f(5)] };
  }

  /** Copies the character to another reserved block (the memory is the character) and carries on there. */
  moveTo(memory) {
    const s = this.sinew;
    new Uint8Array(s.memory.buffer, memory, this.bytes).set(new Uint8Array(s.memory.buffer, this.handle, this.bytes));
    new Uint8Array(s.memory.buffer, this.handle, this.bytes).fill(0);
    this.handle = memory;
  }

  output(call, floatsPer) {
    const s = this.sinew;
    s.check(call, s.c[call](this.handle, s.scratch, s.scratch + 4));
    return s.floats(s.u32(s.scratch), s.u32(s.scratch + 4) * floatsPer);
  }

  /** Model matrices, 16 floats each, column-major; a view valid until the memory grows or the character moves. */
  modelMatrices() {
    return this.output('sinew_character_model_matrices', 16);
  }

  /** The skinning palette, three rows of four floats per skin joint (three.js bone matrices' upper rows). */
  palette() {
    return this.output('sinew_character_palette_3x4', 12);
  }
}
