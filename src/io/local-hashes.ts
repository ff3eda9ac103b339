import { createHash } from 'node:crypto';
import { fileTag } from './file-tag.js';
import { readHash, rememberReadHash } from './read-hashes.js';
import { sha256File } from '../write/files.js';

/**
 * The sha256 of local input files, taken while the job reads them: the manifest's checksums then
 * need no second read of the inputs. That read ran after the last document, beside the write
 * phase, and took a quarter of the hash thread's work there (100 MB of input against about
 * 300 MB of outputs); hashing as the bytes pass costs the reading thread about 0.6 ms a MB.
 * A file is known by its inode, modification time and size (file-tag.ts; read-hashes.ts keys
 * remote objects by ETag the same way), so a file written since it was read is hashed again.
 */

/**
 * Passes a local file's bytes through as they are read, hashing them; read to the end (and the
 * file unchanged meanwhile), its sha256 is remembered for sha256Local.
 */
export async function* hashedWhileRead(path: string, bytes: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const before = path === '-' ? undefined : fileTag(path); // '-' is stdin (openBytes)
  if (!before) return yield* bytes;
  const hash = createHash('sha256');
  let read = 0;
  for await (const chunk of bytes) {
    hash.update(chunk);
    read += chunk.byteLength;
    yield chunk;
  }
  const after = fileTag(path);
  if (after && after.tag === before.tag && after.size === read && read === before.size) rememberReadHash(path, before.tag, read, hash.digest('hex'));
}

/** A local file's sha256 and size: as it was read (hashedWhileRead), else read now. */
export async function sha256Local(path: string): Promise<{ sha256: string; bytes: number }> {
  const now = fileTag(path);
  const known = now && readHash(path, now.tag, now.size);
  return known ? { sha256: known, bytes: now.size } : sha256File(path);
}
