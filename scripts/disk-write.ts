import { closeSync, constants, openSync, rmSync, write } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const writeAsync = promisify(write);

/** As the pack's writers issue them (src/write/direct-file.ts): 2 MiB slabs, three in flight. */
const SLAB_BYTES = 2 << 20;
const IN_FLIGHT = 3;

declare const WebAssembly: { Memory: new (d: { initial: number; maximum: number; shared: true }) => { buffer: SharedArrayBuffer } };

/**
 * Seconds this disk takes to write `bytes` past the page cache (O_DIRECT), as the pack's output
 * writers do, into a scratch file in `dir` (removed after); undefined where the platform or the
 * filesystem has no direct writes. A pack writes its bins only once every document is tokenized
 * and planned, so this is a floor under the time a pack spends after tokenizing, measured in the
 * same run as the pack rather than assumed.
 */
export async function directWriteSeconds(dir: string, bytes: number): Promise<number | undefined> {
  const direct = (constants as Record<string, number>).O_DIRECT;
  if (!direct) return undefined;
  const path = join(dir, `disk-probe-${process.pid}.tmp`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | direct, 0o644);
  } catch {
    return undefined;
  }
  try {
    // Shared WebAssembly memory is page-aligned, as O_DIRECT needs.
    const memory = new WebAssembly.Memory({ initial: (IN_FLIGHT * SLAB_BYTES) / 65_536, maximum: (IN_FLIGHT * SLAB_BYTES) / 65_536, shared: true }).buffer;
    const slabs = Array.from({ length: IN_FLIGHT }, (_, k) => new Uint8Array(memory, k * SLAB_BYTES, SLAB_BYTES).fill(k + 1));
    const pending: (Promise<unknown> | undefined)[] = [];
    const t0 = performance.now();
    for (let offset = 0, k = 0; offset < bytes; offset += SLAB_BYTES, k = (k + 1) % IN_FLIGHT) {
      await pending[k];
      pending[k] = writeAsync(fd, slabs[k]!, 0, SLAB_BYTES, offset);
    }
    await Promise.all(pending);
    return (performance.now() - t0) / 1000;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
}
