import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { getSystemErrorName } from 'node:util';
import { nativeBinding, type NativeBinding } from '../pack/packer.js';

/**
 * A child process without forking this one (issue 39). node:child_process forks (libuv 1.46:
 * clone without CLONE_VM), which write-protects every page this process has written: on this
 * project's VMs a run of 500-700 MB spent seconds of kernel time faulting its own memory back
 * after each git it started. The native addon's posix_spawnp shares the memory until git's exec.
 * MIDPACK_SPAWN=node, or an addon without it, uses node:child_process.
 */
export type StdioSetting = 'pipe' | 'ignore' | 'inherit';

export interface SpawnOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdio?: readonly [StdioSetting, StdioSetting, StdioSetting];
}

type ExitListener = (code: number | null, signal: NodeJS.Signals | null) => void;

/** What callers use of a ChildProcess; a stdio stream not piped is an empty one. */
export interface SpawnedProcess {
  readonly pid?: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  kill(signal?: NodeJS.Signals): boolean;
  on(event: 'error', listener: (e: NodeJS.ErrnoException) => void): this;
  on(event: 'exit' | 'close', listener: ExitListener): this;
}

const MODES: Record<StdioSetting, number> = { pipe: 0, ignore: 1, inherit: 2 };

const emptyReadable = () => Readable.from([]);
const discardingWritable = () => new Writable({ write: (_chunk, _enc, done) => done() });

function signalName(signal: number): NodeJS.Signals | null {
  const entry = Object.entries(constants.signals).find(([, n]) => n === signal);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}

/** The error child_process gives for a program it cannot start ('spawn git ENOENT'). */
function spawnError(errno: number, cmd: string, args: readonly string[]): NodeJS.ErrnoException {
  const code = getSystemErrorName(-errno);
  return Object.assign(new Error(`spawn ${cmd} ${code}`), { errno: -errno, code, syscall: `spawn ${cmd}`, path: cmd, spawnargs: [...args] });
}

class NativeChild extends EventEmitter {
  pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  private exited = false;
  /** As child_process: 'close' once the child exited and every piped output stream closed. */
  private closesLeft = 1;
  private status: [number | null, NodeJS.Signals | null] = [null, null];

  constructor(start: NonNullable<NativeBinding['spawnProcess']>, cmd: string, args: readonly string[], opts: SpawnOptions) {
    super();
    const stdio = opts.stdio ?? ['pipe', 'pipe', 'pipe'];
    // process.env, not environ, when none is given: a worker thread has a copy of its own, as child_process uses.
    const env = Object.entries(opts.env ?? process.env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
    const r = start(cmd, [cmd, ...args], opts.cwd ?? '', env, stdio.map((s) => MODES[s]), (code, signal) => this.onExit(code, signalName(signal)));
    const [inFd, outFd, errFd] = r.fds as [number, number, number];
    this.stdin = inFd >= 0 ? new Socket({ fd: inFd, readable: false, writable: true }) : discardingWritable();
    this.stdout = this.output(outFd);
    this.stderr = this.output(errFd);
    if (r.error !== 0) {
      // As child_process: 'error', then 'close' with the negative errno as the code.
      process.nextTick(() => {
        this.emit('error', spawnError(r.error, cmd, args));
        this.onExit(-r.error, null);
      });
    } else this.pid = r.pid;
  }

  private output(fd: number): Readable {
    if (fd < 0) return emptyReadable();
    this.closesLeft++;
    return new Socket({ fd, readable: true, writable: false }).once('close', () => this.closedOne());
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true;
    this.status = [code, signal];
    if (this.pid !== undefined) this.emit('exit', code, signal);
    // As child_process's flushStdio: an output nobody reads is drained, so that it closes.
    for (const s of [this.stdout, this.stderr]) if (s.readableFlowing === null) s.resume();
    this.closedOne();
  }

  private closedOne(): void {
    if (--this.closesLeft === 0) this.emit('close', ...this.status);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.exited || this.pid === undefined) return false;
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

function nativeSpawn(): NativeBinding['spawnProcess'] {
  if (process.env.MIDPACK_SPAWN === 'node') return undefined;
  try {
    return nativeBinding().spawnProcess;
  } catch {
    return undefined; // no addon built: child_process
  }
}

/** Starts `cmd` (looked up on PATH) with `args`; stdio piped unless told otherwise. */
export function spawnProcess(cmd: string, args: readonly string[], opts: SpawnOptions = {}): SpawnedProcess {
  const start = nativeSpawn();
  if (start) return new NativeChild(start, cmd, args, opts);
  const stdio = opts.stdio ?? ['pipe', 'pipe', 'pipe'];
  const child = spawn(cmd, args, { ...opts, stdio: [...stdio] });
  return Object.assign(child, {
    stdin: child.stdin ?? discardingWritable(),
    stdout: child.stdout ?? emptyReadable(),
    stderr: child.stderr ?? emptyReadable(),
  });
}
