/**
 * The context builders' caches of one thread in one budget of bytes: what a blob, a path or a
 * tree object gives (BM25 term counts, token counts, a tree's entries, a blob's size, a context
 * file's text), keyed by its id, so a key names the same value whichever walk fills it. The walks a thread runs (the
 * pieces of a history, a run's edits sources) share it, and a run's threads split one stated
 * budget (`contextCacheMb`, over `shareContentCaches(threads)`): memory is set by configuration,
 * not by the number of pieces. The least recently used entries go first; a value's bytes are an
 * estimate of its heap (a string's characters, about 48 bytes an object or map entry).
 */
export class ContentCache {
  private readonly map = new Map<string, { value: unknown; bytes: number }>();
  private used = 0;

  constructor(readonly budgetBytes: number) {}

  get bytes(): number {
    return this.used;
  }

  get<T>(key: string): T | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key);
    this.map.set(key, hit);
    return hit.value as T;
  }

  set(key: string, value: unknown, bytes: number): void {
    const old = this.map.get(key);
    if (old) {
      this.used -= old.bytes;
      this.map.delete(key);
    }
    const cost = bytes + ENTRY_BYTES + 2 * key.length;
    if (cost > this.budgetBytes) return; // would evict everything else: kept nowhere
    this.map.set(key, { value, bytes: cost });
    this.used += cost;
    for (const [k, v] of this.map) {
      if (this.used <= this.budgetBytes) break;
      this.map.delete(k);
      this.used -= v.bytes;
    }
  }
}

/** What an entry of a Map or a small object costs beside its contents (an estimate). */
export const ENTRY_BYTES = 48;

/** The default budget of a run's context caches, split over its threads. */
export const DEFAULT_CONTEXT_CACHE_MB = 128;

let threads = 1;
const caches = new Map<number, ContentCache>();

/**
 * How many threads of this process build contexts at once (a run's prepare workers): each gets
 * an even share of the budget. Set once per thread, before its first walk.
 */
export function shareContentCaches(threadCount: number): void {
  threads = Math.max(1, threadCount);
}

/** This thread's cache for a run's budget of `budgetMb` (its share of it). */
export function threadContentCache(budgetMb: number): ContentCache {
  let c = caches.get(budgetMb);
  if (!c) caches.set(budgetMb, (c = new ContentCache(Math.floor((budgetMb * 1024 * 1024) / threads))));
  return c;
}
