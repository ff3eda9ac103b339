import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Doc } from '../../../src/doc/document.js';
import { collect, defaultContext } from '../../../src/core/stage.js';
import { resolveTrajectoriesOptions, trajectoriesSource } from '../../../src/stages/trajectories/index.js';
import { sharedDir } from '../../helpers/paths.js';
import assert from 'node:assert/strict';
import type { MidTokenizer } from '../../../src/tokenize/index.js';
import { encodeForPacking } from '../../../src/tokenize/encode.js';
import { CHAT_FIXTURES, DEFAULT_ROW_INPUTS } from '../../../scripts/build-chat-template-rows.js';
import { readTrajectories } from '../../../src/stages/trajectories/stage.js';

/** SWE-agent's own trajectories (MIT), the real data the stage is built for. */
export const sweAgentDir = join(sharedDir, 'data', 'trajectories', 'swe-agent');

export const tmp = () => mkdtempSync(join(tmpdir(), 'midpack-traj-'));

/** Runs the trajectories source over inputs; returns the documents, ledger and stats. */
export async function runSource(inputs: string[], raw: Record<string, unknown> = {}, seed = 0) {
  const ctx = defaultContext({ seed, log: () => {} });
  const docs: Doc[] = await collect(trajectoriesSource(inputs, resolveTrajectoriesOptions(raw), ctx));
  return { docs, ledger: ctx.ledger.toJSON(), balanced: ctx.ledger.balanced(), stats: ctx.stats.trajectories as Record<string, any> };
}

/** Writes rows as a JSONL file and returns its path. */
export function jsonlFile(dir: string, name: string, rows: unknown[]): string {
  const p = join(dir, name);
  writeFileSync(p, rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  return p;
}

export const readJsonlDocs = (path: string): Doc[] => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Doc);

/** The shared chat templates (../shared/data/chat-templates), and the fixtures' settings for them (bos/eos, JSON arguments). */
export const TEMPLATES_DIR = join(sharedDir, 'data', 'chat-templates');
const chatSettings = JSON.parse(readFileSync(join(CHAT_FIXTURES, 'settings.json'), 'utf8')) as Record<string, { bos_token?: string; eos_token?: string; json_arguments?: boolean }>;

/**
 * Runs the source with one shared template, as `--chat-template FILE` with the fixture's settings,
 * over the fixture rows' inputs by default. Every trajectory read is rendered: the filters
 * (termination, valid calls) are tested in scaffolds.test.ts.
 */
export async function renderShared(file: string, extra: Record<string, unknown> = {}, inputs = DEFAULT_ROW_INPUTS) {
  const s = chatSettings[file] ?? {};
  const raw: Record<string, unknown> = { chatTemplates: [join(TEMPLATES_DIR, file)], requireTermination: false, requireValidCalls: false, ...extra };
  if (s.bos_token) raw.bosToken = s.bos_token;
  if (s.eos_token) raw.eosToken = s.eos_token;
  if (s.json_arguments) raw.jsonArguments = [file];
  return runSource(inputs, raw);
}

/** The portable key of each trajectory of the fixture rows' inputs, by its source, as the rows file names it. */
export async function keysBySource(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const t of readTrajectories(DEFAULT_ROW_INPUTS, resolveTrajectoriesOptions({}), defaultContext({ log: () => {} }), () => {})) out.set(t.source, t.key!);
  return out;
}

/** A document's tokens and loss mask as a pack holds them (end-of-text last). */
export type Packed = { ids: Int32Array; mask: Uint8Array };

function encodeDoc(tok: MidTokenizer, doc: Doc): Packed {
  const r = encodeForPacking(tok, { text: doc.text, special_spans: doc.special_spans, loss_mask_spans: doc.loss_mask_spans });
  if ('error' in r) assert.fail(r.error);
  return r as Packed;
}

/** Per character: 1 if the token holding it is trained on, by decoding the packing tokens; and the token's character range. */
export function decodeTrained(tok: MidTokenizer, doc: Doc, packed?: Packed): { trained: Uint8Array; tokenStart: Int32Array; tokenEnd: Int32Array } {
  const { ids, mask } = packed ?? encodeDoc(tok, doc);
  const out = new Uint8Array(doc.text.length);
  const tokenStart = new Int32Array(doc.text.length);
  const tokenEnd = new Int32Array(doc.text.length);
  let pos = 0;
  for (let i = 0; i < ids.length - 1; ) {
    let j = i + 1;
    let piece = tok.decode([ids[i]!]);
    while (piece.includes('\uFFFD') && j < ids.length - 1 && j - i < 8) piece = tok.decode(ids.subarray(i, ++j));
    assert.ok(doc.text.startsWith(piece, pos), `token ${i} decodes to ${JSON.stringify(piece)}`);
    out.fill(mask[i]!, pos, pos + piece.length);
    tokenStart.fill(pos, pos, pos + piece.length);
    tokenEnd.fill(pos + piece.length, pos, pos + piece.length);
    pos += piece.length;
    i = j;
  }
  assert.equal(pos, doc.text.length);
  return { trained: out, tokenStart, tokenEnd };
}

/**
 * By decoding the packing tokens of a faithful sample: the characters of its held turns (meta.turn_spans, trailing
 * whitespace aside) are trained on and nothing else is; `packed`: the tokens a pack holds, else a fresh encoding.
 */
export function assertTrainedTurns(tok: MidTokenizer, d: Doc, label: string, packed?: Packed): void {
  const { trained, tokenStart, tokenEnd } = decodeTrained(tok, d, packed);
  const want = new Uint8Array(d.text.length);
  for (const [s, e] of d.meta.turn_spans as [number, number][]) {
    let end = e;
    while (end > s && /\s/.test(d.text[end - 1]!)) end--;
    want.fill(1, s, end);
  }
  // A token is trained when any of its characters is (src/tokenize/token-mask.ts): another model's markers are
  // text to the Qwen3 tokenizer, and a token may hold the end of a turn and the start of what follows.
  const straddles = (i: number) => want.subarray(tokenStart[i]!, tokenEnd[i]!).includes(1);
  for (let i = 0; i < want.length; i++) {
    if (trained[i] !== want[i] && !(trained[i] && straddles(i))) assert.fail(`${label} sample ${d.meta.sample}: char ${i} ${JSON.stringify(d.text.slice(i, i + 30))} is ${trained[i] ? 'trained on' : 'masked'}`);
  }
}
