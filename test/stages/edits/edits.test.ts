import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/paths.js';
import { chatTurns } from '../../../src/stages/fim/text.js';
import { parseBlocks, applyBlocks } from '../../../src/stages/fim/search-replace.js';
import type { Doc } from '../../../src/doc/document.js';
import { slow } from '../../helpers/tiers.js';
import { g, initRepo, write } from './helpers.js';

/** Runs this area's CLI commands (registered on their own, as main.ts registers them). */
function cli(args: string[]) {
  const script =
    `import { Command } from 'commander';` +
    `import { register as fim } from ${JSON.stringify(join(repoRoot, 'dist/src/cli/commands/fim.js'))};` +
    `import { register as edits } from ${JSON.stringify(join(repoRoot, 'dist/src/cli/commands/edits.js'))};` +
    `const p = new Command(); fim(p); edits(p); await p.parseAsync(process.argv);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, 'midpack', ...args], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

/** A repository with additions, edits (a repeated line, CRLF, no final newline), a rename, a deletion, a binary file and a merge. */
function buildRepo(root: string): string {
  const dir = initRepo(root);
  const commander = readFileSync(join(repoRoot, 'node_modules/commander/lib/option.js'), 'utf8');
  const help = readFileSync(join(repoRoot, 'node_modules/commander/lib/argument.js'), 'utf8');
  write(dir, 'lib/option.js', commander);
  write(dir, 'lib/argument.js', help);
  write(dir, 'm.py', 'def a():\n    return 1\n\n\ndef b():\n    return 1\n');
  write(dir, 'win.txt', 'one\r\ntwo\r\nthree\r\n');
  write(dir, 'README', 'no final newline\nlast line');
  g(dir, 'add', '.');
  g(dir, 'commit', '-qm', 'Initial import');
  write(dir, 'm.py', 'def a():\n    return 1\n\n\ndef b():\n    return 2\n');
  write(dir, 'win.txt', 'one\r\nTWO\r\nthree\r\n');
  write(dir, 'README', 'no final newline\nlast line, edited');
  g(dir, 'commit', '-qam', 'Fix b, shout two, edit the readme\n\nThe second return was wrong.');
  g(dir, 'mv', 'lib/argument.js', 'lib/arg.js');
  write(dir, 'lib/arg.js', help.replace('class Argument {', 'class Argument {\n  // renamed file'));
  g(dir, 'add', '-A');
  g(dir, 'commit', '-qm', 'Rename argument.js to arg.js');
  write(dir, 'logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 255]));
  write(dir, 'src/new.ts', 'export const x: number = 1;\n');
  g(dir, 'add', '.');
  g(dir, 'commit', '-qm', 'Add a logo and new.ts');
  g(dir, 'rm', '-q', 'README');
  g(dir, 'commit', '-qm', 'Delete the readme');
  g(dir, 'checkout', '-qb', 'side');
  write(dir, 'src/new.ts', 'export const x: number = 2;\n');
  g(dir, 'commit', '-qam', 'Side change');
  g(dir, 'checkout', '-q', 'main');
  write(dir, 'm.py', 'def a():\n    return 0\n\n\ndef b():\n    return 2\n');
  g(dir, 'commit', '-qam', 'Main change');
  g(dir, 'merge', '-q', '--no-ff', '-m', 'Merge side', 'side');
  return dir;
}

const readDocs = (file: string): Doc[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Doc);

test('midpack edits on a real git history: every diff applies with real git apply, every block set restores the commit', slow, () => {
  const root = mkdtempSync(join(tmpdir(), 'midpack-edits-'));
  try {
    const dir = buildRepo(root);
    const out = join(root, 'edits.jsonl');
    cli(['edits', dir, '--out', out, '--seed', '3', '--quiet']);
    const docs = readDocs(out);
    const manifest = JSON.parse(readFileSync(out + '.manifest.json', 'utf8'));
    const commits = g(dir, 'rev-list', 'HEAD').trim().split('\n');
    assert.equal(manifest.ledger.records_in, commits.length);
    assert.equal(manifest.ledger.records_in, manifest.ledger.records_out + Object.values(manifest.ledger.dropped as Record<string, number>).reduce((s, n) => s + n, 0));
    assert.deepEqual(manifest.ledger.dropped, { merge: 1 });
    assert.equal(manifest.stats.edits.files.dropped.binary, 1);
    assert.ok(manifest.stats.edits.failed.sr_unrepresentable >= 2, 'rename and deletion have no S&R form');
    // Only the initial import's README: a new file without a final newline has no block form.
    assert.equal(manifest.stats.edits.failed.sr_final_newline_change, 1);
    let diffs = 0;
    let srs = 0;
    for (const d of docs) {
      assert.equal(d.kind, 'edit');
      const commit = d.meta.commit as string;
      assert.ok(commits.includes(commit));
      assert.equal(d.meta.source_id, `proj@${commit}`);
      const files = d.meta.files as string[];
      const changed = g(dir, 'diff-tree', '-r', '-M', '--name-only', '--no-commit-id', '--root', commit).trim().split('\n').filter((p) => p !== 'logo.png');
      for (const p of changed) assert.ok(files.includes(p), `${p} in ${files}`);
      const [, user, answer] = chatTurns(d);
      const description = g(dir, 'log', '-1', '--format=%B', commit).trim();
      assert.ok(d.text.slice(user!.start, user!.end).startsWith(description + '\n\n'));
      const reply = d.text.slice(answer!.start, answer!.end);
      // The before-tree of the changed files, checked out from the commit's parent.
      const work = join(root, `w-${d.id}`);
      mkdirSync(work);
      const parent = g(dir, 'rev-list', '--parents', '-n', '1', commit).trim().split(' ')[1];
      const before = new Map<string, string>();
      for (const p of files) {
        if (!parent) continue;
        const r = spawnSync('git', ['show', `${parent}:${p}`], { cwd: dir });
        if (r.status === 0) {
          write(work, p, r.stdout);
          before.set(p, r.stdout.toString('utf8'));
        }
      }
      const afterOf = (p: string) => {
        const r = spawnSync('git', ['show', `${commit}:${p}`], { cwd: dir });
        return r.status === 0 ? r.stdout.toString('utf8') : undefined;
      };
      if (d.meta.format === 'diff') {
        diffs++;
        // The diff is git's own, as `git diff-tree -p` writes it, without the `index` lines (and the binary file).
        const own = g(dir, '-c', 'core.quotePath=false', 'diff-tree', '-r', '-M', '-p', '--root', '--no-commit-id', commit).split(/(?=^diff --git )/m);
        assert.equal(reply, own.filter((s) => !s.includes('\nBinary files ')).map((s) => s.split('\n').filter((l) => !l.startsWith('index ')).join('\n')).join(''));
        writeFileSync(join(root, 'p.diff'), reply);
        const r = spawnSync('git', ['apply', join(root, 'p.diff')], { cwd: work, encoding: 'utf8', env: { ...process.env, GIT_CEILING_DIRECTORIES: root } });
        assert.equal(r.status, 0, `${commit}: ${r.stderr}\n${reply}`);
        for (const p of files) {
          const want = afterOf(p);
          const got = spawnSync('cat', [join(work, p)]).stdout?.toString('utf8');
          assert.equal(want === undefined ? spawnSync('test', ['-e', join(work, p)]).status !== 0 : got === want, true, `${commit}: ${p}`);
        }
      } else {
        srs++;
        const { blocks, rest } = parseBlocks(reply);
        assert.equal(rest, reply.length);
        const applied = applyBlocks(before, blocks) as Map<string, string>;
        for (const p of files) assert.equal(applied.get(p), afterOf(p), `${commit}: ${p}`);
      }
    }
    assert.equal(diffs, commits.length - 1);
    assert.ok(srs >= 2);
    // Byte-identical rerun; per-file samples; a format drawn by weight.
    const again = join(root, 'again.jsonl');
    cli(['edits', dir, '--out', again, '--seed', '3', '--quiet']);
    assert.equal(readFileSync(again, 'utf8'), readFileSync(out, 'utf8'));
    const perFile = join(root, 'per-file.jsonl');
    cli(['edits', dir, '--out', perFile, '--per', 'file', '--formats', 'sr=1,diff=1', '--related', '0', '--quiet']);
    const pf = readDocs(perFile);
    assert.ok(pf.every((d) => (d.meta.files as string[]).length <= 2 && (d.meta.source_id as string).includes(':')));
    assert.equal(new Set(pf.map((d) => d.meta.source_id)).size, pf.length, 'one sample per file with --formats weights');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('midpack edits from rows: before/after/description, malformed rows counted, sr_diff carries both forms', () => {
  const root = mkdtempSync(join(tmpdir(), 'midpack-rows-'));
  try {
    const src = readFileSync(join(repoRoot, 'node_modules/commander/lib/error.js'), 'utf8');
    const rows = [
      { id: 'r1', path: 'lib/error.js', before: src, after: src.replace('class CommanderError', 'class CommanderFailure'), description: 'Rename the error class' },
      { id: 'r2', before: 'x\n', description: 'no after' },
      { id: 'r3', path: '../escape', before: 'a\n', after: 'b\n', description: 'bad path' },
    ];
    const input = join(root, 'rows.jsonl');
    writeFileSync(input, rows.map((r) => JSON.stringify(r)).join('\n') + '\nnot json\n');
    const out = join(root, 'out.jsonl');
    cli(['edits', input, '--out', out, '--formats', 'sr_diff', '--mask-prompt', '--quiet']);
    const [d, ...more] = readDocs(out);
    assert.equal(more.length, 0);
    assert.equal(d!.meta.format, 'sr_diff');
    assert.equal(d!.meta.source_id, 'r1');
    const answer = chatTurns(d!).at(-1)!;
    assert.deepEqual(d!.loss_mask_spans, [[0, answer.start]]);
    const reply = d!.text.slice(answer.start, answer.end);
    const { blocks, rest } = parseBlocks(reply);
    assert.equal((applyBlocks(new Map([['lib/error.js', src]]), blocks) as Map<string, string>).get('lib/error.js'), rows[0]!.after);
    assert.match(reply.slice(rest), /^diff --git a\/lib\/error\.js b\/lib\/error\.js\n--- a\/lib\/error\.js\n\+\+\+ b\/lib\/error\.js\n@@ /);
    const m = JSON.parse(readFileSync(out + '.manifest.json', 'utf8'));
    assert.deepEqual(m.ledger.dropped, { bad_path: 1, malformed_json: 1, missing_field: 1 });
    assert.equal(m.ledger.records_in, 4);
    assert.equal(m.stats.edits.git_apply_checked, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('git apply --check batches checked while the next is built: the same samples, ledger and figures for any batch size', () => {
  const root = mkdtempSync(join(tmpdir(), 'midpack-edits-batch-'));
  try {
    const bundle = join(repoRoot, 'data-samples/history/p-limit.bundle');
    const outputs = [1, 3, 1000].map((batch) => {
      const out = join(root, `batch-${batch}.jsonl`);
      cli(['edits', bundle, '--out', out, '--git-batch', String(batch), '--quiet']);
      const m = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8')) as { ledger: unknown; stats: { edits: { git_apply_checked: number } } };
      return { text: readFileSync(out, 'utf8'), ledger: m.ledger, stats: m.stats };
    });
    assert.ok(outputs[0]!.stats.edits.git_apply_checked > 3, 'several batches of one diff');
    for (const o of outputs.slice(1)) assert.deepEqual(o, outputs[0]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
