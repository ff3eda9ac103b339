import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { cliPath, hashTree, midpack } from '../helpers/run-cli.js';
import { outputProblems, writeDocs } from '../helpers/shard-check.js';
import { slow } from '../helpers/tiers.js';

/**
 * Output integrity (issue 17): resumes never mix runs, a user's files are never deleted, one
 * folder has one writer, empty or mostly dropped input fails the job. Real CLI, real tokenizer,
 * real text from node_modules; MIDPACK_FAULT kills at deterministic points.
 */
const tmp = () => mkdtempSync(join(tmpdir(), 'midpack-integrity-'));
const SOURCES = ['commander/lib/command.js', 'commander/Readme.md', 'yaml/dist/parse/lexer.js', 'p-limit/readme.md', 'hyparquet/src/read.js'].map((f) =>
  join(repoRoot, 'node_modules', f),
);
const small = (L: number) => ['--seq-len', String(L), '--chunk-tokens', '1500', '--rows-per-shard', '3', '--workers', '1', '--no-progress'];

/**
 * Runs a command into a folder that may hold another dataset: when midpack refuses it (naming
 * --overwrite), runs it again with --overwrite. Either way the shards are then checked.
 */
function intoOther(args: string[], env: Record<string, string> = {}) {
  const r = midpack(args, { env });
  if (r.status === 1 && /holds a midpack output of other inputs or settings.*--overwrite/.test(r.stderr)) return midpack([...args, '--overwrite'], { env });
  return r;
}

async function assertOutput(out: string, docs: Map<string, string>, L: number): Promise<void> {
  assert.deepEqual(await outputProblems(out, docs, L), []);
}

test('1: a killed rerun into a finished output of other inputs and seq-len never resumes from its shards', slow, async () => {
  const dir = tmp();
  const a = writeDocs(join(dir, 'a.jsonl'), 'a', SOURCES, 40, 1);
  const b = writeDocs(join(dir, 'b.jsonl'), 'b', SOURCES, 25, 2);
  const out = join(dir, 'out');
  assert.equal(midpack(['pack', join(dir, 'a.jsonl'), '--out', out, ...small(1024)]).status, 0);
  const killed = intoOther(['pack', join(dir, 'b.jsonl'), '--out', out, ...small(512)], { MIDPACK_FAULT: 'chunks:1' });
  assert.equal(killed.status, null, killed.stderr);
  const r = intoOther(['pack', join(dir, 'b.jsonl'), '--out', out, ...small(512)]);
  assert.equal(r.status, 0, r.stderr);
  await assertOutput(out, b, 512);
  assert.ok(a.size > 0);
});

test('1: the same through midpack run: a changed documents source and seq-len, killed, rerun', slow, async () => {
  const dir = tmp();
  const out = join(dir, 'out');
  const config = (input: string, L: number) => {
    const p = join(dir, `run-${L}.yaml`);
    writeFileSync(p, YAML.stringify({ out, sources: [{ name: 'docs', type: 'documents', inputs: [input] }], pack: { seqLen: L, chunkTokens: 1500, rowsPerShard: 3 } }));
    return p;
  };
  writeDocs(join(dir, 'a.jsonl'), 'a', SOURCES, 30, 3);
  const b = writeDocs(join(dir, 'b.jsonl'), 'b', SOURCES, 20, 4);
  const run = (cfg: string, env: Record<string, string> = {}) => intoOther(['run', cfg, '--workers', '1', '--no-progress'], env);
  assert.equal(run(config(join(dir, 'a.jsonl'), 1024)).status, 0);
  assert.equal(run(config(join(dir, 'b.jsonl'), 512), { MIDPACK_FAULT: 'chunks:1' }).status, null);
  const r = run(config(join(dir, 'b.jsonl'), 512));
  assert.equal(r.status, 0, r.stderr);
  await assertOutput(out, b, 512);
});

test('2: a killed pack of a.jsonl, then pack b.jsonl into the same folder: refused, or with --overwrite exactly b', slow, async () => {
  const dir = tmp();
  writeDocs(join(dir, 'a.jsonl'), 'a', SOURCES, 40, 5);
  const b = writeDocs(join(dir, 'b.jsonl'), 'b', SOURCES, 30, 6);
  const out = join(dir, 'out');
  assert.equal(midpack(['pack', join(dir, 'a.jsonl'), '--out', out, ...small(1024)], { env: { MIDPACK_FAULT: 'chunks:2' } }).status, null);
  const refused = midpack(['pack', join(dir, 'b.jsonl'), '--out', out, ...small(1024)]);
  if (refused.status !== 0) assert.match(refused.stderr, /holds a midpack output of other inputs or settings \(documents\.inputs\./);
  const r = refused.status === 0 ? refused : midpack(['pack', join(dir, 'b.jsonl'), '--out', out, '--overwrite', ...small(1024)]);
  assert.equal(r.status, 0, r.stderr);
  await assertOutput(out, b, 1024);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.deepEqual(m.inputs.map((i: { path: string }) => i.path), [join(dir, 'b.jsonl')]);
});

test('3: nothing packed exits non-zero naming why; --text-field, --allow-empty, --max-drop-rate', slow, async () => {
  const dir = tmp();
  const out = (n: string) => join(dir, `out-${n}`);
  const readme = midpack(['pack', join(repoRoot, 'README.md'), '--out', out('readme'), ...small(512)]);
  assert.equal(readme.status, 1);
  assert.match(readme.stderr, /no documents were packed: all \d+ records were dropped \(malformed_json \d+, e\.g\. .*README\.md:1/);
  mkdirSync(join(dir, 'no-docs'));
  writeFileSync(join(dir, 'no-docs', 'notes.txt'), 'not a document file');
  const folder = midpack(['pack', join(dir, 'no-docs'), '--out', out('folder'), ...small(512)]);
  assert.equal(folder.status, 1);
  assert.match(folder.stderr, /no documents were packed: the inputs hold no records/);
  writeFileSync(join(dir, 'empty.jsonl'), '');
  assert.equal(midpack(['pack', join(dir, 'empty.jsonl'), '--out', out('empty'), ...small(512)]).status, 1);
  assert.equal(midpack(['pack', join(dir, 'empty.jsonl'), '--out', out('empty-ok'), '--allow-empty', ...small(512)]).status, 0);

  const docs = writeDocs(join(dir, 'text.jsonl'), 'c', SOURCES, 6, 7);
  const rows = [...docs].map(([id, text]) => JSON.stringify({ id, content: text }));
  writeFileSync(join(dir, 'content.jsonl'), rows.join('\n') + '\n');
  const wrong = midpack(['pack', join(dir, 'content.jsonl'), '--out', out('content'), ...small(512)]);
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /all 6 records were dropped \(missing_text 6.*--text-field/);
  const right = midpack(['pack', join(dir, 'content.jsonl'), '--out', out('content-field'), '--text-field', 'content', ...small(512)]);
  assert.equal(right.status, 0, right.stderr);
  await assertOutput(out('content-field'), docs, 512);

  // 2 bad lines of 8 records: a quarter dropped
  writeFileSync(join(dir, 'mixed.jsonl'), ['{"id": "broken"', '{"text": 3}', ...[...docs].map(([id, text]) => JSON.stringify({ id, text }))].join('\n') + '\n');
  const strict = midpack(['pack', join(dir, 'mixed.jsonl'), '--out', out('strict'), '--max-drop-rate', '0.2', ...small(512)]);
  assert.equal(strict.status, 1);
  assert.match(strict.stderr, /pack: \d+ of 8 records \(\d+\.\d+%\) were dropped, more than --max-drop-rate 0\.2/);
  assert.equal(midpack(['pack', join(dir, 'mixed.jsonl'), '--out', out('lenient'), '--max-drop-rate', '0.9', ...small(512)]).status, 0);
});

test('3: midpack run with a source that yields nothing exits non-zero', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'empty.jsonl'), '');
  const cfg = join(dir, 'run.yaml');
  writeFileSync(cfg, YAML.stringify({ out: join(dir, 'out'), sources: [{ name: 'docs', type: 'documents', inputs: [join(dir, 'empty.jsonl')] }], pack: { seqLen: 512 } }));
  const r = midpack(['run', cfg, '--workers', '1', '--no-progress']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /no documents were packed/);
});

test('4: --overlong drop counts the dropped documents as dropped in the ledger and the summary', slow, () => {
  const dir = tmp();
  const texts = ['short one', 'short two', 'x'.repeat(20) + ' a much longer document '.repeat(40)];
  writeFileSync(join(dir, 'd.jsonl'), texts.map((text, i) => JSON.stringify({ id: `d${i}`, text })).join('\n') + '\n');
  const out = join(dir, 'out');
  const r = midpack(['pack', join(dir, 'd.jsonl'), '--out', out, '--overlong', 'drop', ...small(64)]);
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.equal(m.ledger.records_in, 3);
  assert.equal(m.ledger.records_out, 2);
  assert.deepEqual(m.ledger.dropped, { overlong_dropped: 1 });
  assert.equal(m.balanced, true);
  assert.match(r.stderr, /3 in, 2 packed \(balanced\)/);
  assert.match(r.stderr, /dropped overlong_dropped: 1/);
  // all dropped: nothing packed, a failure
  const all = midpack(['pack', join(dir, 'd.jsonl'), '--out', join(dir, 'out-1'), '--overlong', 'drop', ...small(1)]);
  assert.equal(all.status, 1);
  assert.match(all.stderr, /3 in, 0 packed/);
});

test('5: a non-midpack folder is refused and its .work and *.tmp-N files stay; in its own output midpack removes only its own names', slow, () => {
  const dir = tmp();
  writeDocs(join(dir, 'a.jsonl'), 'a', SOURCES, 10, 8);
  const user = join(dir, 'user');
  mkdirSync(join(user, '.work', 'mine'), { recursive: true });
  writeFileSync(join(user, '.work', 'mine', 'data.bin'), 'precious');
  mkdirSync(join(user, 'deep'), { recursive: true });
  writeFileSync(join(user, 'deep', 'model.ckpt.tmp-1234'), 'precious too');
  const before = hashTree(user);
  const r = midpack(['pack', join(dir, 'a.jsonl'), '--out', user, ...small(512)]);
  assert.deepEqual(hashTree(user), before, 'the user\'s files are untouched');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /is not empty and is not a midpack output/);
  assert.equal(midpack(['pack', join(dir, 'a.jsonl'), '--out', user, '--overwrite', ...small(512)]).status, 1);
  assert.deepEqual(hashTree(user), before);

  const out = join(dir, 'out');
  assert.equal(midpack(['pack', join(dir, 'a.jsonl'), '--out', out, ...small(512)]).status, 0);
  mkdirSync(join(out, 'mine'));
  writeFileSync(join(out, 'mine', 'notes.txt.tmp-77'), 'user file');
  writeFileSync(join(out, 'shards', 'my-export.tmp-5'), 'user file');
  writeFileSync(join(out, 'shards', 'part-00000.arrow.tmp-99999'), 'a leftover of midpack');
  assert.equal(midpack(['pack', join(dir, 'a.jsonl'), '--out', out, ...small(512)]).status, 0);
  assert.ok(existsSync(join(out, 'mine', 'notes.txt.tmp-77')));
  assert.ok(existsSync(join(out, 'shards', 'my-export.tmp-5')));
  assert.ok(!existsSync(join(out, 'shards', 'part-00000.arrow.tmp-99999')));
});

test('6: another dataset or --name is refused; --overwrite leaves no file of the old one, and keeps the user\'s', slow, async () => {
  const dir = tmp();
  writeDocs(join(dir, 'a.jsonl'), 'a', SOURCES, 30, 9);
  const out = join(dir, 'out');
  assert.equal(midpack(['pack', join(dir, 'a.jsonl'), '--out', out, '--name', 'first', ...small(512)]).status, 0);
  writeFileSync(join(out, 'README.txt'), 'my notes');
  const before = hashTree(out);
  const refused = midpack(['pack', join(dir, 'a.jsonl'), '--out', out, '--name', 'second', ...small(512)]);
  assert.deepEqual(hashTree(out), before, 'a refused job changes nothing');
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /config\.name was "first", now "second"/);
  const b = writeDocs(join(dir, 'b.jsonl'), 'b', SOURCES, 8, 10);
  const r = midpack(['pack', join(dir, 'b.jsonl'), '--out', out, '--name', 'second', '--overwrite', ...small(1024)]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(readdirSync(join(out, 'megatron')).filter((f) => f.startsWith('first_')), []);
  assert.equal(readFileSync(join(out, 'README.txt'), 'utf8'), 'my notes');
  await assertOutput(out, b, 1024);
});

test('7: a second pack into a folder in use fails with a clear message; a stale lock is taken over', slow, async () => {
  const dir = tmp();
  const docs = writeDocs(join(dir, 'a.jsonl'), 'a', SOURCES, 12, 11);
  const out = join(dir, 'out');
  // The first job reads stdin, so it holds the folder until stdin closes.
  const first = spawn(process.execPath, [cliPath, 'pack', '-', '--out', out, ...small(512)], { stdio: ['pipe', 'ignore', 'pipe'] });
  let firstErr = '';
  first.stderr.on('data', (d) => (firstErr += d));
  const lock = join(out, '.midpack.lock');
  for (let i = 0; i < 300 && !existsSync(lock); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(existsSync(lock), 'the first job took the lock');
  const second = midpack(['pack', join(dir, 'a.jsonl'), '--out', out, ...small(512)]);
  assert.equal(second.status, 1);
  assert.match(second.stderr, new RegExp(`is in use by another midpack job \\(process ${first.pid} on `));
  first.stdin.end(readFileSync(join(dir, 'a.jsonl')));
  const status = await new Promise((r) => first.on('exit', r));
  assert.equal(status, 0, firstErr);
  await assertOutput(out, docs, 512);
  assert.ok(!existsSync(lock), 'the lock is released');

  // a lock of a process that is gone (same host) is stale
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const host = (await import('node:os')).hostname();
  writeFileSync(lock, JSON.stringify({ pid: Number(dead.stdout), host, started: new Date().toISOString() }));
  const again = midpack(['pack', '-', '--out', out, ...small(512)], { input: readFileSync(join(dir, 'a.jsonl'), 'utf8') });
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stderr, /removing the stale lock of process \d+/);
});

test('14: --workers beyond the core count is capped, and says so', slow, async () => {
  const dir = tmp();
  const docs = writeDocs(join(dir, 'a.jsonl'), 'a', SOURCES, 5, 12);
  const r = midpack(['pack', join(dir, 'a.jsonl'), '--out', join(dir, 'out'), ...small(512), '--workers', '64']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /--workers 64 is more than the \d+ cores here: using \d+ \(--force-workers to use 64\)/);
  await assertOutput(join(dir, 'out'), docs, 512);
});

test('16: an input given twice is read once; a midpack output inside an input folder is skipped', slow, async () => {
  const dir = tmp();
  const data = join(dir, 'data');
  mkdirSync(data);
  const docs = writeDocs(join(data, 'a.jsonl'), 'a', SOURCES, 10, 13);
  const out = join(dir, 'out');
  const r = midpack(['pack', data, join(data, 'a.jsonl'), join(data, '.', 'a.jsonl'), '--out', out, ...small(512)]);
  assert.equal(r.status, 0, r.stderr);
  await assertOutput(out, docs, 512);
  assert.match(r.stderr, /input .*a\.jsonl is the same file as .*a\.jsonl: read once/);

  const inner = join(data, 'out');
  assert.equal(midpack(['pack', data, '--out', inner, ...small(512)]).status, 0);
  const again = midpack(['pack', data, '--out', inner, ...small(512)]);
  assert.equal(again.status, 0, again.stderr);
  await assertOutput(inner, docs, 512);
  assert.match(again.stderr, /skipping .*out: it is a midpack output folder/);
});

test('15: merge refuses ranks packed from different inputs with the same settings', slow, () => {
  const dir = tmp();
  writeDocs(join(dir, 'a.jsonl'), 'a', SOURCES, 12, 14);
  writeDocs(join(dir, 'b.jsonl'), 'b', SOURCES, 12, 15);
  const rank = (input: string, r: number, out: string) =>
    midpack(['pack', join(dir, input), '--out', out, '--rank', String(r), '--world-size', '2', ...small(512)]);
  const mixed = join(dir, 'mixed');
  assert.equal(rank('a.jsonl', 0, mixed).status, 0);
  assert.equal(rank('b.jsonl', 1, mixed).status, 0);
  const r = midpack(['merge', join(mixed, 'rank-00000'), join(mixed, 'rank-00001'), '--out', join(dir, 'merged')]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /were packed from different inputs \(.*a\.jsonl vs .*b\.jsonl/);
  const same = join(dir, 'same');
  assert.equal(rank('a.jsonl', 0, same).status, 0);
  assert.equal(rank('a.jsonl', 1, same).status, 0);
  const ok = midpack(['merge', join(same, 'rank-00000'), join(same, 'rank-00001'), '--out', join(dir, 'merged-ok')]);
  assert.equal(ok.status, 0, ok.stderr);
});

test('15: a counts file with one flipped byte is refused by mask apply, merge and show; the same counts twice are not merged', slow, () => {
  const dir = tmp();
  writeDocs(join(dir, 'a.jsonl'), 'a', SOURCES, 30, 16);
  const counts = join(dir, 'c.bin');
  assert.equal(midpack(['mask', 'count', join(dir, 'a.jsonl'), '--out', counts]).status, 0);
  assert.equal(midpack(['mask', 'show', counts]).status, 0);
  const body = readFileSync(counts);
  const flips = [4096 + 5, body.length - 3, 40]; // a record, a sample, the header JSON
  flips.forEach((at, k) => {
    const bad = join(dir, `bad-${k}.bin`);
    const copy = Buffer.from(body);
    copy[at] = copy[at]! ^ 0x10;
    writeFileSync(bad, copy);
    for (const args of [['mask', 'show', bad], ['mask', 'merge', bad, '--out', join(dir, `m-${k}.bin`)], ['mask', 'apply', join(dir, 'a.jsonl'), '--counts', bad, '--out', join(dir, `x-${k}.jsonl`)]]) {
      const r = midpack(args);
      assert.equal(r.status, 1, `${args.join(' ')} accepted a corrupt file`);
      assert.match(r.stderr, /bad-\d\.bin: (corrupt counts file|not a midpack mask counts file|unsupported)/);
    }
  });
  const twice = midpack(['mask', 'merge', counts, join(dir, '.', 'c.bin'), '--out', join(dir, 'twice.bin')]);
  assert.equal(twice.status, 1);
  assert.match(twice.stderr, /holds the same counts as .*c\.bin; merging it twice would double its counts/);
});
