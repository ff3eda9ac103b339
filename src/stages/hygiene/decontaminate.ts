import type { Doc } from '../../doc/document.js';
import type { Stage } from '../../core/stage.js';
import { HashTable } from '../mask/hash-table.js';
import { readBenchmarkItems, type BenchmarkItem } from './benchmarks.js';
import { itemName, itemsOf, maskItems, removeItems } from './items.js';
import { resolveWithSpec, type OptionSpec } from './options.js';
import { InstanceExclusions, patchFiles, type InstanceKey } from './instances-decontam.js';
import { SHORT_ITEM_MIN_TOKENS, ShortItemIndex } from './short-items.js';
import { mix32, tokenize, type TokenOptions, type TokenSeq } from './tokens.js';

/**
 * Benchmark decontamination, two methods on the tokens of tokens.ts (whitespace never counts):
 *
 * - `ngram`: n-grams (default 13, common practice) of lowercased tokens. An item (a document,
 *   or one file of a repository document) is contaminated when it shares at least one with a
 *   benchmark item, or with `minFraction` > 0 at least that fraction of the benchmark item's.
 * - `substring`: long exact runs (default 48 tokens) with identifiers abstracted to one
 *   symbol (keywords and common builtins kept), so a solution copied with renamed variables
 *   and changed whitespace still matches.
 *
 * - `whole`: an item with no n-gram window (fewer words than the window, or only low-diversity
 *   windows) is matched as a whole against whole statements, blocks and bodies of the text
 *   (short-items.ts); one under SHORT_ITEM_MIN_TOKENS tokens is too generic to match and is
 *   counted as `too_short_to_match`.
 */
export interface DecontaminateOptions {
  benchmarks: string[];
  ngram: number;
  substringTokens: number;
  methods: string[];
  minFraction: number;
  action: 'drop' | 'mask';
}

const SPEC: Record<keyof DecontaminateOptions, OptionSpec> = {
  benchmarks: { type: 'strings', default: [] },
  ngram: { type: 'int', default: 13, min: 4, max: 64 },
  substringTokens: { type: 'int', default: 48, min: 8, max: 1024 },
  methods: { type: 'strings', default: ['ngram', 'substring', 'whole'] },
  minFraction: { type: 'number', default: 0, min: 0, max: 1 },
  action: { type: 'choice', default: 'drop', choices: ['drop', 'mask'] },
};

export const DECONTAMINATE_OPTION_NAMES = Object.keys(SPEC);

export function resolveDecontaminateOptions(raw: Record<string, unknown>): DecontaminateOptions {
  const o = resolveWithSpec(raw, SPEC, 'decontaminate') as unknown as DecontaminateOptions;
  if (!o.benchmarks.length) throw new Error('decontaminate: give at least one benchmark file (--benchmark FILE[:FIELD,...])');
  for (const m of o.methods) if (!(METHODS as readonly string[]).includes(m)) throw new Error(`decontaminate: method "${m}" is not one of ${METHODS.join(', ')}`);
  return o;
}

const METHODS = ['ngram', 'substring', 'whole'] as const;
type Method = (typeof METHODS)[number];
type WindowMethod = Exclude<Method, 'whole'>;
const TOKENS: Record<WindowMethod, TokenOptions> = { ngram: { lowercase: true, wordsOnly: true }, substring: { abstractIdentifiers: true } };

/** Benchmark windows by method: window hash to the first item that has it, and each item's window count. */
export interface BenchmarkIndex {
  items: BenchmarkItem[];
  windows: Record<WindowMethod, { n: number; table: HashTable; perItem: Uint32Array }>;
  /** Items without an n-gram window, matched whole. */
  short: ShortItemIndex;
  /** Benchmark rows that are pull-request instances, checked against documents that carry an instance's meta. */
  instances?: InstanceExclusions;
  enabled: Method[];
}

/**
 * Visits the hash of every full window of n tokens, rolled in O(1) per token: two polynomial
 * lanes mod 2^32 with different odd bases, each finished by mix32.
 */
function forEachWindow(seq: TokenSeq, n: number, visit: (hi: number, lo: number, first: number) => void): void {
  if (seq.length < n) return;
  const B1 = 0x01000193;
  const B2 = 0x9e3779b1 | 1;
  let p1 = 1;
  let p2 = 1;
  for (let k = 1; k < n; k++) {
    p1 = Math.imul(p1, B1);
    p2 = Math.imul(p2, B2);
  }
  let a = 0;
  let b = 0;
  const h = seq.hashes;
  for (let k = 0; k < n; k++) {
    a = (Math.imul(a, B1) + h[k]!) | 0;
    b = (Math.imul(b, B2) + mix32(h[k]!)) | 0;
  }
  for (let i = 0; ; i++) {
    visit(mix32(a), mix32(b ^ n), i);
    if (i + n >= seq.length) return;
    a = (Math.imul((a - Math.imul(h[i]!, p1)) | 0, B1) + h[i + n]!) | 0;
    b = (Math.imul((b - Math.imul(mix32(h[i]!), p2)) | 0, B2) + mix32(h[i + n]!)) | 0;
  }
}

/**
 * Windows made of few distinct tokens (a list of quoted names once identifiers are
 * abstracted, a table of numbers 1, 2, 3...) are common in any code: a benchmark window
 * counts only when at least a quarter of its tokens are distinct non-numeric tokens.
 */
function diverse(text: string, seq: TokenSeq, first: number, n: number): boolean {
  const seen = new Set<number>();
  for (let k = first; k < first + n; k++) {
    if (!/^\p{N}/u.test(text.slice(seq.starts[k], seq.starts[k]! + 1))) seen.add(seq.hashes[k]!);
  }
  return seen.size * 4 >= n;
}

export async function loadBenchmarks(options: DecontaminateOptions): Promise<BenchmarkIndex> {
  const items: BenchmarkItem[] = [];
  for (const spec of options.benchmarks) for await (const it of readBenchmarkItems(spec)) items.push(it);
  if (!items.length) throw new Error(`decontaminate: no benchmark rows in ${options.benchmarks.join(', ')}`);
  const enabled = options.methods as Method[];
  const windows = {} as BenchmarkIndex['windows'];
  for (const m of ['ngram', 'substring'] as const) {
    const n = m === 'ngram' ? options.ngram : options.substringTokens;
    const table = new HashTable(1024, true);
    const perItem = new Uint32Array(items.length);
    if (enabled.includes(m)) {
      items.forEach((it, idx) => {
        const own = new HashTable(1024, true);
        const seq = tokenize(it.text, TOKENS[m]);
        forEachWindow(seq, n, (hi, lo, first) => {
          if (!diverse(it.text, seq, first, n)) return;
          if (own.value(own.add(hi, lo, 1)) > 1) return;
          perItem[idx]!++;
          const slot = table.find(hi, lo);
          if (slot < 0) table.setValue(table.add(hi, lo, 0), idx);
        });
      });
    }
    windows[m] = { n, table, perItem };
  }
  const short = new ShortItemIndex();
  if (enabled.includes('whole')) {
    items.forEach((it, idx) => {
      const windowless = enabled.includes('ngram') ? windows.ngram.perItem[idx] === 0 : tokenize(it.text, TOKENS.ngram).length < options.ngram;
      if (windowless) short.add(it.text, idx);
    });
  }
  const instanceRows = items.filter((it) => it.instance);
  const instances = instanceRows.length ? new InstanceExclusions() : undefined;
  for (const it of instanceRows) instances!.add(it.instance!, it.name);
  return { items, windows, short, enabled, ...(instances ? { instances } : {}) };
}

export interface ContaminationHit {
  benchmark: string;
  benchmark_item: string;
  method: Method;
  document: string;
  file?: string;
  /** Shared windows with that benchmark item, and their fraction of the item's windows. */
  shared: number;
  fraction: number;
  /** The matched text in the document (from the first shared window's start to the last's end, cut at 300 characters). */
  matched: string;
}

/** The hits of one text: per benchmark item and method, shared windows and the matched range. */
export function findContamination(text: string, index: BenchmarkIndex, minFraction: number): Omit<ContaminationHit, 'document' | 'file'>[] {
  const hits: Omit<ContaminationHit, 'document' | 'file'>[] = [];
  for (const h of index.enabled.includes('whole') ? index.short.find(text) : []) {
    const it = index.items[h.item]!;
    hits.push({ benchmark: it.benchmark, benchmark_item: it.name, method: 'whole', shared: 1, fraction: 1, matched: text.slice(h.start, Math.min(h.end, h.start + 300)) });
  }
  for (const m of index.enabled) {
    if (m === 'whole') continue;
    const w = index.windows[m];
    if (!w.table.size) continue;
    const seq = tokenize(text, TOKENS[m]);
    const byItem = new Map<number, { shared: Set<string>; start: number; end: number }>();
    forEachWindow(seq, w.n, (hi, lo, first) => {
      const slot = w.table.find(hi, lo);
      if (slot < 0) return;
      const idx = w.table.value(slot);
      const e = byItem.get(idx) ?? { shared: new Set<string>(), start: seq.starts[first]!, end: 0 };
      e.shared.add(`${hi}:${lo}`);
      e.end = seq.ends[first + w.n - 1]!;
      byItem.set(idx, e);
    });
    for (const [idx, e] of byItem) {
      const fraction = e.shared.size / Math.max(1, w.perItem[idx]!);
      if (fraction < minFraction) continue;
      const it = index.items[idx]!;
      hits.push({ benchmark: it.benchmark, benchmark_item: it.name, method: m, shared: e.shared.size, fraction, matched: text.slice(e.start, Math.min(e.end, e.start + 300)) });
    }
  }
  return hits;
}

/**
 * A document made from a pull-request instance (its meta has `instance_id`, or `base_commit`
 * with the touched `files`, as `midpack edits` writes them) checked against benchmark instances;
 * the whole text stands in for the problem statement.
 */
function excludedInstance(doc: Doc, instances: InstanceExclusions): ReturnType<InstanceExclusions['check']> {
  const m = doc.meta;
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (m.instance_id === undefined && m.base_commit === undefined) return null;
  const files = Array.isArray(m.files) ? m.files.filter((f): f is string => typeof f === 'string') : typeof m.patch === 'string' ? patchFiles(m.patch) : [];
  const key: InstanceKey = { problem_statement: s(m.problem_statement) ?? doc.text, files };
  for (const k of ['instance_id', 'repo', 'base_commit'] as const) if (s(m[k]) !== undefined) key[k] = s(m[k]);
  return instances.check(key);
}

/**
 * The stage: every contaminated item is removed (`drop`: the file of a repository document,
 * or the whole document, counted as `contaminated`) or masked out of the loss (`mask`). Every
 * hit goes to `onHit` (the CLI writes them beside the output); the stats count hits by
 * benchmark and method and keep the first 100.
 */
export function decontaminateStage(options: DecontaminateOptions, index: BenchmarkIndex, onHit?: (hit: ContaminationHit) => void): Stage {
  return async function* (docs, ctx) {
    const byBenchmark: Record<string, number> = {};
    const byMethod: Record<string, number> = {};
    const first: ContaminationHit[] = [];
    let itemsContaminated = 0;
    let filesRemoved = 0;
    let itemsMasked = 0;
    const instancesExcluded: Record<string, number> = {};
    for await (const doc of docs) {
      const excluded = index.instances && excludedInstance(doc, index.instances);
      if (excluded) {
        instancesExcluded[excluded.reason] = (instancesExcluded[excluded.reason] ?? 0) + 1;
        ctx.ledger.drop(excluded.reason, `${doc.id}: instance ${String(doc.meta.instance_id ?? '')} overlaps benchmark instance ${excluded.evalId}`);
        continue;
      }
      const items = itemsOf(doc);
      const hitItems = new Set<number>();
      items.forEach((item, i) => {
        for (const h of findContamination(doc.text.slice(item.start, item.end), index, options.minFraction)) {
          const hit: ContaminationHit = { ...h, document: doc.id, ...(item.path !== undefined ? { file: item.path } : {}) };
          hitItems.add(i);
          byBenchmark[h.benchmark] = (byBenchmark[h.benchmark] ?? 0) + 1;
          byMethod[h.method] = (byMethod[h.method] ?? 0) + 1;
          if (first.length < 100) first.push(hit);
          onHit?.(hit);
        }
      });
      itemsContaminated += hitItems.size;
      const out: Doc | undefined = !hitItems.size ? doc : options.action === 'mask' ? maskItems(doc, items, hitItems) : removeItems(doc, items, hitItems);
      if (!out) {
        ctx.ledger.drop('contaminated', `${doc.id}: ${[...hitItems].map((i) => itemName(doc, items[i]!)).slice(0, 3).join(', ')} match${hitItems.size === 1 ? 'es' : ''} a benchmark item`);
        continue;
      }
      if (hitItems.size && options.action === 'mask') itemsMasked += hitItems.size;
      else if (hitItems.size) filesRemoved += hitItems.size;
      ctx.ledger.output();
      yield out;
    }
    ctx.stats.decontaminate = {
      methods: Object.fromEntries(
        index.enabled.map((m) => [m, m === 'whole' ? { items: index.short.size, min_tokens: SHORT_ITEM_MIN_TOKENS } : { window_tokens: index.windows[m].n, benchmark_windows: index.windows[m].table.size }]),
      ),
      benchmark_items: index.items.length,
      too_short_to_match: index.short.tooShort,
      ...(index.instances ? { benchmark_instances: index.instances.size, instances_excluded: instancesExcluded } : {}),
      action: options.action,
      min_fraction: options.minFraction,
      items_contaminated: itemsContaminated,
      files_removed: filesRemoved,
      items_masked: itemsMasked,
      hits_by_benchmark: byBenchmark,
      hits_by_method: byMethod,
      hits: first,
    };
  };
}
