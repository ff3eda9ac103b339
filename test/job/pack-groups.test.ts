import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

/** Every file under a folder, sorted by path. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

/** The code files of data-samples/repos as documents, in path order; `group` gives some runs of them a group. */
function codeDocs(group: (path: string) => string | undefined): string {
  const root = join(repoRoot, 'data-samples', 'repos');
  const files = filesUnder(root).filter((f) => /\.(js|ts|md)$/.test(f) && statSync(f).size > 0);
  return files.map((f) => {
    const id = relative(root, f);
    const g = group(id);
    return JSON.stringify({ id, kind: 'text', source: id, text: readFileSync(f, 'utf8'), meta: g ? { group: g } : {} });
  }).join('\n') + '\n';
}

/** A digest of the bytes a pack wrote: shards, Megatron files and document lengths (the manifest and report hold times). */
function outputDigest(out: string): string {
  const h = createHash('sha256');
  for (const f of ['doc_lengths.u32', ...filesUnder(join(out, 'shards')).map((p) => relative(out, p)), ...filesUnder(join(out, 'megatron')).map((p) => relative(out, p))].sort()) {
    h.update(f).update(readFileSync(join(out, f)));
  }
  return h.digest('hex');
}

/**
 * Made by the main branch's build at a9e9384 (before documents could declare a group), over the same documents
 * and flags: a corpus without groups is packed to the very same bytes as before. A change to what pack writes
 * changes it on purpose: make it again with the build that has the change, and say so.
 */
const BEFORE_GROUPS = 'ee36a77e32f52c9c339f99060cbd09c66d4be150c213959cc4179e4c265f18bb';

test('pack: a corpus without groups gives the bytes it gave before documents could declare groups', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-groups-'));
  const pack = (name: string, docs: string) => {
    const input = join(dir, `${name}.jsonl`);
    writeFileSync(input, docs);
    const out = join(dir, name);
    const r = midpack(['pack', input, '--out', out, '--seq-len', '2048', '--workers', '1', '--no-progress']);
    assert.equal(r.status, 0, r.stderr);
    return out;
  };
  const plain = pack('plain', codeDocs(() => undefined));
  assert.equal(outputDigest(plain), BEFORE_GROUPS);
  assert.equal(JSON.parse(readFileSync(join(plain, 'report.json'), 'utf8')).doc_groups, undefined);
});
