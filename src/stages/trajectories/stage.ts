import { readFileSync, statSync } from 'node:fs';
import type { Doc } from '../../doc/document.js';
import type { StageContext } from '../../core/stage.js';
import { Rng, stableId } from '../../core/random.js';
import { expandInputs, isJsonl, portableNamer } from '../../io/inputs.js';
import { readJsonl } from '../../io/jsonl.js';
import { parseTrajectory, renderTrajectory, type Rendered, type Template } from './chatml.js';
import { REASONS, TrajectoryError, firstDifference, type Trajectory } from './model.js';
import { readOpenaiRow, readSharegptRow, readSweAgent } from './readers.js';
import { TEMPLATES, TEMPLATE_NAMES, type TemplateName } from './templates/index.js';
import type { TrajectoriesOptions } from './options.js';
import { TrajectoryStats } from './stats.js';

/**
 * The trajectories source: agent trajectories (SWE-agent `.traj`, OpenAI chat JSONL, ShareGPT
 * JSONL) into ChatML documents, one per trajectory and template, each verified by parsing it
 * back with its template's own parser before it is kept.
 *
 * Ledger unit: the trajectory. It is counted out when at least one of its samples is kept; a
 * trajectory that cannot be read is dropped by reason (see model.ts REASONS), one whose every
 * sample fails verification as `roundtrip_mismatch`. Samples that fail while another template of
 * the same trajectory is kept are counted in `stats` and under `produced`.
 */
export const isTrajectoryFile = (name: string) => name.endsWith('.traj') || isJsonl(name);

export async function* trajectoriesSource(inputs: string[], o: TrajectoriesOptions, ctx: StageContext): AsyncIterable<Doc> {
  const stats = new TrajectoryStats();
  ctx.stats.trajectories = stats.json;
  for await (const t of readTrajectories(inputs, o, ctx)) {
    const names: TemplateName[] = o.allTemplates ? [...TEMPLATE_NAMES] : [drawTemplate(t, o, ctx.seed)];
    const kept: Doc[] = [];
    let failure: TrajectoryError | undefined;
    for (const name of names) {
      const tpl = TEMPLATES[name];
      const r = renderTrajectory(t, tpl, o.lossOn);
      const bad = verify(t, tpl, r);
      if (bad) {
        failure = bad;
        stats.rejected(name, bad.reason, bad.message);
        continue;
      }
      kept.push(ctx.repeat && !o.allTemplates ? redrawn(t, name, r, o, ctx.seed, ctx.repeat) : toDoc(t, name, r, o, ctx.seed));
      stats.add(name, t, r, o.countTokens?.(r));
    }
    if (kept.length === 0) {
      ctx.ledger.drop(failure!.reason, failure!.message);
      continue;
    }
    if (failure) ctx.ledger.produce('samples_failed_verification', names.length - kept.length);
    ctx.ledger.output();
    ctx.ledger.produce('documents', kept.length);
    stats.trajectory(t);
    yield* kept;
  }
  ctx.stats.trajectories = stats.json;
}

function drawTemplate(t: Trajectory, o: TrajectoriesOptions, seed: number, repeat?: number): TemplateName {
  const key = t.key ?? t.source;
  return new Rng(seed, 'trajectory-template', repeat ? `${key}#r${repeat}` : key).weighted(o.templates);
}

/**
 * Repeat N of a mixture: the template drawn afresh from the seed and N, under the first use's id
 * (the mixture unit). A redrawn template whose sample does not parse back keeps the first one.
 */
function redrawn(t: Trajectory, first: TemplateName, firstRendered: Rendered, o: TrajectoriesOptions, seed: number, repeat: number): Doc {
  const name = drawTemplate(t, o, seed, repeat);
  const r = name === first ? firstRendered : renderTrajectory(t, TEMPLATES[name], o.lossOn);
  const parses = name === first || verify(t, TEMPLATES[name], r) === undefined;
  const doc = parses ? toDoc(t, name, r, o, seed) : toDoc(t, first, firstRendered, o, seed);
  return { ...doc, id: toDocId(t, first, seed) };
}

const toDocId = (t: Trajectory, template: TemplateName, seed: number) => stableId(seed, 'trajectory', t.key ?? t.source, template);

/** Parses the sample back with the template's parser and compares messages, calls and the tools its header lists. */
export function verify(t: Trajectory, tpl: Template, r: Rendered): TrajectoryError | undefined {
  const fail = (why: string) => new TrajectoryError(REASONS.roundtrip, `${t.source}: ${tpl.name}: the sample does not parse back: ${why}`);
  try {
    const parsed = parseTrajectory(r.text, r.special_spans, tpl);
    const diff = firstDifference(t.messages, parsed.messages);
    if (diff) return fail(diff);
    const listed = [...parsed.header.tools.keys()].join(',');
    const want = tpl.listsTools(t) ? t.tools.map((x) => x.name).join(',') : '';
    if (listed !== want) return fail(`the header lists tools [${listed}], expected [${want}]`);
    return undefined;
  } catch (e) {
    return fail((e as Error).message);
  }
}

function toDoc(t: Trajectory, template: TemplateName, r: Rendered, o: TrajectoriesOptions, seed: number): Doc {
  const toolCalls = t.messages.reduce((n, m) => n + (m.calls?.length ?? 0), 0);
  const doc: Doc = {
    id: toDocId(t, template, seed),
    kind: 'trajectory',
    source: t.source,
    text: r.text,
    meta: {
      template,
      format: t.format,
      turns: r.turns,
      messages: t.messages.length,
      tool_calls: toolCalls,
      tools: t.tools.map((x) => x.name),
      tools_from: t.toolsFrom,
      calls_from_text: t.callsFromText,
      loss_on: o.lossOn,
      // The header (system turn with the tool definitions) is [0, header_end); each boundary starts a turn.
      header_end: r.boundaries[0],
      boundaries: r.boundaries,
    },
    special_spans: r.special_spans,
  };
  if (r.loss_mask_spans.length) doc.loss_mask_spans = r.loss_mask_spans;
  return doc;
}

/** Every trajectory of the inputs this rank owns, in input order; unreadable ones counted by reason. */
async function* readTrajectories(inputs: string[], o: TrajectoriesOptions, ctx: StageContext): AsyncIterable<Trajectory> {
  const { ledger, owns } = ctx;
  const nameOf = portableNamer(inputs);
  for (const file of expandInputs(inputs, isTrajectoryFile)) {
    if (file.endsWith('.traj')) {
      if (owns && !owns(file)) continue;
      ledger.input();
      try {
        yield { ...readTrajFile(file, o.maxTrajectoryBytes), key: nameOf(file) };
      } catch (e) {
        dropOrThrow(e, ctx);
      }
      continue;
    }
    for await (const rec of readJsonl(file, ledger, o.maxTrajectoryBytes, owns)) {
      const source = `${file}:${rec.lineNo}`;
      try {
        // Keyed by the portable name, not the path: the id and the drawn template do not move with the data.
        yield { ...readRow(rec.value, source), key: `${nameOf(file)}:${rec.lineNo}` };
      } catch (e) {
        dropOrThrow(e, ctx);
      }
    }
  }
}

function dropOrThrow(e: unknown, ctx: StageContext): void {
  if (!(e instanceof TrajectoryError)) throw e;
  ctx.ledger.drop(e.reason, e.message);
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

function readTrajFile(file: string, maxBytes: number): Trajectory {
  let bytes: Buffer;
  try {
    const size = statSync(file).size;
    if (size > maxBytes) throw new TrajectoryError(REASONS.tooLarge, `${file}: ${size} bytes, over the limit of ${maxBytes}`);
    bytes = readFileSync(file);
  } catch (e) {
    if (e instanceof TrajectoryError) throw e;
    throw new TrajectoryError(REASONS.unreadable, `${file}: ${(e as Error).message}`);
  }
  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    throw new TrajectoryError(REASONS.invalidUtf8, `${file}: not valid UTF-8`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new TrajectoryError(REASONS.malformedJson, `${file}: ${(e as Error).message}`);
  }
  return readSweAgent(value, file);
}

/** A JSONL row by its layout: `messages` (OpenAI), `conversations` (ShareGPT) or `history` (SWE-agent). */
function readRow(value: unknown, source: string): Trajectory {
  const r = (value ?? {}) as Record<string, unknown>;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    if (Array.isArray(r.messages)) return readOpenaiRow(value, source);
    if (Array.isArray(r.conversations)) return readSharegptRow(value, source);
    if (Array.isArray(r.history)) return readSweAgent(value, source);
  }
  throw new TrajectoryError(REASONS.badRecord, `${source}: not a trajectory (no "messages", "conversations" or "history" list)`);
}
