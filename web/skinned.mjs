// A glTF character's meshes driven by sinew's skinning palette. three.js loads the `.glb` the blob was baked
// from and keeps its geometry, materials and skin weights; every mesh bound to the file's first skin (the skin
// `sinew-bake` imports) gets sinew's palette as its bone matrices, and three's own skeleton update (bones'
// world matrices times their inverses) is bypassed, so what is drawn is exactly what sinew computed.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

/** The glTF node a three.js object came from (a primitive's mesh inherits its parent group's node). */
function nodeOf(parser, object) {
  for (let o = object; o; o = o.parent) {
    const association = parser.associations.get(o);
    if (association?.nodes !== undefined) return parser.json.nodes[association.nodes];
  }
  return undefined;
}

/**
 * The skinned meshes of the file at `url` bound to its first skin, ready for `SkinnedMeshes.pose`. Fails with a
 * message when the file's first skin does not have `skinJoints` joints (a mesh of another file than the blob's).
 */
export async function loadSkinnedMeshes(url, skinJoints) {
  const gltf = await new GLTFLoader().loadAsync(url);
  const meshes = [];
  gltf.scene.traverse((object) => {
    if (object.isSkinnedMesh && nodeOf(gltf.parser, object)?.skin === 0) meshes.push(object);
  });
  if (meshes.length === 0) throw new Error(`${url}: no mesh is bound to the first skin`);
  const bones = meshes[0].skeleton.bones.length;
  if (bones !== skinJoints) throw new Error(`${url}: its first skin has ${bones} joints, the blob's ${skinJoints}`);
  return new SkinnedMeshes(meshes);
}

export class SkinnedMeshes {
  constructor(meshes) {
    this.group = new THREE.Group();
    this.meshes = meshes;
    this.palette = null;
    for (const mesh of meshes) {
      // Vertices go straight from the mesh's bind space (where the inverse bind matrices start) through the
      // palette into sinew's model space; the group places the character.
      mesh.removeFromParent();
      mesh.bindMode = THREE.DetachedBindMode;
      mesh.bindMatrix.identity();
      mesh.bindMatrixInverse.identity();
      mesh.position.set(0, 0, 0);
      mesh.quaternion.identity();
      mesh.scale.set(1, 1, 1);
      // The geometry's bounds are the bind pose's; the posed character is framed by sinew's own bounds.
      mesh.frustumCulled = false;
      const skeleton = mesh.skeleton;
      skeleton.update = () => this.upload(skeleton);
      this.group.add(mesh);
    }
  }

  /** Copies the palette (sinew's 3×4 rows per skin joint) the next render uploads: a view into the wasm
   * memory lapses when the memory grows. */
  pose(palette) {
    if (this.palette?.length !== palette.length) this.palette = new Float32Array(palette.length);
    this.palette.set(palette);
  }

  /** sinew's rows into three's column-major 4×4 bone matrices (the texture three sized, reused). */
  upload(skeleton) {
    const rows = this.palette;
    if (!rows) return;
    const out = skeleton.boneMatrices;
    for (let j = 0; j < skeleton.bones.length; ++j) {
      const r = 12 * j;
      const m = 16 * j;
      for (let c = 0; c < 4; ++c) {
        out[m + 4 * c] = rows[r + c];
        out[m + 4 * c + 1] = rows[r + 4 + c];
        out[m + 4 * c + 2] = rows[r + 8 + c];
        out[m + 4 * c + 3] = c === 3 ? 1 : 0;
      }
    }
    if (skeleton.boneTexture) skeleton.boneTexture.needsUpdate = true;
  }

  dispose() {
    this.group.removeFromParent();
    for (const mesh of this.meshes) {
      mesh.geometry.dispose();
      for (const material of [mesh.material].flat()) material.dispose();
      mesh.skeleton.dispose();
    }
  }
}
