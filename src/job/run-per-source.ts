import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { readDocumentFile } from '../io/documents.js';
import { writeFileAtomic } from '../write/files.js';
import { writeReportHtml } from '../report/html.js';
import { blendLine } from '../mix/report.js';
import { mixtureSourceOf } from '../mix/unit.js';
import { runPackJob, type Manifest, type PackJobOptions, type PackSummary } from './pack-job.js';
import { mergeReports } from './merge-report.js';
import type { OutDir } from './out-dir.js';
import type { MixtureStep } from './run-mixture.js';
import { VERSION } from '../version.js';

/** Wraps a document stream in the run's masking (recording its figures in `stages`). */
export type Masker = (docs: AsyncIterable<Doc>, stages: Record<string, unknown>) => AsyncIterable<Doc>;

export const BLEND_FILE = 'blend.txt';

export interface PerSourceOptions {
  packOptions: PackJobOptions;
  mixture: MixtureStep;
  outDir: OutDir;
  stages: Record<string, unknown>;
  identity: Record<string, unknown>;
  inputs: string[];
  masked: Masker;
}

/**
 * `pack.perSource`: each source packed into its own output OUT/sources/NAME (Arrow shards,
 * Megatron datasets, manifest, report), so every bin holds one source; OUT/blend.txt holds the
 * Megatron blend line (`--data-path W1 PREFIX1 ...`, weights the target shares, prefixes relative to
 * OUT), and OUT/report.json the figures of all sources together with the mixture section.
 */
export async function packPerSource(o: PerSourceOptions): Promise<PackSummary> {
  const out = o.packOptions.out;
  const parts: { name: string; dir: string; summary: PackSummary }[] = [];
  for (const s of o.mixture.plan.sources) {
    const dir = join('sources', s.name);
    const ledger = new Ledger();
    ledger.printDrops(`run: ${s.name}`);
    const stages: Record<string, unknown> = { ...o.stages };
    const docs = o.masked(ofSource(o.mixture.docsFile, s.name, ledger), stages);
    const summary = await runPackJob({ ...o.packOptions, out: join(out, dir) }, { docs, ledger, inputs: o.inputs, stages, identity: { ...o.identity, per_source: s.name } });
    parts.push({ name: s.name, dir, summary });
  }
  const report = mergeReports(parts.map((p) => p.summary.report));
  const prefix = (name: string) => join('sources', name, 'megatron', `${o.packOptions.name}_text_document`);
  const packed = (name: string) => (report.by_mixture_source?.[name]?.tokens ?? 0) > 0;
  const line = blendLine(o.mixture.plan, prefix, packed);
  writeFileAtomic(join(out, BLEND_FILE), line + '\n');
  report.stages = o.stages;
  report.mixture = { ...o.mixture.report(report), blend: { data_path: line, file: BLEND_FILE } };
  const manifest = perSourceManifest(o, parts, report);
  writeFileAtomic(join(out, 'report.json'), JSON.stringify(report, null, 2) + '\n');
  writeReportHtml(join(out, 'report.html'), report, { ...manifest, doc_lengths: undefined });
  writeFileAtomic(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  o.outDir.complete([BLEND_FILE, 'report.json', 'report.html', 'manifest.json']);
  return { manifest, report };
}

/** The prepared (mixed) documents of one source; each counted in as this source's pack reads it. */
async function* ofSource(file: string, source: string, ledger: Ledger): AsyncIterable<Doc> {
  for await (const d of readDocumentFile(file, new Ledger())) {
    if (mixtureSourceOf(d) !== source) continue;
    ledger.input();
    yield d;
  }
}

/** The top manifest of a per-source run: the sources' outputs (each a complete pack output), their ledgers and counts together. */
function perSourceManifest(o: PerSourceOptions, parts: { name: string; dir: string; summary: PackSummary }[], report: PackSummary['report']): Manifest & { per_source: unknown[] } {
  const ledger = new Ledger();
  for (const p of parts) ledger.merge(p.summary.manifest.ledger);
  const first = parts[0]!.summary.manifest;
  const sum = (k: keyof Manifest['counts']) => parts.reduce((s, p) => s + p.summary.manifest.counts[k], 0);
  return {
    midpack_version: VERSION,
    rank: first.rank,
    world_size: first.world_size,
    config: { ...first.config, per_source: true },
    tokenizer: first.tokenizer,
    inputs: first.inputs,
    ledger: ledger.toJSON(),
    balanced: ledger.balanced(),
    counts: { documents: sum('documents'), tokens: sum('tokens'), masked_tokens: sum('masked_tokens'), units: sum('units'), bins: sum('bins'), padding_tokens: sum('padding_tokens') },
    shards: [],
    shards_fingerprint: '',
    megatron: [],
    // No lengths file of its own: each source's output has one.
    doc_lengths: { path: 'sources', sha256: '' },
    per_source: parts.map((p) => ({ name: p.name, dir: p.dir, manifest_sha256: sha256(join(o.packOptions.out, p.dir, 'manifest.json')) })),
    stages: o.stages,
    mixture: report.mixture,
  };
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
