/** endingWith's questions answered by a scan of the distinct lines before they are sorted by suffix. */
const SCANS_BEFORE_SORT = 16;

/**
 * One index of a file's lines for counting where a SEARCH block occurs, without rescanning the
 * file per candidate: each distinct line gets an id and the sorted list of where it occurs, and
 * the distinct lines are sorted by their text read backwards (a suffix order), so "the lines
 * that end with s" is one contiguous range found by binary search.
 *
 * A SEARCH block is whole lines (each ending in '\n') and occurs as a substring of the text
 * (Aider's semantics, as applyBlocks checks it). Every line of it after the first starts right
 * after a '\n', so it must equal a whole line of the file; only the first may be the end of a
 * longer line. So the block occurs at line i exactly when line i ends with its first line and
 * lines i+1... equal the rest: occurrences are counted from the rarest of its lines.
 */
export class LineIndex {
  private readonly idOf = new Map<string, number>();
  private readonly texts: string[] = [];
  /** Where each distinct line occurs, ascending. */
  private readonly at: number[][] = [];
  private readonly ids: Int32Array;
  private bySuffix: number[] | undefined;
  /** Questions endingWith answered by a scan so far. */
  private scans = 0;

  constructor(readonly lines: readonly string[]) {
    this.ids = new Int32Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      let id = this.idOf.get(lines[i]!);
      if (id === undefined) {
        id = this.texts.length;
        this.idOf.set(lines[i]!, id);
        this.texts.push(lines[i]!);
        this.at.push([]);
      }
      this.ids[i] = id;
      this.at[id]!.push(i);
    }
  }

  /**
   * The ids of the distinct lines that end with `s` (equal included). The first few questions
   * scan the distinct lines; sorting them by suffix costs far more (a fixture of thousands of
   * lines sharing their endings) and pays only when many are asked (a block is one line only
   * until it takes context).
   */
  private endingWith(s: string): number[] {
    if (!this.bySuffix && ++this.scans <= SCANS_BEFORE_SORT) {
      const out: number[] = [];
      for (let id = 0; id < this.texts.length; id++) if (this.texts[id]!.endsWith(s)) out.push(id);
      return out;
    }
    if (!this.bySuffix) {
      const t = this.texts;
      this.bySuffix = t.map((_, i) => i).sort((a, b) => backwardCompare(t[a]!, t[b]!));
    }
    const order = this.bySuffix;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (backwardCompare(this.texts[order[mid]!]!, s) < 0) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    for (let k = lo; k < order.length && this.texts[order[k]!]!.endsWith(s); k++) out.push(order[k]!);
    return out;
  }

  /**
   * Where the block `search` (its lines) occurs with all its lines inside [from, to): the start
   * lines, at most `limit` of them, in ascending order.
   */
  find(search: readonly string[], from = 0, to = this.lines.length, limit = 2): number[] {
    const k = search.length;
    if (k === 0 || to - from < k) return [];
    if (k === 1) {
      // Each line that ends with it gives its first `limit` places; the smallest of all are the answer.
      const found: number[] = [];
      for (const id of this.endingWith(search[0]!)) {
        const a = this.at[id]!;
        for (let j = lowerBound(a, from), taken = 0; j < a.length && a[j]! < to && taken < limit; j++, taken++) found.push(a[j]!);
      }
      return found.sort((x, y) => x - y).slice(0, limit);
    }
    // The rarest of the lines after the first: each of its places is one candidate start.
    let anchor = -1;
    let fewest = Number.POSITIVE_INFINITY;
    const want: number[] = [];
    for (let j = 1; j < k; j++) {
      const id = this.idOf.get(search[j]!);
      if (id === undefined) return [];
      want.push(id);
      const n = this.at[id]!.length;
      if (n < fewest) [fewest, anchor] = [n, j];
    }
    const places = this.at[want[anchor - 1]!]!;
    const found: number[] = [];
    for (let p = lowerBound(places, from + anchor); p < places.length && found.length < limit; p++) {
      const start = places[p]! - anchor;
      if (start + k > to) break;
      if (this.matchesAt(start, want, search[0]!)) found.push(start);
    }
    return found;
  }

  private matchesAt(start: number, want: readonly number[], first: string): boolean {
    for (let j = 0; j < want.length; j++) if (this.ids[start + 1 + j] !== want[j]) return false;
    return this.lines[start]!.endsWith(first);
  }
}

/** Compares two strings read from their ends (a string sorts before those it is a suffix of). */
function backwardCompare(a: string, b: string): number {
  let i = a.length - 1;
  let j = b.length - 1;
  for (; i >= 0 && j >= 0; i--, j--) {
    const d = a.charCodeAt(i) - b.charCodeAt(j);
    if (d !== 0) return d;
  }
  return i - j;
}

/** The first index of sorted `a` whose value is >= x. */
function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
