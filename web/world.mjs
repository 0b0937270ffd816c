// The world the page gives its characters: where a root stands (a ground translation and a turn about +Y), a
// warp point bending a clip's path to a target, the uneven ground foot planting stands on, and the joints those
// views need, found by name. Everything here is the game's side of the C ABI: sinew answers the calls.
import * as THREE from 'three';

/** The world transform of a root `{ translation: [x, y, z], yaw }`: turned about +Y, then moved. */
export function rootMatrix({ translation: [x, y, z], yaw }) {
  return new THREE.Matrix4().makeRotationY(yaw).setPosition(x, y, z);
}

/**
 * One segment of a clip from time 0, entered at the world origin facing +Z, its root taken to `target` at
 * `markerTime` by a warp point: translation and rotation over the whole segment, facing over its second half.
 */
export class WarpSegment {
  constructor(sinew, asset, clip, markerTime) {
    this.sinew = sinew;
    this.asset = asset;
    this.clip = clip;
    this.markerTime = markerTime;
    this.marker = this.unwarped(markerTime);
    this.aimAt(this.marker.translation);
  }

  /** The root's place at clip time `t` as the clip has it. */
  unwarped(t) {
    return this.asset.clipMotionBetween(this.clip, 0, t);
  }

  /** Moves the target to `point` (on the ground), facing along the path from the entry to it. */
  aimAt([x, , z]) {
    const [mx, , mz] = this.marker.translation;
    // The clip's facing at its marker, turned by the angle the target's direction is from the marker's.
    const turn = Math.atan2(x, z) - Math.atan2(mx, mz);
    this.target = { translation: [x, this.marker.translation[1], z], yaw: this.marker.yaw + (Math.hypot(mx, mz) > 0 ? turn : 0) };
    const end = this.markerTime;
    this.warp = { marker: this.marker, target: this.target, markerTime: end, windows: [[0, end], [0, end], [end / 2, end]] };
  }

  /** The warped root at clip time `t` (`sinew_warp_point_apply`). */
  at(t) {
    return this.sinew.warpPointApply(this.warp, this.unwarped(t), t);
  }

  /** `count + 1` points along the segment, unwarped or warped. */
  path(count, warped) {
    return Array.from({ length: count + 1 }, (_, k) => {
      const t = this.markerTime * k / count;
      return (warped ? this.at(t) : this.unwarped(t)).translation;
    });
  }
}

/**
 * Rolling ground: a height `amplitude` of sines with wavelength `wavelength`, and its mesh over `extent`
 * around the origin. Units: the character's.
 */
export class HeightField {
  constructor(amplitude, wavelength) {
    this.amplitude = amplitude;
    this.k = 2 * Math.PI / wavelength;
  }

  height(x, z) {
    const { amplitude: a, k } = this;
    return a * (Math.sin(k * x) + 0.6 * Math.sin(1.3 * k * z + 1));
  }

  /** The unit normal at (x, z), from the height's gradient. */
  normal(x, z) {
    const { amplitude: a, k } = this;
    const dx = a * k * Math.cos(k * x);
    const dz = a * 0.6 * 1.3 * k * Math.cos(1.3 * k * z + 1);
    const n = new THREE.Vector3(-dx, 1, -dz).normalize();
    return [n.x, n.y, n.z];
  }

  mesh(extent, segments) {
    const geometry = new THREE.PlaneGeometry(extent, extent, segments, segments);
    geometry.rotateX(-Math.PI / 2);
    const position = geometry.attributes.position;
    for (let i = 0; i < position.count; ++i) {
      position.setY(i, this.height(position.getX(i), position.getZ(i)));
    }
    geometry.computeVertexNormals();
    return new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({ color: 0x3d4a3f, roughness: 0.95, flatShading: true }));
  }
}

/** A joint on one side: `side` 'L' or 'R', `part` a regular expression source such as 'foot|ankle'. */
function sided(asset, side, part) {
  const word = side === 'L' ? 'left' : 'right';
  const s = side.toLowerCase();
  const patterns = [
    new RegExp(`^${word}.?(${part})$|^(${part}).?${word}$`, 'i'),
    new RegExp(`^${s}.?(${part})$|^(${part})[._]?${s}$`, 'i'),
  ];
  for (const pattern of patterns) {
    const joint = asset.findJoint(pattern);
    if (joint >= 0) return joint;
  }
  return -1;
}

/**
 * The legs foot planting moves, found by name: each foot (a joint named like `Foot_L`, `LFoot`, `LeftFoot`),
 * its knee and hip as its parent and grandparent, and the pelvis above the left hip. `undefined` when the
 * skeleton has no such feet.
 */
export function findLegs(asset) {
  const legs = [];
  for (const side of ['L', 'R']) {
    const ankle = sided(asset, side, 'foot|ankle');
    if (ankle < 0) return undefined;
    const knee = asset.jointParent(ankle);
    const hip = knee >= 0 ? asset.jointParent(knee) : -1;
    if (hip < 0) return undefined;
    legs.push([hip, knee, ankle]);
  }
  const pelvis = asset.jointParent(legs[0][0]);
  if (pelvis < 0) return undefined;
  return { pelvis, legs, names: legs.map(([, , ankle]) => asset.jointName(ankle)) };
}
