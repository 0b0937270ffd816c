// A WASI preview1 host for a command program in the page: its arguments, a monotonic and a wall clock, and
// standard output and error collected as text. There is no file system: opening a file or a directory fails
// with ENOENT/EBADF, as it would with nothing preopened. Enough for `sinew-bench profile`, which reads no files
// when it profiles the built-in rigs.

const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;
const ERRNO_INVAL = 28;
const ERRNO_NOENT = 44;

/** Thrown by `proc_exit` to unwind the program; carries its exit code. */
class Exit extends Error {
  constructor(code) {
    super(`exit ${code}`);
    this.code = code;
  }
}

/**
 * Runs the wasm32-wasip1 command `bytes` with `args` (argv[0] first) and returns `{ code, stdout, stderr }`.
 */
export async function runWasi(bytes, args) {
  let memory = null;
  const view = () => new DataView(memory.buffer);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const argv = args.map((a) => encoder.encode(`${a}\0`));
  const out = { 1: [], 2: [] };
  const strings = (list, pointers, buffer) => {
    let at = buffer;
    list.forEach((s, k) => {
      view().setUint32(pointers + 4 * k, at, true);
      new Uint8Array(memory.buffer, at, s.length).set(s);
      at += s.length;
    });
    return ERRNO_SUCCESS;
  };
  const sizes = (list, count, bytes) => {
    view().setUint32(count, list.length, true);
    view().setUint32(bytes, list.reduce((n, s) => n + s.length, 0), true);
    return ERRNO_SUCCESS;
  };
  const wasi = {
    args_sizes_get: (count, size) => sizes(argv, count, size),
    args_get: (pointers, buffer) => strings(argv, pointers, buffer),
    environ_sizes_get: (count, size) => sizes([], count, size),
    environ_get: () => ERRNO_SUCCESS,
    clock_time_get(clock, _precision, time) {
      // Clock 0 is the wall clock, 1 the monotonic one; both in nanoseconds.
      const ms = clock === 0 ? Date.now() : performance.now();
      if (clock > 1) return ERRNO_INVAL;
      view().setBigUint64(time, BigInt(Math.round(ms * 1e6)), true);
      return ERRNO_SUCCESS;
    },
    fd_write(fd, iovs, count, written) {
      if (!out[fd]) return ERRNO_BADF;
      let total = 0;
      for (let k = 0; k < count; ++k) {
        const at = view().getUint32(iovs + 8 * k, true);
        const len = view().getUint32(iovs + 8 * k + 4, true);
        out[fd].push(new Uint8Array(memory.buffer, at, len).slice());
        total += len;
      }
      view().setUint32(written, total, true);
      return ERRNO_SUCCESS;
    },
    fd_close: () => ERRNO_BADF,
    fd_fdstat_get(fd, stat) {
      if (fd > 2) return ERRNO_BADF;
      // A character device (the terminal) with every right.
      new Uint8Array(memory.buffer, stat, 24).fill(0);
      view().setUint8(stat, 2);
      view().setBigUint64(stat + 8, 0xffffffffffffffffn, true);
      view().setBigUint64(stat + 16, 0xffffffffffffffffn, true);
      return ERRNO_SUCCESS;
    },
    fd_filestat_get: () => ERRNO_BADF,
    fd_prestat_get: () => ERRNO_BADF,
    fd_prestat_dir_name: () => ERRNO_BADF,
    fd_read: () => ERRNO_BADF,
    fd_readdir: () => ERRNO_BADF,
    path_filestat_get: () => ERRNO_NOENT,
    path_open: () => ERRNO_NOENT,
    proc_exit(code) {
      throw new Exit(code);
    },
  };
  const { instance } = await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: wasi });
  memory = instance.exports.memory;
  let code = 0;
  try {
    instance.exports._start();
  } catch (e) {
    if (!(e instanceof Exit)) throw e;
    code = e.code;
  }
  const text = (chunks) => decoder.decode(new Uint8Array(chunks.flatMap((c) => Array.from(c))));
  return { code, stdout: text(out[1]), stderr: text(out[2]) };
}
