import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Small, bounded access to a git repository: one long-running `cat-file` and short commands. */
export function git(dir: string, args: string[], maxBytes = 256 << 20): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const p = spawn('git', ['-C', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      size += d.length;
      if (size > maxBytes) p.kill();
      else chunks.push(d);
    });
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => {
      if (size > maxBytes) reject(new Error(`git ${args[0]}: output over ${maxBytes} bytes`));
      else if (code !== 0) reject(new Error(`git ${args.join(' ')} in ${dir}: ${stderr.trim() || `exit ${code}`}`));
      else resolve(Buffer.concat(chunks));
    });
  });
}

/** Streams the lines of a git command's output (rev-list over a long history stays bounded). */
export async function* gitLines(dir: string, args: string[]): AsyncIterable<string> {
  const p = spawn('git', ['-C', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<number | null>((resolve, reject) => {
    p.on('error', reject);
    p.on('close', resolve);
  });
  for await (const line of createInterface({ input: p.stdout })) yield line;
  const code = await closed;
  if (code !== 0) throw new Error(`git ${args.join(' ')} in ${dir}: ${stderr.trim() || `exit ${code}`}`);
}

/**
 * `git cat-file --batch-command --buffer`: object sizes and contents without a process per object.
 * Requests may overlap (a walk reads the next commit's objects while this one's context is
 * built): each is written at once and its answers are read in turn, in the order written, as git
 * gives them.
 */
export class CatFile {
  private readonly proc: ChildProcessWithoutNullStreams;
  private buf: Buffer = Buffer.alloc(0);
  /**
   * Output not yet joined to `buf`: chunks are joined once the reader has the bytes it waits for
   * (`need`), not on every chunk, so a blob of megabytes arriving in 64 KB chunks is copied once,
   * not once per chunk (which copied a history's fixtures many times over).
   */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private need = 1;
  private wake: (() => void) | undefined;
  private failed: Error | undefined;
  /** The reads of the requests written so far: a request's answers are read after all earlier ones. */
  private reads: Promise<unknown> = Promise.resolve();

  constructor(dir: string) {
    // --buffer: git holds a request's small answers (info lines, headers) until its `flush`
    // instead of a pipe write each (each a wake-up and a read here): cat-file's writes on the
    // go-readability walk 14,483 -> 8,891 (a large blob still goes out in 16 KB writes).
    this.proc = spawn('git', ['-C', dir, 'cat-file', '--batch-command', '--buffer']);
    this.proc.stdout.on('data', (d: Buffer) => {
      this.pending.push(d);
      this.pendingBytes += d.length;
      if (this.buf.length + this.pendingBytes >= this.need) this.wake?.();
    });
    const fail = (e: Error) => {
      this.failed = e;
      this.wake?.();
    };
    this.proc.on('error', fail);
    this.proc.on('close', () => fail(new Error(`git cat-file ended in ${dir}`)));
    this.proc.stdin.on('error', fail);
  }

  /** Waits until `n()` finds what it looks for in `buf` (>= 0), each try with at least `bytes` in `buf` when the output has them. */
  private async waitFor(n: () => number, bytes: () => number): Promise<number> {
    for (;;) {
      this.need = bytes();
      if (this.buf.length + this.pendingBytes >= this.need) this.joinPending();
      const at = n();
      if (at >= 0) return at;
      if (this.failed) throw this.failed;
      this.need = Math.max(this.need, this.buf.length + 1);
      if (this.pendingBytes === 0 || this.buf.length + this.pendingBytes < this.need) await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
      this.joinPending();
    }
  }

  private joinPending(): void {
    if (this.pendingBytes === 0) return;
    this.buf = Buffer.concat(this.buf.length ? [this.buf, ...this.pending] : this.pending);
    [this.pending, this.pendingBytes] = [[], 0];
  }

  /** Writes `commands` now; `read` reads their answers once every earlier request's are read. */
  private request<T>(commands: string, read: () => Promise<T>): Promise<T> {
    this.proc.stdin.write(`${commands}flush\n`);
    const answer = this.reads.then(read);
    this.reads = answer.catch(() => undefined);
    return answer;
  }

  private async readHeader(): Promise<{ type: string; size: number } | undefined> {
    const nl = await this.waitFor(() => this.buf.indexOf(10), () => 1);
    const line = this.buf.subarray(0, nl).toString('utf8');
    this.buf = this.buf.subarray(nl + 1);
    const parts = line.split(' ');
    if (parts[1] === 'missing' || parts.length < 3) return undefined;
    return { type: parts[1]!, size: Number(parts[2]) };
  }

  async info(object: string): Promise<{ type: string; size: number } | undefined> {
    return this.request(`info ${object}\n`, () => this.readHeader());
  }

  /** The headers of many objects, asked in one write and read back in order (no round trip each). */
  async infoMany(objects: readonly string[]): Promise<({ type: string; size: number } | undefined)[]> {
    if (objects.length === 0) return [];
    return this.request(objects.map((o) => `info ${o}\n`).join(''), async () => {
      const out: ({ type: string; size: number } | undefined)[] = [];
      for (let i = 0; i < objects.length; i++) out.push(await this.readHeader());
      return out;
    });
  }

  async contents(object: string): Promise<Buffer | undefined> {
    return this.request(`contents ${object}\n`, () => this.readContents());
  }

  /** The contents of many objects, asked in one write and read back in order. */
  async contentsMany(objects: readonly string[]): Promise<(Buffer | undefined)[]> {
    if (objects.length === 0) return [];
    return this.request(objects.map((o) => `contents ${o}\n`).join(''), async () => {
      const out: (Buffer | undefined)[] = [];
      for (let i = 0; i < objects.length; i++) out.push(await this.readContents());
      return out;
    });
  }

  private async readContents(): Promise<Buffer | undefined> {
    const h = await this.readHeader();
    if (!h) return undefined;
    await this.waitFor(() => (this.buf.length >= h.size + 1 ? 0 : -1), () => h.size + 1);
    const body = Buffer.from(this.buf.subarray(0, h.size));
    this.buf = this.buf.subarray(h.size + 1);
    return body;
  }

  close(): void {
    this.proc.stdin.end();
  }
}
