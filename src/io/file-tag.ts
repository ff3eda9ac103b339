import { statSync } from 'node:fs';

/**
 * What identifies this version of a local file: device, inode and modification time (in
 * nanoseconds), with its size. A file written since it was hashed has another tag, so a sha256
 * remembered under a tag (io/local-hashes.ts for inputs, tokenize/prepared.ts for a
 * tokenizer.json) is one of these bytes.
 */
export interface FileTag {
  tag: string;
  size: number;
  /** The modification time in milliseconds: a file written moments ago may be written again within the same tick. */
  mtimeMs: number;
}

/** The file's tag, or undefined when it is not a regular file (or is gone). */
export function fileTag(path: string): FileTag | undefined {
  try {
    const st = statSync(path, { bigint: true });
    return st.isFile() ? { tag: `${st.dev}:${st.ino}:${st.mtimeNs}`, size: Number(st.size), mtimeMs: Number(st.mtimeNs / 1_000_000n) } : undefined;
  } catch {
    return undefined;
  }
}
