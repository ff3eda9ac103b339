import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { isRemote } from './remote.js';
import { readObject } from './s3.js';
import { sendFile, workBase } from './remote-out.js';

/**
 * Files read and written whole by descriptor (mask counts files, dedup indexes, mixture
 * counts) when they are `s3://` objects. Their readers seek and check sizes on a local file,
 * so an object is brought down to a local temporary folder (--work-dir's base: MIDPACK_WORK_DIR,
 * else the system's temporary folder) and read there; an output is written there and goes up
 * only once it is complete, with the files written beside it (OUT.manifest.json). The
 * temporary folder is removed whatever happens: a failed job leaves nothing behind, here or in
 * the bucket.
 */

/** Runs `use` with a local path for each of `paths`: local ones as they are, objects brought down first. */
export async function withLocalInputs<T>(paths: readonly string[], use: (local: string[]) => T | Promise<T>): Promise<T> {
  if (!paths.some(isRemote)) return use([...paths]);
  const dir = mkdtempSync(join(ensuredBase(), 'download-'));
  try {
    const local: string[] = [];
    for (const [i, p] of paths.entries()) {
      if (!isRemote(p)) {
        local.push(p);
        continue;
      }
      const to = join(dir, `${i}-${p.slice(p.lastIndexOf('/') + 1) || 'object'}`);
      await pipeline(Readable.from(readObject(p)), createWriteStream(to));
      local.push(to);
    }
    return await named(() => use(local), local, paths);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `write` with a local path standing for `out`; for an `s3://` out, the file written there
 * and every file beside it whose name starts with its name (OUT.manifest.json) go up after
 * `write` succeeds, the named file last.
 */
export async function withLocalOutput<T>(out: string, write: (local: string) => T | Promise<T>): Promise<T> {
  if (!isRemote(out)) return write(out);
  const dir = mkdtempSync(join(ensuredBase(), 'upload-'));
  try {
    const name = out.slice(out.lastIndexOf('/') + 1) || 'object';
    const result = await named(() => write(join(dir, name)), [join(dir, name)], [out]);
    const beside = readdirSync(dir).filter((f) => f !== name && f.startsWith(name) && !f.includes('.tmp-')).sort();
    for (const f of beside) await sendFile(join(dir, f), out + f.slice(name.length));
    await sendFile(join(dir, name), out);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Errors speak of the local copies; the user named the objects. */
async function named<T>(job: () => T | Promise<T>, local: readonly string[], given: readonly string[]): Promise<T> {
  try {
    return await job();
  } catch (e) {
    if (e instanceof Error) local.forEach((l, i) => (e.message = e.message.split(l).join(given[i]!)));
    throw e;
  }
}

function ensuredBase(): string {
  const base = workBase();
  mkdirSync(base, { recursive: true });
  return base;
}
