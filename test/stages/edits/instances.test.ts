import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/paths.js';
import { chatTurns } from '../../../src/stages/fim/text.js';
import { collect, defaultContext } from '../../../src/core/stage.js';
import { editsSource } from '../../../src/stages/edits/source.js';
import { resolveEditsOptions } from '../../../src/stages/edits/options.js';
import type { Doc } from '../../../src/doc/document.js';
import { decontaminateStage, loadBenchmarks, resolveDecontaminateOptions } from '../../../src/stages/hygiene/decontaminate.js';
import { fromArray } from '../../../src/core/stage.js';
import { ownedBy } from '../../../src/core/ranks.js';
import { slow } from '../../helpers/tiers.js';
import { instancesFromHistory, isTest } from '../../helpers/instances.js';
import { decodeText } from '../../../src/stages/fim/text.js';
import { rankBm25 } from '../../../src/stages/edits/retrieve.js';
import { termCounts } from '../../../src/stages/edits/bm25-terms.js';
import { loadTokenizer } from '../../../src/tokenize/tokenizer.js';

/**
 * Pull-request instances made from a real history (midpack's own web extractor, 40 commits with
 * their tests): commit -> base_commit = its parent, patch = its non-test changes, test_patch = its
 * test changes, problem_statement = its message.
 */
const bundle = join(repoRoot, 'data-samples', 'history', 'midpack-web.bundle');
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
function setup() {
  const root = mkdtempSync(join(tmpdir(), 'midpack-instances-'));
  const repos = join(root, 'repos');
  mkdirSync(repos);
  const clone = join(repos, 'midpack__web'); // the OWNER__NAME layout
  git(root, 'clone', '-q', bundle, clone);
  const rows = instancesFromHistory(clone, { repo: 'midpack/web', idPrefix: 'midpack__web' });
  const file = join(root, 'instances.jsonl');
  const extra = [
    { instance_id: 'no-statement', repo: 'midpack/web', base_commit: rows[0]!.base_commit, patch: rows[0]!.patch },
    { ...rows[0]!, instance_id: 'elsewhere', repo: 'someone/absent' },
  ];
  writeFileSync(file, [...rows, ...extra].map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { root, repos, clone, rows, file };
}

const answerOf = (doc: Doc) => {
  const turns = chatTurns(doc);
  const t = turns[turns.length - 1]!;
  return doc.text.slice(t.start, t.end);
};
const userOf = (doc: Doc) => {
  const t = chatTurns(doc).find((x) => x.role === 'user')!;
  return doc.text.slice(t.start, t.end);
};

test('instances from a real history: diffs apply at base_commit and give the commit, touched files in context, BM25 files retrieved, test patch never answered', slow, async () => {
  const { root, repos, clone, rows, file } = setup();
  try {
    assert.ok(rows.length >= 30, `${rows.length} instances`);
    assert.ok(rows.filter((r) => r.test_patch).length >= 20, 'most instances have a test patch');
    const ctx = defaultContext({ seed: 3, workDir: join(root, 'work') });
    const docs = await collect(editsSource([file], resolveEditsOptions({ repos, formats: 'sr,diff', withHints: true }), ctx));
    const ledger = ctx.ledger.toJSON();
    assert.equal(ledger.dropped.missing_problem_statement, 1);
    assert.equal(ledger.dropped.repo_not_found, 1);
    assert.equal(ledger.records_out, rows.length, JSON.stringify(ledger));
    const byId = new Map(rows.map((r) => [r.instance_id, r]));
    const scratch = join(root, 'scratch');
    git(root, 'clone', '-q', clone, scratch);
    let diffs = 0;
    for (const doc of docs) {
      const row = byId.get(doc.meta.instance_id as string)!;
      assert.equal(doc.meta.base_commit, row.base_commit);
      assert.equal(doc.meta.repo, 'midpack/web');
      const user = userOf(doc);
      assert.ok(user.includes(row.problem_statement.trim()), 'the description is in the user turn');
      assert.ok(user.includes(`Hints:\n${row.hints_text}`), '--with-hints appends the hints');
      const answer = answerOf(doc);
      assert.ok(!/test\/stages\/web/.test(answer), `${row.instance_id}: the test patch is not in the answer`);
      const files = doc.meta.files as string[];
      assert.ok(files.every((f) => !isTest(f)));
      const context = doc.meta.context as { path: string; why: string }[];
      for (const f of files) {
        assert.ok(context.some((c) => c.path === f && c.why === 'touched'), `${f} in the context as touched`);
        assert.ok(user.includes(git(clone, 'show', `${row.base_commit}:${f}`)), `${f} at its base version in the user turn`);
      }
      const retrieved = context.filter((c) => c.why === 'retrieved');
      assert.ok(retrieved.length >= 1 && retrieved.every((c) => !files.includes(c.path)), `${row.instance_id}: a retrieved file the patch does not touch`);
      if (doc.meta.format !== 'diff') continue;
      diffs++;
      // Real git apply on a checkout of base_commit gives the commit's files.
      git(scratch, 'checkout', '-q', '--force', '--detach', row.base_commit);
      git(scratch, 'clean', '-qfd');
      execFileSync('git', ['apply', '-'], { cwd: scratch, input: answer });
      for (const f of files) assert.equal(readFileSync(join(scratch, f), 'utf8'), git(clone, 'show', `${row.commit}:${f}`), `${row.instance_id}: ${f} after git apply`);
      assert.equal(git(scratch, 'status', '--porcelain', '--', 'test').trim(), '', 'test files untouched');
    }
    assert.equal(diffs, rows.length);
    const stats = ctx.stats.edits as { context: { files: Record<string, number> } };
    assert.ok(stats.context.files.retrieved >= rows.length);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('--exclude-instances drops exactly the instances that share an id, a rewritten problem statement, or files at a base commit', slow, async () => {
  const { root, repos, rows, file } = setup();
  try {
    const rewrite = (s: string) => `Reported upstream:\n\n  ${s.trim().replace(/\s+/g, '  ').toUpperCase()}\n(please fix)`;
    const evalRows = [
      rows[0]!.instance_id, // a bare id
      { instance_id: rows[1]!.instance_id },
      { instance_id: 'eval-2', repo: 'midpack/web', base_commit: 'f'.repeat(40), problem_statement: rewrite(rows[2]!.problem_statement), patch: '' },
      { instance_id: 'eval-3', repo: 'midpack/web', base_commit: 'f'.repeat(40), problem_statement: rewrite(rows[3]!.problem_statement), patch: '' },
      // Another repository with the same statement is not the same task.
      { instance_id: 'eval-x', repo: 'other/repo', base_commit: 'f'.repeat(40), problem_statement: rows[5]!.problem_statement, patch: '' },
      { instance_id: 'eval-4', repo: 'midpack/web', base_commit: rows[4]!.base_commit, problem_statement: 'Something else entirely.', patch: rows[4]!.patch },
    ];
    const evalFile = join(root, 'eval.jsonl');
    writeFileSync(evalFile, evalRows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const ctx = defaultContext({ seed: 3, workDir: join(root, 'work') });
    const docs = await collect(editsSource([file], resolveEditsOptions({ repos, formats: 'diff', excludeInstances: evalFile, retrieve: 0 }), ctx));
    const ledger = ctx.ledger.toJSON();
    assert.equal(ledger.dropped.same_instance_id, 2);
    assert.equal(ledger.dropped.same_problem_statement, 2);
    assert.equal(ledger.dropped.same_files_at_base, 1);
    const kept = new Set(docs.map((d) => d.meta.instance_id));
    for (const [i, r] of rows.entries()) assert.equal(kept.has(r.instance_id), i > 4, r.instance_id);
    assert.ok(ledger.examples.same_problem_statement!.some((m) => m.includes('eval-2')), 'the message names the evaluation instance');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('history-mined commits get the same retrieval, the commit message as the description', async () => {
  const ctx = defaultContext({ seed: 1 });
  const docs = await collect(editsSource([bundle], resolveEditsOptions({ formats: 'diff', maxCommits: 12 }), ctx));
  assert.ok(docs.length >= 10);
  let roots = 0;
  for (const d of docs) {
    const context = d.meta.context as { path: string; why: string }[];
    if (context.length === 0 && roots++ === 0) continue; // the root commit has no tree before it
    const files = d.meta.files as string[];
    assert.ok(context.some((c) => c.why === 'retrieved' && !files.includes(c.path)), `${d.meta.commit}: a retrieved file`);
  }
});

test('the context caches change no sample: the same documents and figures with a roomy cache and one that keeps nothing', async () => {
  const run = async (cacheMb: number) => {
    const options = resolveEditsOptions({ maxCommits: 16 });
    const ctx = defaultContext({ seed: 3 });
    const docs = await collect(editsSource([bundle], { ...options, context: { ...options.context, cacheMb } }, ctx));
    return { docs, stats: ctx.stats.edits };
  };
  const roomy = await run(128);
  assert.ok(roomy.docs.length >= 20);
  // About 100 bytes: no term count, token count, tree or text is kept, everything is read again.
  assert.deepEqual(await run(1e-4), roomy);
});

test('midpack decontaminate takes instance rows as a benchmark kind: edit samples of the same instances are dropped by reason', slow, async () => {
  const { root, repos, rows, file } = setup();
  try {
    const docs = await collect(editsSource([file], resolveEditsOptions({ repos, formats: 'diff', retrieve: 0, related: 0 }), defaultContext({ seed: 3, workDir: join(root, 'work') })));
    const { commit: _c, ...first } = rows[0]!;
    const evalRows = [
      first,
      { instance_id: 'eval-2', repo: 'midpack/web', base_commit: 'f'.repeat(40), problem_statement: rows[2]!.problem_statement.toUpperCase().replace(/\s+/g, '   '), patch: '' },
      { instance_id: 'eval-4', repo: 'midpack/web', base_commit: rows[4]!.base_commit, problem_statement: 'Something else entirely.', patch: rows[4]!.patch },
    ];
    const evalFile = join(root, 'eval.jsonl');
    writeFileSync(evalFile, evalRows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const options = resolveDecontaminateOptions({ benchmarks: [evalFile] });
    const index = await loadBenchmarks(options);
    const ctx = defaultContext();
    const kept = await collect(decontaminateStage(options, index)(fromArray(docs), ctx));
    const ledger = ctx.ledger.toJSON();
    assert.deepEqual(ledger.dropped, { same_instance_id: 1, same_problem_statement: 1, same_files_at_base: 1 });
    const gone = new Set(docs.filter((d) => !kept.includes(d)).map((d) => d.meta.instance_id));
    assert.deepEqual([...gone].sort(), [rows[0]!.instance_id, rows[2]!.instance_id, rows[4]!.instance_id].sort());
    assert.deepEqual((ctx.stats.decontaminate as { instances_excluded: unknown }).instances_excluded, { same_instance_id: 1, same_problem_statement: 1, same_files_at_base: 1 });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('instances: the same samples, byte for byte, from one rank or two, and from a rerun', slow, async () => {
  const { root, repos, file } = setup();
  try {
    const run = async (owns?: (key: string) => boolean) => {
      const ctx = defaultContext({ seed: 9, workDir: join(root, 'work'), ...(owns ? { owns } : {}) });
      return (await collect(editsSource([file], resolveEditsOptions({ repos, formats: 'sr,diff' }), ctx))).map((d) => JSON.stringify(d));
    };
    const one = await run();
    assert.deepEqual(await run(), one, 'a rerun gives the same bytes');
    const ranks = await Promise.all([0, 1].map((r) => run(ownedBy({ rank: r, worldSize: 2 })!)));
    assert.ok(ranks[0]!.length > 0 && ranks[1]!.length > 0, 'both ranks have instances');
    assert.deepEqual([...ranks[0]!, ...ranks[1]!].sort(), [...one].sort());
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** The base tree's regular text files within the size limit, in ls-tree's order, with their contents. */
function baseTextFiles(clone: string, base: string, blobs: Map<string, string | undefined>): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const line of git(clone, 'ls-tree', '-r', '-l', '-z', base).split('\0')) {
    const m = /^100(?:644|755) blob ([0-9a-f]+) +(\d+)\t(.*)$/s.exec(line);
    if (!m || Number(m[2]) > 256 * 1024) continue;
    if (!blobs.has(m[1]!)) blobs.set(m[1]!, decodeText(execFileSync('git', ['cat-file', 'blob', m[1]!], { cwd: clone, maxBuffer: 1 << 28 })));
    const text = blobs.get(m[1]!);
    if (text !== undefined) out.push({ path: m[3]!, text });
  }
  return out;
}

test('a budget too small for the best BM25 files: each instance takes the best-ranked files that fit, before the noise; none only when none fits (no_retrieved_fit)', slow, async () => {
  const { root, repos, clone, rows, file } = setup();
  try {
    const budget = 8000;
    const ctx = defaultContext({ seed: 3, workDir: join(root, 'work') });
    const docs = await collect(editsSource([file], resolveEditsOptions({ repos, formats: 'diff', contextTokens: budget }), ctx));
    assert.equal(docs.length, rows.length);
    // A context file's tokens in the repository format (`<|file_sep|>path\ncontent\n`), in the packing tokenizer.
    const tokenizer = await loadTokenizer('qwen3', 'auto');
    const cost = (path: string, text: string) => tokenizer.encodePlain(`${path}\n${text}`).length + 2;
    const byId = new Map(rows.map((r) => [r.instance_id, r]));
    const blobs = new Map<string, string | undefined>();
    let [withRoom, forced, none] = [0, 0, 0];
    for (const doc of docs) {
      const row = byId.get(doc.meta.instance_id as string)!;
      const context = doc.meta.context as { path: string; why: string }[];
      const tree = baseTextFiles(clone, row.base_commit, blobs);
      const touched = new Set(context.filter((c) => c.why === 'touched').map((c) => c.path));
      let room = budget - tree.filter((f) => touched.has(f.path)).reduce((s, f) => s + cost(f.path, f.text), 0);
      const others = tree.filter((f) => !touched.has(f.path));
      const retrieved = context.filter((c) => c.why === 'retrieved').map((c) => c.path);
      // The must: an instance with a file that fits beside its touched files has a retrieved file.
      if (others.some((f) => cost(f.path, f.text) <= room)) {
        withRoom++;
        assert.ok(retrieved.length >= 1, `${row.instance_id}: a file fits in ${room} tokens, yet no retrieved file`);
      }
      // Exactly the greedy choice down BM25's ranking: the best files that fit in what is left, up to --retrieve (3).
      const ranked = rankBm25(row.problem_statement, others.map((f) => ({ item: f, terms: termCounts(f.text), pathTerms: termCounts(f.path) })), others.length);
      const expected: string[] = [];
      for (const { item } of ranked) {
        const c = cost(item.path, item.text);
        if (expected.length < 3 && c <= room) [room, expected[expected.length]] = [room - c, item.path];
      }
      assert.deepEqual([...retrieved].sort(), [...expected].sort(), `${row.instance_id}: the retrieved files`);
      if (expected.length && expected[0] !== ranked[0]!.item.path) forced++;
      if (!expected.length) none++;
      // Related files only in the budget the retrieved files leave.
      const related = others.filter((f) => context.some((c) => c.path === f.path && c.why === 'related'));
      assert.ok(related.reduce((s, f) => s + cost(f.path, f.text), 0) <= Math.max(0, room), `${row.instance_id}: related files within the budget left`);
    }
    const stats = ctx.stats.edits as { context: { no_retrieved_fit: number } };
    assert.equal(stats.context.no_retrieved_fit, none, 'no_retrieved_fit counts the instances without a retrieved file');
    assert.ok(forced >= 5, `${forced} instances whose best BM25 file did not fit took a lower-ranked one`);
    assert.ok(withRoom >= forced && none >= 1, `${withRoom} instances with room, ${none} with none`);
    process.stderr.write(`budget ${budget}: ${docs.length} instances, ${withRoom} with room for a file, ${forced} took a lower-ranked file, ${none} no_retrieved_fit\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
