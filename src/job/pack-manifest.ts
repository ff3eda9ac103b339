import { createHash } from 'node:crypto';
import { join, relative } from 'node:path';
import type { Ledger } from '../core/ledger.js';
import type { RankInfo } from '../core/ranks.js';
import type { MixtureReport } from '../mix/report.js';
import type { ReportJson } from '../report/figures.js';
import { writeReportHtml } from '../report/html.js';
import { writeFileAtomic } from '../write/files.js';
import type { MegatronFileInfo } from '../write/megatron.js';
import type { PackOutputsResult } from './pack-outputs.js';
import { VERSION } from '../version.js';

export interface Manifest {
  midpack_version: string;
  rank: number;
  world_size: number;
  config: Record<string, unknown>;
  tokenizer: { name: string; sha256: string; eos_id: number; pad_id: number };
  inputs: { path: string; bytes: number; sha256: string }[];
  ledger: ReturnType<Ledger['toJSON']>;
  balanced: boolean;
  counts: { documents: number; tokens: number; masked_tokens: number; units: number; bins: number; padding_tokens: number };
  shards: { filename: string; rows: number; bytes: number; sha256: string }[];
  shards_fingerprint: string;
  /** sha256 over the inputs' sizes and checksums: ranks of one job have the same (merge checks it). */
  inputs_fingerprint?: string;
  megatron: MegatronFileInfo[];
  doc_lengths: { path: string; sha256: string };
  /** Ledgers and figures of the stages that made the documents (from `midpack run`). */
  stages?: Record<string, unknown>;
  /** The token-budgeted mixture: targets, decisions, achieved shares (docs/mixing.md). */
  mixture?: MixtureReport;
}

export interface ManifestParts {
  out: string;
  rank: RankInfo;
  config: Record<string, unknown>;
  tokenizer: Manifest['tokenizer'];
  inputs: Manifest['inputs'];
  ledger: Ledger;
  report: ReportJson;
  outputs: PackOutputsResult;
  stages?: Record<string, unknown>;
}

/** The manifest of one pack output: what went in, what came out, and the checksums of every file. */
export function buildManifest(p: ManifestParts): Manifest {
  const r = p.report;
  const manifest: Manifest = {
    midpack_version: VERSION,
    rank: p.rank.rank,
    world_size: p.rank.worldSize,
    config: p.config,
    tokenizer: p.tokenizer,
    inputs: p.inputs,
    ledger: p.ledger.toJSON(),
    balanced: p.ledger.balanced(),
    counts: {
      documents: r.packing.documents,
      tokens: r.packing.tokens,
      masked_tokens: r.masked_tokens,
      units: r.packing.units,
      bins: r.packing.bins,
      padding_tokens: r.packing.padding_tokens,
    },
    shards: p.outputs.shards.shards.map(({ filename, rows, bytes, sha256 }) => ({ filename, rows, bytes, sha256 })),
    shards_fingerprint: p.outputs.shards.fingerprint,
    inputs_fingerprint: inputsFingerprint(p.inputs),
    megatron: p.outputs.megatron.map((f) => ({ ...f, path: relative(p.out, f.path) })),
    doc_lengths: { path: 'doc_lengths.u32', sha256: p.outputs.lengthsSha256 },
  };
  if (p.stages) manifest.stages = p.stages;
  if (r.mixture) manifest.mixture = r.mixture;
  return manifest;
}

/** The inputs as every rank of one job sees them: sizes and checksums in order (folders by path). */
export function inputsFingerprint(inputs: Manifest['inputs']): string {
  const h = createHash('sha256');
  for (const i of inputs) h.update(i.sha256 ? `${i.bytes}\0${i.sha256}\n` : `${i.path}\n`);
  return h.digest('hex');
}

/**
 * The last files of a pack or merge output: report.json, report.html, then manifest.json
 * (a folder with a manifest.json is a finished output, so it comes last).
 */
export async function writeJobFiles(out: string, report: ReportJson, manifest: Parameters<typeof writeReportHtml>[2]): Promise<void> {
  writeFileAtomic(join(out, 'report.json'), JSON.stringify(report, null, 2) + '\n');
  await writeReportHtml(join(out, 'report.html'), report, manifest);
  writeFileAtomic(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
}
