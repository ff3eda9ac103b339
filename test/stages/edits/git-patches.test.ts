import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { repoRoot, sharedDir } from '../../helpers/paths.js';
import { slow } from '../../helpers/tiers.js';
import { DiffTreeStream, splitPatch } from '../../../src/stages/edits/git-patches.js';
import { TreeFiles } from '../../../src/stages/edits/tree-files.js';
import { ContentCache } from '../../../src/stages/edits/content-cache.js';
import { CatFile } from '../../../src/stages/edits/git.js';
import { gitApplyCheck } from '../../../src/stages/edits/git-apply.js';
import { applyGitDiff, gitDiff, type FileChange } from '../../../src/stages/edits/git-diff.js';
import { collect, defaultContext } from '../../../src/core/stage.js';
import { DEFAULT_EDIT_OPTIONS, editSamples } from '../../../src/stages/edits/edit-sample.js';
import type { EditUnit } from '../../../src/stages/edits/history.js';
import { g, initRepo, write } from './helpers.js';

/** Paths git writes bare, quoted or with a TAB after them; CRLF, BOM, no final newline, a rename, a mode change, a binary file. */
function buildRepo(root: string): string {
  const dir = initRepo(root);
  const option = readFileSync(join(repoRoot, 'node_modules/commander/lib/option.js'), 'utf8');
  write(dir, 'lib/option.js', option);
  write(dir, 'sp ace/ünï códe.py', 'def a():\n    return 1\n');
  write(dir, 'quote"d\\name.txt', 'one\ntwo\n');
  write(dir, 'win.txt', 'one\r\ntwo\r\n');
  write(dir, 'bom.txt', '\ufeffwith a BOM\nline\n');
  write(dir, 'tail', 'no final newline');
  write(dir, 'run.sh', '#!/bin/sh\necho hi\n');
  g(dir, 'add', '.');
  g(dir, 'commit', '-qm', 'Initial');
  write(dir, 'lib/option.js', option.replace(/this\./g, 'self.').replace('class Option {', 'class Option {\n  // edited'));
  write(dir, 'sp ace/ünï códe.py', 'def a():\n    return 2\n');
  write(dir, 'quote"d\\name.txt', 'one\nTWO\n');
  write(dir, 'win.txt', 'one\r\nTWO\r\n');
  write(dir, 'bom.txt', '\ufeffwith a BOM, edited\nline\n');
  write(dir, 'tail', 'no final newline, edited');
  write(dir, 'logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
  g(dir, 'update-index', '--add', '--chmod=+x', 'run.sh');
  g(dir, 'add', '.');
  g(dir, 'commit', '-qm', 'Edit everything');
  g(dir, 'mv', 'win.txt', 'renamed win.txt');
  g(dir, 'commit', '-qm', 'Rename');
  return dir;
}

test("git diff-tree --stdin gives each commit's raw entries and git's own patch per file, in one process", async () => {
  const root = mkdtempSync(join(tmpdir(), 'midpack-patches-'));
  try {
    const dir = buildRepo(root);
    const stream = new DiffTreeStream(dir, 1 << 24);
    for (const commit of g(dir, 'rev-list', '--reverse', 'HEAD').trim().split('\n')) {
      const got = await stream.commit(commit);
      const want = g(dir, '-c', 'core.quotePath=false', 'diff-tree', '-r', '-M', '-p', '--root', '--no-commit-id', commit);
      // Git's patch, file by file, with only the `index` lines left out (a binary file has none).
      const sections = want.split(/(?=^diff --git )/m).filter((s) => !s.includes('\nBinary files '));
      assert.equal([...got.patches.values()].join(''), sections.map((s) => s.split('\n').filter((l) => !l.startsWith('index ')).join('\n')).join(''));
      assert.deepEqual([...got.patches.keys()], [...splitPatch(want).keys()]);
      // The raw entries, paths unquoted, as the NUL-separated raw output has them.
      const z = g(dir, 'diff-tree', '-r', '-M', '-z', '--raw', '--root', '--no-commit-id', commit).split('\0');
      const entries: string[][] = [];
      for (let i = 0; i + 1 < z.length; ) {
        const status = z[i++]!.split(' ')[4]!;
        const old = z[i++]!;
        entries.push([status, old, /^R/.test(status) ? z[i++]! : old]);
      }
      assert.deepEqual(got.raw!.map((e) => [e.status, e.oldPath, e.newPath]), entries);
    }
    // Asked all at once ahead (git diffs them while earlier ones are read): the same outputs, in order.
    const ahead = new DiffTreeStream(dir, 1 << 24);
    const all = g(dir, 'rev-list', '--reverse', 'HEAD').trim().split('\n');
    for (const c of all) ahead.prefetch(c);
    for (const c of all) assert.deepEqual(await ahead.commit(c), await stream.commit(c));
    ahead.close();
    // A commit over the cap gives no patch but its listing, and the stream goes on with the next one.
    const small = new DiffTreeStream(dir, 64);
    const [first, second, third] = g(dir, 'rev-list', '--reverse', 'HEAD').trim().split('\n');
    for (const c of [first!, second!]) {
      const got = await small.commit(c);
      assert.equal(got.patches.size, 0);
      assert.deepEqual(got.raw, (await stream.commit(c)).raw);
    }
    // A commit whose listing is not accepted is not diffed: its listing alone.
    const listed: number[] = [];
    const picky = new DiffTreeStream(dir, 1 << 24, (raw) => (listed.push(raw.length), raw.length <= 1));
    try {
      for (const c of all) picky.prefetch(c);
      const [a, b, c] = [await picky.commit(first!), await picky.commit(second!), await picky.commit(third!)];
      const files = all.map((c) => g(dir, 'diff-tree', '-r', '-M', '--raw', '--root', '--no-commit-id', c).trim().split('\n').length);
      assert.deepEqual(listed, files);
      assert.deepEqual([a.raw!.length, b.raw!.length, a.patches.size, b.patches.size], [files[0], files[1], 0, 0]);
      assert.ok(files[2] === 1 && c.patches.size === 1);
      assert.deepEqual(c, await stream.commit(third!));
    } finally {
      stream.close();
      small.close();
      picky.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('large fixtures through the long-running processes: each blob and each commit patch as git prints them alone', slow, async (t) => {
  // The shared go-readability history: HTML fixtures of hundreds of KB, arriving in many pipe chunks.
  const bundle = join(sharedDir, 'data', 'histories', 'go-readability.bundle');
  if (!existsSync(bundle)) return t.skip('the shared go-readability bundle is not here');
  const root = mkdtempSync(join(tmpdir(), 'midpack-large-'));
  try {
    const dir = join(root, 'r');
    execFileSync('git', ['clone', '-q', '--no-checkout', bundle, dir]);
    const raw = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { maxBuffer: 1 << 28 });
    // The commits with the most added lines (one `git log --numstat`), asked all at once: markers fall across chunks.
    const added = g(dir, 'log', '--no-merges', '--format=@%H', '--numstat', 'HEAD').split('@').filter(Boolean).map((s) => {
      const [c, ...lines] = s.trim().split('\n');
      return [c!, lines.reduce((a, l) => a + (Number(l.split('\t')[0]) || 0), 0)] as const;
    });
    const big = added.sort((a, b) => b[1] - a[1]).slice(0, 12).map(([c]) => c);
    const stream = new DiffTreeStream(dir, 1 << 26);
    try {
      for (const c of big) stream.prefetch(c);
      for (const c of big) {
        const want = splitPatch(g(dir, '-c', 'core.quotePath=false', 'diff-tree', '-r', '-M', '-p', '--root', '--no-commit-id', c));
        assert.deepEqual((await stream.commit(c)).patches, want, c);
      }
    } finally {
      stream.close();
    }
    // Every blob those commits write, in one request (megabytes), then one by one: git's bytes.
    const written = big.slice(0, 6).flatMap((c) => g(dir, 'diff-tree', '-r', '--root', '--no-commit-id', c).trim().split('\n').map((l) => l.split(' ')[3]!));
    const blobs = [...new Set(written)].filter((s) => !/^0+$/.test(s)).slice(0, 40);
    const cat = new CatFile(dir);
    try {
      const many = await cat.contentsMany(blobs);
      assert.ok(many.reduce((a, b) => a + b!.length, 0) > 2 << 20, 'megabytes read at once');
      for (const [i, sha] of blobs.entries()) {
        const want = raw('cat-file', 'blob', sha);
        assert.ok(many[i]!.equals(want), sha);
        assert.ok((await cat.contents(sha))!.equals(want), sha);
        assert.equal((await cat.info(sha))!.size, want.length);
      }
    } finally {
      cat.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('TreeFiles lists what git ls-tree -r --long lists, in its order, from the one cat-file process', async () => {
  const root = mkdtempSync(join(tmpdir(), 'midpack-tree-'));
  try {
    const dir = buildRepo(root);
    const cat = new CatFile(dir);
    // A roomy cache, and one so small that every listing evicts: the same lists.
    const trees = [new TreeFiles(cat, new ContentCache(1 << 20)), new TreeFiles(cat, new ContentCache(600))];
    for (const commit of g(dir, 'rev-list', 'HEAD').trim().split('\n')) {
      const want = g(dir, 'ls-tree', '-r', '-z', '--long', commit)
        .split('\0')
        .map((l) => /^100(?:644|755) blob ([0-9a-f]+) +(\d+)\t(.*)$/s.exec(l))
        .filter((m) => m !== null)
        .map((m) => ({ path: m![3]!, sha: m![1]!, size: Number(m![2]) }));
      for (const tree of trees) assert.deepEqual(await tree.list(commit), want);
    }
    cat.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('CatFile requests that overlap (the next commits read while one becomes samples) each get their own answers', async () => {
  const root = mkdtempSync(join(tmpdir(), 'midpack-cat-'));
  try {
    const dir = buildRepo(root);
    const cat = new CatFile(dir);
    const blobs = g(dir, 'ls-tree', '-r', 'HEAD~1').trim().split('\n').map((l) => l.split(/\s+/)[2]!);
    const commits = g(dir, 'rev-list', 'HEAD').trim().split('\n');
    // All asked in one turn, none awaited before the next is written: answers come back in the order written.
    const empty = execFileSync('git', ['-C', dir, 'hash-object', '-w', '--stdin'], { input: '' }).toString().trim();
    const [many, infos, one, message, missing, odd] = await Promise.all([
      cat.contentsMany(blobs),
      cat.infoMany([...blobs].reverse()),
      cat.contents(blobs[0]!),
      cat.contents(commits[1]!),
      cat.info('0'.repeat(40)),
      cat.contentsMany([empty, '0'.repeat(40), blobs[1]!]),
    ]);
    // An empty blob, then a missing object (a header and no body), then a blob: each its own answer.
    assert.deepEqual(odd.map((b) => b?.toString('latin1')), ['', undefined, many[1]!.toString('latin1')]);
    assert.deepEqual(many.map((b) => b!.toString('latin1')), blobs.map((b) => execFileSync('git', ['-C', dir, 'cat-file', 'blob', b]).toString('latin1')));
    assert.deepEqual(infos.map((i) => i!.size), [...blobs].reverse().map((b) => Number(g(dir, 'cat-file', '-s', b).trim())));
    assert.equal(one!.toString('latin1'), many[0]!.toString('latin1'));
    assert.match(message!.toString('utf8'), /\n\nEdit everything\n$/);
    assert.equal(missing, undefined);
    cat.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('git apply --check against a temporary index of the repository: accepted and rejected diffs named', async () => {
  const root = mkdtempSync(join(tmpdir(), 'midpack-apply-'));
  try {
    const dir = buildRepo(root);
    const [c1] = g(dir, 'rev-list', '--reverse', 'HEAD').trim().split('\n');
    const sha = g(dir, 'rev-parse', `${c1}:sp ace/ünï códe.py`).trim();
    const blob = { repo: dir, sha, mode: '100644' };
    const before = 'def a():\n    return 1\n';
    const good: FileChange = { oldPath: 'sp ace/ünï códe.py', newPath: 'sp ace/ünï códe.py', before, after: 'def a():\n    return 3\n', blob };
    // The before-text says what the blob does not hold: git rejects the diff made from it.
    const bad: FileChange = { ...good, before: 'def a():\n    return 9\n', after: 'def a():\n    return 3\n' };
    const added: FileChange = { oldPath: null, newPath: 'new/file.txt', before: null, after: 'x\n' };
    const verdicts = await gitApplyCheck([{ changes: [good] }, { changes: [bad] }, { changes: [added] }], root);
    assert.equal(verdicts[0], null);
    assert.match(verdicts[1]!, /patch failed|does not apply/);
    assert.equal(verdicts[2], null);
    // A run's work folder as a config names it, relative to the process's folder (the demo's `out: ../out/demo`).
    const near = await gitApplyCheck([{ changes: [good] }, { changes: [bad] }], relative(process.cwd(), root));
    assert.deepEqual(near.map((v) => v === null), [true, false]);
    assert.ok(!('error' in applyGitDiff(new Map([[good.oldPath!, before]]), gitDiff([good]))));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('jsdiff has a stated bound: a row past it is dropped by reason at once, not diffed for minutes', async () => {
  const lines = (tag: string) => Array.from({ length: 6000 }, (_, i) => `${tag} line ${i} ${(i * 7919) % 6007}\n`).join('');
  const unit: EditUnit = {
    label: 'rows:1',
    changeSets: [{ sourceId: 'big', repo: 'r', description: 'rewrite', changes: [{ oldPath: 'a.txt', newPath: 'a.txt', before: lines('old'), after: lines('new') }], context: [] }],
  };
  const ctx = defaultContext({ log: () => {} });
  const units = async function* () {
    yield unit;
  };
  const docs = await collect(editSamples(units(), { ...DEFAULT_EDIT_OPTIONS, gitCheck: false }, ctx));
  assert.equal(docs.length, 0);
  assert.deepEqual(ctx.ledger.toJSON().dropped, { no_verified_sample: 1 });
  const stats = ctx.stats.edits as { failed: Record<string, number> };
  assert.deepEqual(stats.failed, { sr_diff_over_bound: 1, diff_over_bound: 1 });
});
