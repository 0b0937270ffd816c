// ffi/examples/frame.c's script through the wasm build and web/sinew.mjs, printed in frame.c's format (IEEE-754
// bit patterns), so a test can compare it with the native build's output line by line.
//   node web/test/frame.mjs sinew_ffi.wasm docs/example.snw
import { readFile } from 'node:fs/promises';
import { argv } from 'node:process';
import { loadSinew } from '../sinew.mjs';

const FRAMES = 24;
const TRANSITION_FRAME = 12;
const MOVE_FRAME = 18;

const bits = (floats) => Array.from(new Uint32Array(floats.buffer, floats.byteOffset, floats.length),
  (b) => b.toString(16).padStart(8, '0')).join(' ');

const sinew = await loadSinew(await readFile(argv[2]));
const asset = sinew.loadAsset(await readFile(argv[3]));
const lines = [`abi ${sinew.abiVersion()} joints ${asset.joints} clips ${asset.clips} skin ${asset.skinJoints}`];
for (let j = 0; j < asset.joints; ++j) lines.push(`joint ${j} ${asset.jointName(j)}`);
for (let c = 0; c < asset.clips; ++c) lines.push(`d ${c}: ${bits(new Float32Array([asset.clipDuration(c)]))}`);
const character = asset.createCharacter();
character.play(0, 0, 0, 1, 1);
for (let frame = 0; frame < FRAMES; ++frame) {
  if (frame === TRANSITION_FRAME) character.transition(asset.clips - 1, 0, 1, 0.25);
  if (frame === MOVE_FRAME) character.moveTo(sinew.reserve(character.bytes));
  character.update(1 / 30);
  lines.push(`m ${frame}: ${bits(character.modelMatrices())}`);
  lines.push(`p ${frame}: ${bits(character.palette())}`);
}
console.log(lines.join('\n'));
