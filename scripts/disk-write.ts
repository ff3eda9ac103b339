import { closeSync, constants, openSync, rmSync, write } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SLAB_BYTES, SLABS, slabMemory } from '../src/write/direct-file.js';

const writeAsync = promisify(write);

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
    // The pack's writers' own slabs: their size, their number in flight, their memory.
    const memory = slabMemory();
    const slabs = Array.from({ length: SLABS }, (_, k) => new Uint8Array(memory, k * SLAB_BYTES, SLAB_BYTES).fill(k + 1));
    const pending: (Promise<unknown> | undefined)[] = [];
    const t0 = performance.now();
    for (let offset = 0, k = 0; offset < bytes; offset += SLAB_BYTES, k = (k + 1) % SLABS) {
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
