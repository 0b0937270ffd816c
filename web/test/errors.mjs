// A broken file given to the page's loader is an error with the library's message, never a crash or a blank:
// a truncated blob, one with the wrong magic, an empty one, and a character asked of a loaded asset with a bad
// description. Prints one line per case and exits non-zero when a case is not refused as it should be.
//   node web/test/errors.mjs sinew_ffi.wasm docs/example.snw
import { readFile } from 'node:fs/promises';
import { argv, exit } from 'node:process';
import { loadSinew, SinewError } from '../sinew.mjs';

const sinew = await loadSinew(await readFile(argv[2]));
const blob = new Uint8Array(await readFile(argv[3]));
const wrongMagic = blob.slice();
wrongMagic[0] ^= 0xff;
const cases = [
  ['truncated', () => sinew.loadAsset(blob.subarray(0, blob.length >> 1)), 5],
  ['wrong magic', () => sinew.loadAsset(wrongMagic), 4],
  ['empty', () => sinew.loadAsset(new Uint8Array(0)), 5],
  ['no layers', () => sinew.loadAsset(blob).createCharacter({ layers: [] }), 8],
];
let failed = 0;
for (const [name, call, status] of cases) {
  try {
    call();
    console.log(`${name}: accepted`);
    failed += 1;
  } catch (e) {
    const ok = e instanceof SinewError && e.status === status;
    console.log(`${name}: ${e.message}${ok ? '' : ` (expected status ${status})`}`);
    failed += ok ? 0 : 1;
  }
}
// The library still works after every refusal.
const asset = sinew.loadAsset(blob);
const character = asset.createCharacter();
character.play(0, 0);
character.update(1 / 30);
console.log(`after the refusals: ${character.modelMatrices().length / 16} model matrices`);
exit(failed === 0 ? 0 : 1);
