import { spawnProcess, type SpawnedProcess } from '../../io/spawn-process.js';
import { fileHeaderNames } from './git-diff.js';

/**
 * A commit's changed files and git's own patch for each, from long-running `git diff-tree
 * --stdin` processes per repository (one lists with `--raw`, one writes patches with `-p`): a
 * commit id is written to its stdin, then a line that is not an object name, which diff-tree
 * copies to its output (and flushes) after the commit's diff: that line marks where the commit's
 * output ends.
 *
 * The patch of a file is git's text with its `index` line left out (the abbreviated object
 * names depend on what else the repository holds, not on the change). Paths are written bare
 * (core.quotePath=false), C-quoted only for control characters, `"` and `\`, as git-diff.ts does.
 * A commit whose patch is over `maxBytes` is not kept (its files get no git patch), so memory is
 * bounded by the cap.
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

/** A request of a MarkedOutputs: its marker line, and where its output goes. */
interface Asked {
  marker: Buffer;
  resolve: (text: string | undefined) => void;
  reject: (e: Error) => void;
}

/**
 * One long-running `git diff-tree --stdin`: commits may be asked ahead (git diffs them while the
 * caller works on earlier ones); outputs come back in the order asked, each cut at its marker
 * line. An output over `maxBytes` is not kept (undefined), so memory is bounded by the cap.
 */
class MarkedOutputs {
  private readonly proc: SpawnedProcess;
  /** Asked, in order; the first is the one whose output is being read. */
  private readonly asked: Asked[] = [];
  private cur: Buffer[] = [];
  private curSize = 0;
  private overflow = false;
  /** The last bytes of the output being read (a '\n' before its first byte), to find a marker cut between chunks. */
  private tail = NL;
  private seq = 0;
  private unsent = '';
  private failed: Error | undefined;
  private stderr = '';

  constructor(
    dir: string,
    args: readonly string[],
    private readonly maxBytes: number,
  ) {
    this.proc = spawnProcess('git', ['-C', dir, '-c', 'core.quotePath=false', 'diff-tree', '--stdin', ...args]);
    this.proc.stdout.on('data', (d: Buffer) => this.take(d));
    this.proc.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr = (this.stderr + d).slice(-4000)));
    const fail = (e: Error) => {
      this.failed ??= e;
      for (const a of this.asked.splice(0)) a.reject(this.failed);
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
      this.asked.shift();
      head.resolve(this.overflow ? undefined : Buffer.concat(this.cur).toString('utf8'));
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

  /** Asks git for a commit's output; asks made in one event-loop turn go to git in one write (a pipe write is a wake-up of git each). */
  output(commit: string): Promise<string | undefined> {
    if (this.failed) return Promise.reject(this.failed);
    const marker = Buffer.from(`${SENTINEL} ${++this.seq}\n`);
    const answer = new Promise<string | undefined>((resolve, reject) => this.asked.push({ marker, resolve, reject }));
    if (!this.unsent) setImmediate(() => this.send());
    this.unsent += `${commit}\n${marker.toString('latin1')}`;
    return answer;
  }

  /** Writes the asks not written yet now. */
  send(): void {
    if (this.unsent && !this.failed) this.proc.stdin.write(this.unsent);
    this.unsent = '';
  }

  close(): void {
    this.unsent = '';
    this.proc.stdin.end();
  }
}

/** What DiffTreeStream gives for a commit: its raw entries, and git's patch of each file when it was asked and fits the cap. */
interface CommitDiff {
  /** Undefined when even the listing was over its cap (the caller lists the files another way). */
  raw?: RawEntry[];
  patches: Map<string, string>;
}

/** The raw listing of a commit held at most: about 100 bytes a file, so a million files. */
const RAW_CAP = 128 << 20;

/**
 * A repository's commits' changed files and git's patches, from two long-running `git diff-tree
 * --stdin` processes: one lists each commit's files (`--raw`, cheap), the other writes the patches
 * (`-p`), asked only for a commit whose listing `wantsPatch` accepts. A commit over the walk's
 * file limit is not diffed at all: on the go-readability history, two such commits (187 and 60
 * files of HTML fixtures) were 30 MB of the 40 MB of patches git wrote and the walk read.
 */
export class DiffTreeStream {
  private readonly raws: MarkedOutputs;
  private readonly patchTexts: MarkedOutputs;
  private readonly asked = new Map<string, Promise<CommitDiff>>();

  constructor(
    dir: string,
    maxBytes: number,
    private readonly wantsPatch: (raw: readonly RawEntry[]) => boolean = () => true,
  ) {
    const common = ['-r', '-M', '--root', '--no-commit-id'];
    this.raws = new MarkedOutputs(dir, [...common, '--raw'], RAW_CAP);
    this.patchTexts = new MarkedOutputs(dir, [...common, '-p', '--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/'], maxBytes);
  }

  /** Asks git for a commit's diff now, to be taken later with `commit`. */
  prefetch(commit: string): void {
    if (this.asked.has(commit)) return;
    const diff = this.raws.output(commit).then(async (rawText): Promise<CommitDiff> => {
      if (rawText === undefined) return { patches: new Map() };
      const raw = parseRawLines(rawText.split('\n'));
      if (!this.wantsPatch(raw)) return { raw, patches: new Map() };
      const text = await this.patchTexts.output(commit);
      return { raw, patches: text === undefined ? new Map() : splitPatch(text) };
    });
    diff.catch(() => undefined); // thrown where `commit` awaits it
    this.asked.set(commit, diff);
  }

  /** The commit's raw entries and patches (none when its patch was not asked or over the cap). */
  async commit(commit: string): Promise<CommitDiff> {
    this.prefetch(commit);
    this.raws.send();
    const diff = this.asked.get(commit)!;
    this.asked.delete(commit);
    return diff;
  }

  close(): void {
    this.raws.close();
    this.patchTexts.close();
  }
}
