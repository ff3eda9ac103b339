import { spawnProcess, type SpawnedProcess } from '../../io/spawn-process.js';
import { createInterface } from 'node:readline';

/** Small, bounded access to a git repository: one long-running `cat-file` and short commands. */
export function git(dir: string, args: string[], maxBytes = 256 << 20): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const p = spawnProcess('git', ['-C', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const p = spawnProcess('git', ['-C', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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

/** An object's header as cat-file gives it; undefined when git has no such object. */
type ObjectInfo = { type: string; size: number } | undefined;

/** A request written to cat-file: its answers, read in turn as git's output arrives. */
interface CatRequest {
  contents: boolean;
  left: number;
  answers: (ObjectInfo | Buffer | undefined)[];
  resolve: (answers: (ObjectInfo | Buffer | undefined)[]) => void;
  reject: (e: Error) => void;
}

/**
 * `git cat-file --batch-command --buffer`: object sizes and contents without a process per object.
 * Requests may overlap (a walk reads the next commit's objects while this one's context is
 * built): each is written at once and its answers are read in the order written, as git gives
 * them. git's output is parsed as it arrives (`take`: header lines, then a body of the size the
 * header gives), each body copied once from the pipe's chunks; a request's promise settles when
 * its last answer is in.
 */
export class CatFile {
  private readonly proc: SpawnedProcess;
  /** Requests written and not fully answered, in order. */
  private readonly requests: CatRequest[] = [];
  /** The start of a header line whose end has not arrived. */
  private head: Buffer = Buffer.alloc(0);
  /** The body being read: its size, the chunks of it so far (its final newline included). */
  private body: { size: number; parts: Buffer[]; got: number } | undefined;
  private failed: Error | undefined;

  constructor(dir: string) {
    // --buffer: git holds a request's small answers (info lines, headers) until its `flush`
    // instead of a pipe write each (each a wake-up and a read here): cat-file's writes on the
    // go-readability walk 14,483 -> 8,891 (a large blob still goes out in 16 KB writes).
    this.proc = spawnProcess('git', ['-C', dir, 'cat-file', '--batch-command', '--buffer']);
    this.proc.stdout.on('data', (d: Buffer) => this.take(d));
    const fail = (e: Error) => {
      this.failed ??= e;
      for (const r of this.requests.splice(0)) r.reject(this.failed);
    };
    this.proc.on('error', fail);
    this.proc.on('close', () => fail(new Error(`git cat-file ended in ${dir}`)));
    this.proc.stdin.on('error', fail);
  }

  /** Parses git's output as it arrives: each header line, and after a `contents` header its body and newline. */
  private take(d: Buffer): void {
    let at = 0;
    while (at < d.length && this.requests.length > 0) {
      if (this.body) {
        const b = this.body;
        const n = Math.min(b.size + 1 - b.got, d.length - at);
        b.parts.push(d.subarray(at, at + n));
        [b.got, at] = [b.got + n, at + n];
        if (b.got === b.size + 1) {
          this.body = undefined;
          this.answer(Buffer.concat(b.parts).subarray(0, b.size));
        }
        continue;
      }
      const nl = d.indexOf(10, at);
      if (nl < 0) {
        this.head = Buffer.concat([this.head, d.subarray(at)]);
        return;
      }
      const line = (this.head.length ? Buffer.concat([this.head, d.subarray(at, nl)]) : d.subarray(at, nl)).toString('utf8');
      [this.head, at] = [Buffer.alloc(0), nl + 1];
      const parts = line.split(' ');
      const info: ObjectInfo = parts[1] === 'missing' || parts.length < 3 ? undefined : { type: parts[1]!, size: Number(parts[2]) };
      if (info && this.requests[0]!.contents) this.body = { size: info.size, parts: [], got: 0 };
      else this.answer(info);
    }
  }

  /** The next answer of the oldest request; the request settles with its last one. */
  private answer(a: ObjectInfo | Buffer | undefined): void {
    const r = this.requests[0]!;
    r.answers.push(a);
    if (--r.left > 0) return;
    this.requests.shift();
    r.resolve(r.answers);
  }

  /** Writes one command per object now; the answers come back in the order written. */
  private request(command: 'info' | 'contents', objects: readonly string[]): Promise<(ObjectInfo | Buffer | undefined)[]> {
    if (objects.length === 0) return Promise.resolve([]);
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.requests.push({ contents: command === 'contents', left: objects.length, answers: [], resolve, reject });
      this.proc.stdin.write(objects.map((o) => `${command} ${o}\n`).join('') + 'flush\n');
    });
  }

  async info(object: string): Promise<ObjectInfo> {
    return (await this.infoMany([object]))[0];
  }

  /** The headers of many objects, asked in one write and read back in order (no round trip each). */
  async infoMany(objects: readonly string[]): Promise<ObjectInfo[]> {
    return (await this.request('info', objects)) as ObjectInfo[];
  }

  async contents(object: string): Promise<Buffer | undefined> {
    return (await this.contentsMany([object]))[0];
  }

  /** The contents of many objects, asked in one write and read back in order. */
  async contentsMany(objects: readonly string[]): Promise<(Buffer | undefined)[]> {
    return (await this.request('contents', objects)) as (Buffer | undefined)[];
  }

  close(): void {
    this.proc.stdin.end();
  }
}
