// Runs a wasm32-wasip1 program (a test binary) under Node's WASI: cargo's runner for the wasm32 test builds.
// The whole file system is preopened, so tests find their files by the absolute paths cargo gives them.
import { readFile } from 'node:fs/promises';
import { argv, env, exit } from 'node:process';
import { WASI } from 'node:wasi';

const [program, ...args] = argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [program, ...args], env, preopens: { '/': '/' }, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(program));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance));
