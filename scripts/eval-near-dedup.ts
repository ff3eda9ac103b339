/**
 * Recall and precision of near-dedup on the truth corpus (scripts/build-hygiene-corpus.ts):
 * a true pair is one whose exact shingle Jaccard is at least the threshold; a found pair is
 * one LSH made a candidate and the signatures verified. Printed as a table by bench:hygiene.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultContext, fromArray } from '../src/core/stage.js';
import { countDedup } from '../src/stages/hygiene/dedup-count.js';
import { readIndexHeader } from '../src/stages/hygiene/dedup-index.js';
import { resolveDedupOptions, type DedupOptions } from '../src/stages/hygiene/dedup-options.js';
import { namedPairs, SignatureFile } from '../src/stages/hygiene/lsh.js';
import { truthPairs, type TruthCorpus } from './build-hygiene-corpus.js';

export interface NearEval {
  items: number;
  true_pairs: number;
  found_pairs: number;
  true_found: number;
  recall: number;
  precision: number;
  constructed: Record<string, { pairs: number; above_threshold: number; found: number }>;
  false_positive_jaccards: number[];
}

export async function evaluateNearDedup(corpus: TruthCorpus, raw: Record<string, unknown> = {}): Promise<NearEval> {
  const options: DedupOptions = resolveDedupOptions({ near: true, ...raw });
  const dir = mkdtempSync(join(tmpdir(), 'midpack-near-eval-'));
  try {
    const index = join(dir, 'index.bin');
    await countDedup(fromArray(corpus.docs), index, { ...options, workDir: dir }, defaultContext({ log: () => {} }));
    const file = new SignatureFile(index, readIndexHeader(index));
    const found = namedPairs(file, options.threshold, options.memoryMb * 2 ** 20);
    file.close();
    const truth = truthPairs(corpus.docs, options.shingle, options.minTokens, options.threshold);
    let trueFound = 0;
    for (const k of truth.pairs.keys()) if (found.has(k)) trueFound++;
    const fps: number[] = [];
    for (const k of found.keys()) if (!truth.pairs.has(k)) fps.push(Number(truth.jaccard(...(k.split('\t') as [string, string])).toFixed(3)));
    const constructed: NearEval['constructed'] = {};
    for (const c of corpus.constructed) {
      const key = c.a < c.b ? `${c.a}\t${c.b}` : `${c.b}\t${c.a}`;
      const e = (constructed[c.edit] ??= { pairs: 0, above_threshold: 0, found: 0 });
      e.pairs++;
      if (truth.pairs.has(key)) e.above_threshold++;
      if (truth.pairs.has(key) && found.has(key)) e.found++;
    }
    return {
      items: readIndexHeader(index).items,
      true_pairs: truth.pairs.size,
      found_pairs: found.size,
      true_found: trueFound,
      recall: truth.pairs.size ? trueFound / truth.pairs.size : 1,
      precision: found.size ? (found.size - fps.length) / found.size : 1,
      constructed,
      false_positive_jaccards: fps.sort().slice(0, 20),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
