import { decodeText } from '../fim/text.js';
import type { CatFile } from './git.js';
import type { ContentCache } from './content-cache.js';

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

/** A blob's text as the cache keeps it, with its size in bytes: a later read with a lower size limit finds it too large. */
interface CachedText {
  text: BlobText;
  bytes: number;
}

const textKey = (sha: string) => `b\0${sha}`;

/**
 * Many blobs' texts: their sizes in one request, then their contents in requests of about 1 MB.
 * With no size limit, their contents in one request, with no sizes asked first: a round trip to
 * git costs a write to its pipe and a wake-up either side, and context building indexes trees
 * so a few hundred times a history (the caller bounds how many blobs, and their size, a call reads).
 * With `cache`, texts are looked up there first and kept there: a history's commit reads each
 * changed file before and after, and the before is a blob an earlier commit read as its after
 * (go-readability: 601 of 1,612 reads), so it is neither read from git nor decoded again.
 */
export async function readTexts(cat: CatFile, shas: readonly string[], maxBytes: number, cache?: ContentCache): Promise<Map<string, BlobText>> {
  const unique = [...new Set(shas)];
  const cached = new Map<string, BlobText>();
  for (const sha of unique) {
    const hit = cache?.get<CachedText>(textKey(sha));
    if (hit && hit.bytes <= maxBytes) cached.set(sha, hit.text);
  }
  const read = await readFromGit(cat, unique.filter((sha) => !cached.has(sha)), maxBytes);
  if (cache) for (const [sha, r] of read) if ('text' in r.text) cache.set(textKey(sha), r, 2 * r.text.text.length);
  return new Map(unique.map((sha) => [sha, cached.get(sha) ?? read.get(sha)!.text]));
}

/** readTexts' reads from git, each text with its size in bytes (0 for a blob that has no text). */
async function readFromGit(cat: CatFile, unique: readonly string[], maxBytes: number): Promise<Map<string, CachedText>> {
  const out = new Map<string, CachedText>();
  const none = (reason: string) => ({ text: { reason }, bytes: 0 });
  const got = (body: Buffer | undefined) => ({ text: blobText(body), bytes: body?.length ?? 0 });
  if (unique.length === 0) return out;
  if (maxBytes === Number.POSITIVE_INFINITY) {
    const bodies = await cat.contentsMany(unique);
    unique.forEach((sha, i) => out.set(sha, bodies[i] ? got(bodies[i]) : none('missing_object')));
    return out;
  }
  const infos = await cat.infoMany(unique);
  let group: string[] = [];
  let groupBytes = 0;
  const readGroup = async () => {
    const bodies = await cat.contentsMany(group);
    group.forEach((sha, i) => out.set(sha, got(bodies[i])));
    [group, groupBytes] = [[], 0];
  };
  for (const [i, sha] of unique.entries()) {
    const info = infos[i];
    if (!info) out.set(sha, none('missing_object'));
    else if (info.size > maxBytes) out.set(sha, none('too_large'));
    else {
      group.push(sha);
      groupBytes += info.size;
      if (groupBytes >= 1 << 20) await readGroup();
    }
  }
  if (group.length) await readGroup();
  return out;
}
