import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';
import { StreamingPacker } from '../../src/pack/index.js';
import { readRows, documentsOf } from '../helpers/shard-rows.js';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

const L = 2048;
const WANT_DOCS = 75_000;

interface RealDoc {
  id: string;
  /** File type: js, md or ts. */
  type: string;
  source: string;
  text: string;
}

/**
 * Real code and prose from node_modules (sorted paths, files of 200 B to 8 KB): each file
 * whole, then its paragraphs, then its longer lines, until about 75,000 documents.
 */
function realDocs(): RealDoc[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(js|md|ts)$/.test(e.name) && statSync(p).size > 200 && statSync(p).size < 8000) files.push(p);
    }
  };
  walk(join(repoRoot, 'node_modules'));
  const docs: RealDoc[] = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    if (!text.trim() || !(text as unknown as { isWellFormed(): boolean }).isWellFormed()) continue;
    const source = relative(repoRoot, f);
    const type = extname(f).slice(1);
    docs.push({ id: `${source}`, type, source, text });
    text.split(/\n\s*\n/).filter((p) => p.trim().length >= 16).forEach((p, i) => docs.push({ id: `${source}#p${i}`, type, source, text: p }));
    text.split('\n').filter((l) => l.trim().length >= 24).forEach((l, i) => docs.push({ id: `${source}#l${i}`, type, source, text: l }));
    if (docs.length >= WANT_DOCS) break;
  }
  return docs;
}

test('pack at scale on real code and prose sorted ascending, descending and grouped by file type: bins <= lower bound + 2, every document token-exact', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-pack-real-'));
  try {
    const docs = realDocs();
    assert.ok(docs.length > 65_536, `${docs.length} documents: more than the old default window`);
    const tok = await loadTokenizer();
    const fresh = new Map(docs.map((d) => [d.id, tok.encodeDoc({ text: d.text }).ids]));
    const tokens = [...fresh.values()].reduce((s, ids) => s + ids.length, 0);
    const lowerBound = Math.ceil(tokens / L);
    assert.ok(lowerBound > 1024, `${lowerBound} bins: more than the old open-bin bound`);

    const byLength = (a: RealDoc, b: RealDoc) => fresh.get(a.id)!.length - fresh.get(b.id)!.length || (a.id < b.id ? -1 : 1);
    const types = ['js', 'md', 'ts'];
    const orders: Record<string, RealDoc[]> = {
      ascending: docs.slice().sort(byLength),
      descending: docs.slice().sort((a, b) => byLength(b, a)),
      grouped: types.flatMap((t) => docs.filter((d) => d.type === t)),
    };
    // What the streaming packer did before the planner (arrival order, its old defaults): pack must do at least as well.
    const streamed = (list: RealDoc[]) => {
      const old = new StreamingPacker({ capacity: L, overlong: 'split', windowUnits: 65_536, maxOpenBins: 1024 });
      old.push({ lengths: Uint32Array.from(list, (d) => fresh.get(d.id)!.length) });
      old.finish();
      return old.stats().bins;
    };

    for (const [name, list] of Object.entries(orders)) {
      const input = join(dir, `${name}.jsonl`);
      writeFileSync(input, list.map((d) => JSON.stringify({ id: d.id, kind: d.type === 'md' ? 'web' : 'text', source: d.source, text: d.text, meta: { type: d.type } })).join('\n') + '\n');
      const out = join(dir, name);
      const r = midpack(['pack', input, '--out', out, '--seq-len', String(L), '--workers', '2', '--no-progress']);
      assert.equal(r.status, 0, r.stderr);
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
      assert.equal(manifest.balanced, true);
      assert.equal(report.packing.tokens, tokens);
      assert.equal(report.packing.lower_bound, lowerBound);
      assert.ok(manifest.counts.bins <= lowerBound + 2, `${name}: ${manifest.counts.bins} bins for a lower bound of ${lowerBound}`);
      assert.ok(manifest.counts.bins <= streamed(list), `${name}: more bins than the streaming packer in arrival order`);
      const rows = readRows(out);
      assert.equal(rows.length, manifest.counts.bins);
      // fragmentation recounted from the shards: a (document, offset) unit in more than one row
      const seen = new Map<string, number>();
      for (const row of rows) row.docIds.forEach((id, u) => seen.set(`${id}@${row.offsets[u]}`, (seen.get(`${id}@${row.offsets[u]}`) ?? 0) + 1));
      assert.equal([...seen.values()].filter((n) => n > 1).length, report.packing.fragmented_units);
      assert.equal(report.packing.fragmented_units, 0);
      const packed = documentsOf(rows);
      assert.equal(packed.size, docs.length, `${name}: every document is in the shards`);
      for (const [id, ids] of fresh) assert.deepEqual(Int32Array.from(packed.get(id)!.ids), ids, `${name}: ${id} is not token-exact`);
      rmSync(out, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
