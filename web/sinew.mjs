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

  jointName(joint) {
    const s = this.sinew;
    s.check('joint name', s.c.sinew_asset_joint_name(this.handle, joint, s.scratch, s.scratch + 4));
    const [at, len] = [s.u32(s.scratch), s.u32(s.scratch + 4)];
    return new TextDecoder().decode(new Uint8Array(s.memory.buffer, at, len));
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

  update(dt) {
    const s = this.sinew;
    s.check('update', s.c.sinew_character_update(this.handle, this.asset.handle, dt));
  }

  /** The model-space box around a box of half size `radius` on every joint: { min: [x, y, z], max: [x, y, z] }. */
  bounds(radius) {
    const s = this.sinew;
    const joints = this.asset.joints;
    // sinew_joint_box: center[3], joint, half_extent[3], reserved; 32 bytes, 16-byte aligned.
    const boxes = this.boxes ?? (this.boxes = s.reserve(32 * joints));
    const view = new DataView(s.memory.buffer);
    for (let j = 0; j < joints; ++j) {
      const at = boxes + 32 * j;
      [0, 0, 0].forEach((v, k) => view.setFloat32(at + 4 * k, v, true));
      view.setUint32(at + 12, j, true);
      [radius, radius, radius].forEach((v, k) => view.setFloat32(at + 16 + 4 * k, v, true));
      view.setUint32(at + 28, 0, true);
    }
    s.check('bounds', s.c.sinew_character_bounds(this.handle, boxes, joints, s.scratch, s.scratch + 12));
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
