import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { spawnProcess, type SpawnOptions } from '../../src/io/spawn-process.js';
import { nativeBinding } from '../../src/pack/packer.js';
import { slow } from '../helpers/tiers.js';

interface Ran {
  code: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: string;
  error?: NodeJS.ErrnoException;
  exits: number;
}

function run(cmd: string, args: string[], input = '', opts: SpawnOptions = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const p = spawnProcess(cmd, args, opts);
    const out: Buffer[] = [];
    let [stderr, exits, error] = ['', 0, undefined as NodeJS.ErrnoException | undefined];
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', (e) => (error = e));
    p.on('exit', () => exits++);
    p.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr, exits, ...(error ? { error } : {}) }));
    p.stdin.on('error', () => {});
    p.stdin.end(input);
  });
}

/** Runs `body` with the native spawn and with child_process's (MIDPACK_SPAWN=node). */
async function bothWays(body: (way: string) => Promise<void>): Promise<void> {
  const saved = process.env.MIDPACK_SPAWN;
  try {
    for (const way of ['native', 'node']) {
      if (way === 'node') process.env.MIDPACK_SPAWN = 'node';
      else delete process.env.MIDPACK_SPAWN;
      await body(way);
    }
  } finally {
    if (saved === undefined) delete process.env.MIDPACK_SPAWN;
    else process.env.MIDPACK_SPAWN = saved;
  }
}

function repoWithFile(bytes: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-spawn-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
  git('init', '-q');
  writeFileSync(join(dir, 'data.bin'), bytes);
  git('add', 'data.bin');
  git('commit', '-q', '-m', 'one');
  return dir;
}

const fdCount = () => readdirSync('/proc/self/fd').length;

test('the addon has the native spawn (the tests below exercise it, not the fallback)', () => {
  assert.equal(typeof nativeBinding().spawnProcess, 'function');
});

test('git output bytes, exit codes and stderr, the same both ways', async () => {
  const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) & 255));
  const dir = repoWithFile(bytes);
  try {
    await bothWays(async (way) => {
      const blob = await run('git', ['-C', dir, 'cat-file', 'blob', 'HEAD:data.bin']);
      assert.deepEqual([blob.code, blob.signal, blob.exits], [0, null, 1], way);
      assert.ok(blob.stdout.equals(bytes), way);
      const bad = await run('git', ['-C', dir, 'rev-parse', '--verify', '--quiet', 'no-such-ref']);
      assert.deepEqual([bad.code, bad.stdout.length], [1, 0], way);
      const fatal = await run('git', ['-C', join(dir, 'missing'), 'status']);
      assert.equal(fatal.code, 128, way);
      assert.match(fatal.stderr, /^fatal: cannot change to/, way);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stdin piped to git, cwd and env given', async () => {
  const input = 'midpack\n'.repeat(50_000); // over a pipe's 64 KB buffer
  const oid = createHash('sha1').update(`blob ${input.length}\0${input}`).digest('hex');
  await bothWays(async (way) => {
    const hashed = await run('git', ['hash-object', '--stdin'], input);
    assert.equal(hashed.stdout.toString(), `${oid}\n`, way);
    const shown = await run('sh', ['-c', 'pwd; echo "$MIDPACK_SPAWN_TEST"'], '', { cwd: '/', env: { PATH: process.env.PATH, MIDPACK_SPAWN_TEST: 'x y' }, stdio: ['ignore', 'pipe', 'ignore'] });
    assert.equal(shown.stdout.toString(), '/\nx y\n', way);
  });
});

test('a missing program: the error child_process gives, then close with the negative errno', async () => {
  await bothWays(async (way) => {
    const r = await run('midpack-no-such-program', ['a']);
    assert.equal(r.error?.code, 'ENOENT', way);
    assert.equal(r.error?.message, 'spawn midpack-no-such-program ENOENT', way);
    assert.deepEqual([r.code, r.exits], [-2, 0], way);
  });
});

test('kill() ends a long-running git cat-file --batch; it is reaped', async () => {
  const dir = repoWithFile(Buffer.from('x'));
  await bothWays(async (way) => {
    const p = spawnProcess('git', ['cat-file', '--batch'], { cwd: dir });
    const closed = new Promise<[number | null, string | null]>((resolve) => p.on('close', (code, signal) => resolve([code, signal])));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(p.kill(), true, way);
    assert.deepEqual(await closed, [null, 'SIGTERM'], way);
    assert.equal(p.kill(), false, way);
    assert.equal(existsSync(`/proc/${p.pid}`), false, `${way}: no zombie left`);
  });
  rmSync(dir, { recursive: true, force: true });
});

test('no file descriptor or zombie left after 50 spawns', async () => {
  await run('git', ['--version']); // the first spawn opens what stays open (libuv's signal pipe)
  const before = fdCount();
  const pids: number[] = [];
  for (let i = 0; i < 50; i++) {
    const p = spawnProcess('git', ['--version']);
    pids.push(p.pid!);
    p.stdout.resume();
    p.stdin.end();
    await new Promise((resolve) => p.on('close', resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(fdCount(), before);
  assert.deepEqual(pids.filter((pid) => existsSync(`/proc/${pid}`)), []);
});

test('works in a worker thread', async () => {
  const module = new URL('../../src/io/spawn-process.js', import.meta.url).href;
  const code = `
    const { parentPort } = require('node:worker_threads');
    process.env.MIDPACK_WORKER_ENV = 'set in the worker';
    import(${JSON.stringify(module)}).then(({ spawnProcess }) => {
      const p = spawnProcess('sh', ['-c', 'git --version; echo "$MIDPACK_WORKER_ENV"']);
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.stdin.end();
      p.on('close', (code) => parentPort.postMessage({ code, out }));
    });`;
  const worker = new Worker(code, { eval: true });
  const got = await new Promise<{ code: number; out: string }>((resolve, reject) => worker.once('message', resolve).once('error', reject));
  await worker.terminate();
  assert.equal(got.code, 0);
  assert.match(got.out, /^git version .*\nset in the worker\n$/);
});

test('workers terminated as their children end: the process carries on (it aborted: a freed thread-safe function was called)', slow, () => {
  // In a process of its own, since the failure was a fatal error of the whole process. Each round
  // a worker starts 8 children and is terminated as soon as the first has ended, while the others'
  // ends are being reported to it; 16 rounds aborted every time before the fix.
  const module = new URL('../../src/io/spawn-process.js', import.meta.url).href;
  const worker = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(module)}).then(({ spawnProcess }) => {
      for (let i = 0; i < 8; i++) {
        const p = spawnProcess('true', []);
        p.stdin.end();
        p.on('exit', () => parentPort.postMessage('exited'));
      }
    });`;
  const main = `
    const { Worker } = require('node:worker_threads');
    (async () => {
      for (let round = 0; round < 16; round++) {
        const w = new Worker(${JSON.stringify(worker)}, { eval: true });
        await new Promise((resolve, reject) => w.once('message', resolve).once('error', reject));
        await w.terminate();
      }
      process.stdout.write('done');
    })();`;
  const r = spawnSync(process.execPath, ['-e', main], { encoding: 'utf8', timeout: 120_000 });
  assert.deepEqual([r.status, r.signal, r.stdout], [0, null, 'done'], r.stderr);
  assert.doesNotMatch(r.stderr, /FATAL/);
});
