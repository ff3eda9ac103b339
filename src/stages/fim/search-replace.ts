import { diffArrays } from 'diff';
import { LineIndex } from './line-index.js';
import { countOccurrences, splitLines } from './text.js';

/**
 * Edit blocks in the Aider SEARCH/REPLACE convention:
 *
 *   path/to/file.py
 *   <<<<<<< SEARCH
 *   old lines
 *   =======
 *   new lines
 *   >>>>>>> REPLACE
 *
 * `search` and `replace` are whole lines ('' or ending in '\n'). Blocks apply in order, each
 * to the file as the earlier blocks left it, and each SEARCH must occur exactly once there.
 * An empty SEARCH creates a file that does not exist yet (Aider's convention).
 *
 * A file without a final newline is edited as if it had one, and keeps not having one:
 * the block format has no way to say "no newline at end of file", so an edit that adds or
 * removes the final newline cannot be written as blocks (the builder says so by reason).
 */
export interface EditBlock {
  path: string;
  search: string;
  replace: string;
}

export const MARK_SEARCH = '<<<<<<< SEARCH';
export const MARK_DIVIDER = '=======';
export const MARK_REPLACE = '>>>>>>> REPLACE';
const MARKERS = new Set([MARK_SEARCH, MARK_DIVIDER, MARK_REPLACE]);

export function formatBlocks(blocks: readonly EditBlock[]): string {
  return blocks.map((b) => `${b.path}\n${MARK_SEARCH}\n${b.search}${MARK_DIVIDER}\n${b.replace}${MARK_REPLACE}\n`).join('\n');
}

/**
 * Parses blocks from an answer. Stops at the first line that is neither a blank line between
 * blocks nor the start of a block, and returns where it stopped (`rest`).
 */
export function parseBlocks(text: string): { blocks: EditBlock[]; rest: number } {
  const lines = splitLines(text);
  const blocks: EditBlock[] = [];
  let i = 0;
  let offset = 0;
  const take = () => {
    const l = lines[i++]!;
    offset += l.length;
    return l;
  };
  while (i < lines.length) {
    if (lines[i] === '\n') {
      take();
      continue;
    }
    if (lines[i + 1] !== MARK_SEARCH + '\n') break;
    const start = offset;
    const path = take().replace(/\n$/, '');
    take();
    const section = (end: string): string | undefined => {
      let s = '';
      while (i < lines.length && lines[i] !== end + '\n' && lines[i] !== end) s += take();
      if (i >= lines.length) return undefined;
      take();
      return s;
    };
    const search = section(MARK_DIVIDER);
    const replace = search === undefined ? undefined : section(MARK_REPLACE);
    if (search === undefined || replace === undefined) {
      offset = start;
      break;
    }
    blocks.push({ path, search, replace });
  }
  return { blocks, rest: offset };
}

export type Files = Map<string, string>;

/**
 * Applies blocks to files (path → text); returns the new files or the reason it cannot. Each
 * SEARCH is found by position: its first place, then whether there is a second one after it
 * (two scans of the file at most, no count of every occurrence), and replaced there.
 */
export function applyBlocks(files: ReadonlyMap<string, string>, blocks: readonly EditBlock[]): Files | { error: string } {
  const out = new Map(files);
  for (const [k, b] of blocks.entries()) {
    const text = out.get(b.path);
    if (b.search === '') {
      if (text !== undefined && text !== '') return { error: `block ${k + 1} (${b.path}): empty SEARCH on an existing file` };
      out.set(b.path, b.replace);
      continue;
    }
    if (text === undefined) return { error: `block ${k + 1} (${b.path}): no such file` };
    const noFinalNewline = text.length > 0 && !text.endsWith('\n');
    const work = noFinalNewline ? text + '\n' : text;
    const at = work.indexOf(b.search);
    if (at < 0) return { error: `block ${k + 1} (${b.path}): SEARCH not found` };
    if (work.indexOf(b.search, at + 1) >= 0) return { error: `block ${k + 1} (${b.path}): SEARCH occurs more than once` };
    const result = work.slice(0, at) + b.replace + work.slice(at + b.search.length);
    out.set(b.path, noFinalNewline && result.endsWith('\n') ? result.slice(0, -1) : result);
  }
  return out;
}

/** A changed region in line indices: old lines [os, oe) became new lines [ns, ne). */
export interface Region {
  os: number;
  oe: number;
  ns: number;
  ne: number;
}

/**
 * The bound on jsdiff's work for the changed regions (inserted plus deleted lines), where no
 * diff is given: Myers' algorithm costs O((N+M)·D), so past it the change is refused by reason.
 */
export const REGIONS_MAX_EDIT_LENGTH = 2000;

/** Changed regions between two line lists: common ends trimmed first, jsdiff (bounded) for the rest; undefined past the bound. */
function changedRegions(oldL: readonly string[], newL: readonly string[], oneRegion: boolean): Region[] | undefined {
  let head = 0;
  while (head < oldL.length && head < newL.length && oldL[head] === newL[head]) head++;
  let tail = 0;
  while (tail < oldL.length - head && tail < newL.length - head && oldL[oldL.length - 1 - tail] === newL[newL.length - 1 - tail]) tail++;
  const oldMid = oldL.slice(head, oldL.length - tail);
  const newMid = newL.slice(head, newL.length - tail);
  if (oldMid.length === 0 && newMid.length === 0) return [];
  if (oldMid.length === 0 || newMid.length === 0 || oneRegion) return [{ os: head, oe: head + oldMid.length, ns: head, ne: head + newMid.length }];
  const regions: Region[] = [];
  let o = head;
  let n = head;
  let open: Region | undefined;
  const parts = diffArrays(oldMid, newMid, { maxEditLength: REGIONS_MAX_EDIT_LENGTH });
  if (!parts) return undefined;
  for (const c of parts) {
    const count = c.value.length;
    if (!c.added && !c.removed) {
      if (open) regions.push(open);
      open = undefined;
      o += count;
      n += count;
      continue;
    }
    open ??= { os: o, oe: o, ns: n, ne: n };
    if (c.removed) open.oe = o += count;
    else open.ne = n += count;
  }
  if (open) regions.push(open);
  return regions;
}

/**
 * How often (0, 1, or 2 for "more") the block's lines occur in the file as the earlier blocks
 * left it: the new lines [0, doneNew), then the old lines [doneOld, end). Counted in each part
 * with its line index, plus the places that straddle the seam (checked line by line).
 */
function occurrences(oldIdx: LineIndex, newIdx: LineIndex | undefined, search: readonly string[], doneOld: number, doneNew: number): number {
  let n = oldIdx.find(search, doneOld).length;
  if (!newIdx || doneNew === 0) return n;
  n += newIdx.find(search, 0, doneNew).length;
  const k = search.length;
  const oldL = oldIdx.lines;
  const newL = newIdx.lines;
  for (let i = Math.max(0, doneNew - k + 1); i < doneNew && n < 2; i++) {
    const m = doneNew - i; // lines of the block in the new part; the other k - m start at doneOld
    if (doneOld + k - m > oldL.length || !newL[i]!.endsWith(search[0]!)) continue;
    let same = true;
    for (let j = 1; j < k && same; j++) same = (j < m ? newL[i + j] : oldL[doneOld + j - m]) === search[j];
    if (same) n++;
  }
  return Math.min(n, 2);
}

export interface BuildBlocksOptions {
  /** Context lines a block may take on each side to make its SEARCH unique. */
  maxContextLines: number;
  /** One block for the whole change (S&R FIM restores one span), not one per changed region. */
  oneBlock?: boolean;
  /** The changed regions when a diff already gives them (git's hunks, see edits/git-diff.ts regionsOfDiff). */
  regions?: Region[];
}

export type BuildResult =
  | { blocks: EditBlock[] }
  | { reason: 'sr_not_unique' | 'sr_final_newline_change' | 'sr_marker_in_text' | 'sr_no_change' | 'sr_diff_over_bound'; message: string };

const withFinalNewline = (t: string) => (t.length > 0 && !t.endsWith('\n') ? t + '\n' : t);

/**
 * The blocks that turn `before` into `after`: one per changed region, each widened by
 * context lines (one more on each side at a time) until its SEARCH is non-empty and occurs
 * exactly once in the file as the earlier blocks left it. Regions whose context would touch
 * merge into one block. Gives a reason instead when that takes more than `maxContextLines`.
 */
export function buildBlocks(path: string, before: string | undefined, after: string, opts: BuildBlocksOptions): BuildResult {
  if ((before ?? '') === after) return { reason: 'sr_no_change', message: `${path}: nothing changes` };
  if (before === undefined || before === '') {
    if (after.length > 0 && !after.endsWith('\n')) return { reason: 'sr_final_newline_change', message: `${path}: a new file without a final newline` };
    return { blocks: [{ path, search: '', replace: after }] };
  }
  if (before.endsWith('\n') !== after.endsWith('\n') && after !== '') {
    return { reason: 'sr_final_newline_change', message: `${path}: the change adds or removes the final newline` };
  }
  const oldText = withFinalNewline(before);
  const oldL = splitLines(oldText);
  const newL = splitLines(withFinalNewline(after));
  const regions = opts.regions ?? changedRegions(oldL, newL, opts.oneBlock ?? false);
  if (!regions) return { reason: 'sr_diff_over_bound', message: `${path}: the change is over ${REGIONS_MAX_EDIT_LENGTH} changed lines` };
  const blocks: EditBlock[] = [];
  // The first tries on the untouched file scan its text natively; the line index is made (once)
  // when a change needs more tries or blocks, where rescanning would cost the file each time.
  let oldIdx: LineIndex | undefined;
  let newIdx: LineIndex | undefined; // made when a second block needs the new lines before it
  let scans = 0;
  const count = (searchLines: string[], doneOld: number, doneNew: number): number => {
    if (doneOld === 0 && doneNew === 0 && scans++ < 3) return countOccurrences(oldText, searchLines.join(''));
    oldIdx ??= new LineIndex(oldL);
    newIdx ??= doneNew > 0 ? new LineIndex(newL) : undefined;
    return occurrences(oldIdx, newIdx, searchLines, doneOld, doneNew);
  };
  let doneOld = 0; // old lines before this index are already covered by emitted blocks
  let doneNew = 0;
  for (let r = 0; r < regions.length; r++) {
    const reg = { ...regions[r]! };
    let ctx = 0;
    for (;;) {
      const s0 = Math.max(doneOld, reg.os - ctx);
      const s1 = Math.min(oldL.length, reg.oe + ctx);
      const next = regions[r + 1];
      if (next && s1 > next.os) {
        // The widened context reaches the next change: one block covers both.
        reg.oe = next.oe;
        reg.ne = next.ne;
        r++;
        continue;
      }
      const searchLines = oldL.slice(s0, s1);
      if (searchLines.length > 0 && count(searchLines, doneOld, doneNew) === 1) {
        const search = searchLines.join('');
        const lead = reg.os - s0;
        const afterCtx = s1 - reg.oe;
        const replace = newL.slice(reg.ns - lead, reg.ne + afterCtx).join('');
        if ([...splitLines(search), ...splitLines(replace)].some((l) => MARKERS.has(l.replace(/\n$/, '')))) {
          return { reason: 'sr_marker_in_text', message: `${path}: a changed line is itself a SEARCH/REPLACE marker` };
        }
        blocks.push({ path, search, replace });
        doneOld = s1;
        doneNew = reg.ne + afterCtx;
        break;
      }
      if (ctx >= opts.maxContextLines || (s0 <= doneOld && s1 >= oldL.length)) {
        return { reason: 'sr_not_unique', message: `${path}: no SEARCH within ${opts.maxContextLines} context lines is unique` };
      }
      ctx++;
    }
  }
  return { blocks };
}
