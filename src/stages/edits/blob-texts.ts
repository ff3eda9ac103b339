import { decodeText } from '../fim/text.js';
import type { CatFile } from './git.js';

/**
 * Blobs' texts through a repository's cat-file process, many at a time: their sizes in one
 * request, then their contents in requests of about 1 MB (a round trip per request, not per
 * blob; memory about 1 MB plus the texts returned). History reads a commit's changed files so,
 * context building the tree files it indexes for retrieval.
 */
export type BlobText = { text: string; asBytes: boolean } | { reason: string };

/** A blob's text; `asBytes` is false when decoding changed it (a UTF-8 BOM is dropped), so git's patch of it does not fit the text. */
function blobText(bytes: Buffer | undefined): BlobText {
  const text = bytes && decodeText(bytes);
  return text === undefined ? { reason: 'binary' } : { text, asBytes: !(bytes![0] === 0xef && bytes![1] === 0xbb && bytes![2] === 0xbf) };
}

/**
 * Many blobs' texts: their sizes in one request, then their contents in requests of about 1 MB.
 * With no size limit, their contents in one request, with no sizes asked first: a round trip to
 * git costs a write to its pipe and a wake-up either side, and context building indexes trees
 * so a few hundred times a history (the caller bounds how many blobs, and their size, a call reads).
 */
export async function readTexts(cat: CatFile, shas: readonly string[], maxBytes: number): Promise<Map<string, BlobText>> {
  const unique = [...new Set(shas)];
  const out = new Map<string, BlobText>();
  if (maxBytes === Number.POSITIVE_INFINITY) {
    const bodies = await cat.contentsMany(unique);
    unique.forEach((sha, i) => out.set(sha, bodies[i] ? blobText(bodies[i]) : { reason: 'missing_object' }));
    return out;
  }
  const infos = await cat.infoMany(unique);
  let group: string[] = [];
  let groupBytes = 0;
  const readGroup = async () => {
    const bodies = await cat.contentsMany(group);
    group.forEach((sha, i) => out.set(sha, blobText(bodies[i])));
    [group, groupBytes] = [[], 0];
  };
  for (const [i, sha] of unique.entries()) {
    const info = infos[i];
    if (!info) out.set(sha, { reason: 'missing_object' });
    else if (info.size > maxBytes) out.set(sha, { reason: 'too_large' });
    else {
      group.push(sha);
      groupBytes += info.size;
      if (groupBytes >= 1 << 20) await readGroup();
    }
  }
  if (group.length) await readGroup();
  return out;
}

