import { Ledger } from '../../core/ledger.js';
import { expandInputs, isJsonl, isParquet } from '../../io/inputs.js';
import { readJsonl } from '../../io/jsonl.js';
import { readParquetRows } from '../../io/parquet.js';
import { parseGitDiff } from '../edits/git-diff.js';
import { forEachNgram, tokenize } from './tokens.js';
import { readFileAnySync } from '../../io/storage.js';

/**
 * Decontamination of pull-request task instances against evaluation sets (SWE-bench Verified,
 * Lite, Multilingual, Pro... as rows of `instance_id, repo, base_commit, patch,
 * problem_statement`, or bare ids). A training instance is excluded when:
 *
 * - `same_instance_id`: its id is an evaluation id;
 * - `same_problem_statement`: it is on the same repository and its problem statement shares a
 *   13-gram of lowercased words with an evaluation problem statement (a statement shorter
 *   than 13 words is one n-gram of all its words, so it matches only whole);
 * - `same_files_at_base`: its patch touches a file that an evaluation patch touches, at the
 *   same base commit.
 *
 * Used by `midpack edits --exclude-instances` and by `midpack decontaminate` for benchmark rows
 * that are instances.
 */
export const INSTANCE_NGRAM = 13;

export type InstanceExclusionReason = 'same_instance_id' | 'same_problem_statement' | 'same_files_at_base';

/** What a training instance offers to the checks (any field may be missing). */
export interface InstanceKey {
  instance_id?: string;
  repo?: string;
  base_commit?: string;
  problem_statement?: string;
  /** Paths its patch touches. */
  files?: readonly string[];
}

/** The paths a git-format patch touches; none when it cannot be parsed. */
export function patchFiles(patch: string): string[] {
  try {
    return [...new Set(parseGitDiff(patch).flatMap((f) => [f.oldPath, f.newPath].filter((p): p is string => p !== null)))];
  } catch {
    return [];
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/** Whether a row looks like a pull-request instance (an id and a problem statement or a patch). */
export function isInstanceRow(row: unknown): row is Record<string, unknown> {
  const r = row as Record<string, unknown>;
  return !!r && typeof r === 'object' && str(r.instance_id) !== undefined && (typeof r.problem_statement === 'string' || typeof r.patch === 'string');
}

export class InstanceExclusions {
  private readonly ids = new Map<string, string>();
  /** repo -> n-gram hash -> the evaluation id it came from. */
  private readonly statements = new Map<string, Map<string, string>>();
  /** `base_commit\0path` -> evaluation id. */
  private readonly filesAtBase = new Map<string, string>();
  size = 0;

  add(row: Record<string, unknown> | string, where: string): void {
    this.size++;
    if (typeof row === 'string') {
      this.ids.set(row, row);
      return;
    }
    const id = str(row.instance_id) ?? where;
    if (str(row.instance_id)) this.ids.set(id, id);
    const repo = str(row.repo);
    if (repo && typeof row.problem_statement === 'string') {
      const grams = this.statements.get(repo) ?? new Map<string, string>();
      this.statements.set(repo, grams);
      for (const g of statementGrams(row.problem_statement)) if (!grams.has(g)) grams.set(g, id);
    }
    const base = str(row.base_commit);
    if (base && typeof row.patch === 'string') for (const p of patchFiles(row.patch)) this.filesAtBase.set(`${base}\0${p}`, id);
  }

  /** The first reason (in the order above) that excludes the instance, naming the evaluation instance; or null. */
  check(k: InstanceKey): { reason: InstanceExclusionReason; evalId: string } | null {
    const byId = k.instance_id !== undefined ? this.ids.get(k.instance_id) : undefined;
    if (byId) return { reason: 'same_instance_id', evalId: byId };
    const grams = k.repo !== undefined ? this.statements.get(k.repo) : undefined;
    if (grams && k.problem_statement) {
      for (const g of statementGrams(k.problem_statement)) {
        const hit = grams.get(g);
        if (hit) return { reason: 'same_problem_statement', evalId: hit };
      }
    }
    if (k.base_commit) {
      for (const p of k.files ?? []) {
        const hit = this.filesAtBase.get(`${k.base_commit}\0${p}`);
        if (hit) return { reason: 'same_files_at_base', evalId: hit };
      }
    }
    return null;
  }

  /** Reads evaluation rows or ids: JSONL/Parquet rows (a row may also be a bare id string), or a text file of one id a line. */
  static async load(files: readonly string[]): Promise<InstanceExclusions> {
    const ex = new InstanceExclusions();
    const ledger = new Ledger();
    for (const file of expandInputs([...files], (n) => isJsonl(n) || isParquet(n) || n.endsWith('.txt'))) {
      if (file.endsWith('.txt')) {
        for (const line of readFileAnySync(file).toString('utf8').split('\n')) if (line.trim()) ex.add(line.trim(), file);
        continue;
      }
      let n = 0;
      for await (const r of isParquet(file) ? readParquetRows(file, ledger) : readJsonl(file, ledger)) {
        const where = `${file}#${n++}`;
        if (typeof r.value === 'string' || typeof r.value === 'number') ex.add(String(r.value), where);
        else if (r.value && typeof r.value === 'object') ex.add(r.value as Record<string, unknown>, where);
      }
    }
    if (ex.size === 0) throw new Error(`--exclude-instances: no rows or ids in ${files.join(', ')}`);
    return ex;
  }
}

/** The 13-gram hashes of a problem statement's lowercased words. */
function statementGrams(text: string): string[] {
  const out: string[] = [];
  forEachNgram(tokenize(text, { lowercase: true, wordsOnly: true }), INSTANCE_NGRAM, (hi, lo) => out.push(`${hi}:${lo}`));
  return out;
}
