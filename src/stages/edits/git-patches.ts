import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileHeaderNames } from './git-diff.js';

/**
 * A commit's changed files and git's own patch for each, from ONE long-running
 * `git diff-tree --stdin -r -M --raw -p` per repository: a commit id is written to its stdin,
 * then a line that is not an object name, which diff-tree copies to its output (and flushes)
 * after the commit's diff: that line marks where the commit's output ends.
 *
 * The patch of a file is git's text with its `index` line left out (the abbreviated object
 * names depend on what else the repository holds, not on the change). Paths are written bare
 * (core.quotePath=false), C-quoted only for control characters, `"` and `\`, as git-diff.ts does.
 * A commit whose output is over `maxBytes` is not kept: the caller lists its files with one
 * plain `git diff-tree --raw` (they get no git patch), so memory is bounded by the cap.
 */
export interface RawEntry {
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  status: string;
  oldPath: string;
  newPath: string;
}

const SENTINEL = '#midpack-end';
const NL = Buffer.from('\n');

export const patchKey = (oldPath: string, newPath: string) => `${oldPath}\0${newPath}`;

/** Unquotes one C-quoted path of git's raw output (quotes appear only when the path needs them). */
function unquoteRaw(s: string): string {
  if (!s.startsWith('"')) return s;
  const bytes: number[] = [];
  const esc: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, '\\': 92 };
  const body = Buffer.from(s.slice(1, -1), 'utf8');
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== 92) {
      bytes.push(body[i]!);
      continue;
    }
    const c = String.fromCharCode(body[++i]!);
    if (/[0-7]/.test(c)) {
      bytes.push(parseInt(body.subarray(i, i + 3).toString('latin1'), 8));
      i += 2;
    } else bytes.push(esc[c] ?? body[i]!);
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Parses the raw lines (`:mode mode sha sha status<TAB>path[<TAB>path]`) of diff-tree's output. */
export function parseRawLines(lines: readonly string[]): RawEntry[] {
  const entries: RawEntry[] = [];
  for (const line of lines) {
    if (!line.startsWith(':')) continue;
    const tab = line.indexOf('\t');
    const [oldMode, newMode, oldSha, newSha, status] = line.slice(1, tab).split(' ') as [string, string, string, string, string];
    const names = line.slice(tab + 1).match(/"(?:[^"\\]|\\.)*"|[^\t]+/g) ?? [];
    const oldPath = unquoteRaw(names[0] ?? '');
    const newPath = /^[RC]/.test(status) ? unquoteRaw(names[1] ?? '') : oldPath;
    entries.push({ oldMode, newMode, oldSha, newSha, status, oldPath, newPath });
  }
  return entries;
}

/** Splits a commit's patch into files, keyed by their paths; `index` lines are left out. */
export function splitPatch(patch: string): Map<string, string> {
  const out = new Map<string, string>();
  const starts: number[] = [];
  if (patch.startsWith('diff --git ')) starts.push(0);
  for (let at = patch.indexOf('\ndiff --git '); at >= 0; at = patch.indexOf('\ndiff --git ', at + 1)) starts.push(at + 1);
  starts.forEach((s, i) => {
    const text = patch.slice(s, starts[i + 1] ?? patch.length);
    const hunks = text.indexOf('\n@@ ');
    const head = hunks < 0 ? text : text.slice(0, hunks + 1);
    const headLines = head.split('\n').filter((l) => !l.startsWith('index '));
    const names = fileHeaderNames(headLines);
    if (!names || /\n(Binary files |GIT binary patch)/.test(head)) return;
    const key = patchKey(names[0], names[1]);
    if (!out.has(key)) out.set(key, headLines.join('\n') + (hunks < 0 ? '' : text.slice(hunks + 1)));
  });
  return out;
}

/**
 * Where `marker` starts in `buf` after a newline, the newline possibly among the bytes before it
 * (`tail`, which ends with the output's last bytes; a negative place is in `tail`); undefined if
 * not there. The seam of tail and buf is searched apart, so a chunk is not copied to be searched.
 */
function markerAt(tail: Buffer, buf: Buffer, marker: Buffer): number | undefined {
  const needle = Buffer.concat([NL, marker]);
  const i = Buffer.concat([tail, buf.subarray(0, needle.length)]).indexOf(needle);
  if (i >= 0) return i + 1 - tail.length;
  const j = buf.indexOf(needle);
  return j < 0 ? undefined : j + 1;
}

/**
 * The long-running `git diff-tree --stdin` of one repository. Commits may be asked ahead
 * (`prefetch`): git diffs them while the caller works on earlier ones; outputs come back in
 * the order asked, each cut at its marker line.
 */
export class DiffTreeStream {
  private readonly proc: ChildProcessWithoutNullStreams;
  /** Asked, in order; the first is the one whose output is being read. */
  private readonly asked: { seq: number; marker: Buffer }[] = [];
  private readonly seqOf = new Map<string, number>();
  private readonly done = new Map<number, string | undefined>();
  private cur: Buffer[] = [];
  private curSize = 0;
  private overflow = false;
  /** The last bytes of the output being read (a '\n' before its first byte), to find a marker cut between chunks. */
  private tail = NL;
  private seq = 0;
  private wake: (() => void) | undefined;
  private failed: Error | undefined;
  private stderr = '';

  constructor(
    dir: string,
    private readonly maxBytes: number,
  ) {
    const args = ['-C', dir, '-c', 'core.quotePath=false', 'diff-tree', '--stdin', '-r', '-M', '--raw', '-p', '--root', '--no-commit-id'];
    args.push('--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/');
    this.proc = spawn('git', args);
    this.proc.stdout.on('data', (d: Buffer) => {
      this.take(d);
      this.wake?.();
    });
    this.proc.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr = (this.stderr + d).slice(-4000)));
    const fail = (e: Error) => {
      this.failed ??= e;
      this.wake?.();
    };
    this.proc.on('error', fail);
    this.proc.on('close', (code) => fail(new Error(`git diff-tree --stdin ended (${code}) in ${dir}: ${this.stderr.trim()}`)));
    this.proc.stdin.on('error', fail);
  }

  /** Cuts the output at the markers of the commits asked, in order. */
  private take(d: Buffer): void {
    let buf = d;
    while (buf.length > 0) {
      const head = this.asked[0];
      if (!head) return; // nothing asked: git writes nothing
      const at = markerAt(this.tail, buf, head.marker); // where the marker starts in buf (< 0: in bytes already kept)
      if (at === undefined) {
        this.append(buf);
        return;
      }
      if (at > 0) this.append(buf.subarray(0, at));
      else if (at < 0 && !this.overflow) this.cur = [Buffer.concat(this.cur).subarray(0, this.curSize + at)];
      this.done.set(head.seq, this.overflow ? undefined : Buffer.concat(this.cur).toString('utf8'));
      this.asked.shift();
      [this.cur, this.curSize, this.overflow, this.tail] = [[], 0, false, NL];
      buf = buf.subarray(at + head.marker.length);
    }
  }

  private append(b: Buffer): void {
    this.curSize += b.length;
    this.tail = Buffer.concat([this.tail, b.subarray(-40)]).subarray(-40);
    if (this.curSize > this.maxBytes) {
      // Over the cap: the commit's output is not kept (memory stays bounded by the cap).
      this.overflow = true;
      this.cur = [];
    } else this.cur.push(b);
  }

  /** Asks git for a commit's diff now, to be taken later with `commit`. */
  prefetch(commit: string): void {
    if (this.seqOf.has(commit)) return;
    const seq = ++this.seq;
    const marker = Buffer.from(`${SENTINEL} ${seq}\n`);
    this.seqOf.set(commit, seq);
    this.asked.push({ seq, marker });
    // Asks made in one turn go to git in one write (a pipe write is a wake-up of git each).
    if (!this.unsent) setImmediate(() => this.send());
    this.unsent += `${commit}\n${marker.toString('latin1')}`;
  }

  private unsent = '';

  private send(): void {
    if (this.unsent) this.proc.stdin.write(this.unsent);
    this.unsent = '';
  }

  /** The commit's raw entries and patches; `raw` is undefined when its output was over the cap. */
  async commit(commit: string): Promise<{ raw?: RawEntry[]; patches: Map<string, string> }> {
    this.prefetch(commit);
    this.send();
    const seq = this.seqOf.get(commit)!;
    while (!this.done.has(seq)) {
      if (this.failed) throw this.failed;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
    const text = this.done.get(seq);
    this.done.delete(seq);
    this.seqOf.delete(commit);
    if (text === undefined) return { patches: new Map() };
    const body = text;
    const blank = body.indexOf('\n\n');
    const raw = parseRawLines((blank < 0 ? body : body.slice(0, blank)).split('\n'));
    return { raw, patches: blank < 0 ? new Map() : splitPatch(body.slice(blank + 2)) };
  }

  close(): void {
    this.unsent = '';
    this.proc.stdin.end();
  }
}
