import { statSync } from 'node:fs';
import type { Doc } from '../../doc/document.js';
import type { StageContext } from '../../core/stage.js';
import { Rng, stableId } from '../../core/random.js';
import { expandInputs, isJsonl, portableNamer } from '../../io/inputs.js';
import { inputOwns } from '../../core/ranks.js';
import { readJsonl, unreadableFile } from '../../io/jsonl.js';
import { openBytes, readLines } from '../../io/lines.js';
import { isSweBenchReport, readDocument, readRecord } from './detect.js';
import { filterTrajectory, loadOutcomes, outcomeOf, type TrajectoryFilters } from './filters.js';
import { isSessionRecord, readSession, type SessionRecord } from './scaffolds/session.js';
import { parseTrajectory, renderTrajectory, type Rendered, type Template } from './chatml.js';
import { REASONS, TrajectoryError, firstDifference, type Trajectory } from './model.js';
import { TEMPLATES, TEMPLATE_NAMES, type TemplateName } from './templates/index.js';
import { renderChatTemplate, type ChatTemplate, type DropReason, type SpecialFinder } from './jinja/mask.js';
import { renderFaithful, type FaithfulResult } from './jinja/turns.js';
import { specialFinder } from './jinja/sources.js';
import type { TrajectoriesOptions } from './options.js';
import { TrajectoryStats } from './stats.js';
import { isRemote, readFileAnySync, sizeOf } from '../../io/storage.js';

/**
 * The trajectories source: agent trajectories (SWE-agent `.traj`, OpenAI chat JSONL, ShareGPT
 * JSONL, and the own files of mini-SWE-agent, OpenHands, Claude Code, Qwen Code and Terminus, each
 * told by its content: detect.ts) into ChatML documents, one per trajectory and template, each
 * verified by parsing it back with its template's own parser before it is kept. The report's
 * filters (termination, outcome, malformed calls: filters.ts) run between reading and rendering.
 *
 * Files: `.traj`/`.json` are one JSON value (one trajectory, or a Terminus traces list); JSONL is
 * one trajectory per row, or, when its first record is an event (scaffolds/session.ts), one
 * session whose lines together are a trajectory.
 *
 * Ledger unit: the trajectory. It is counted out when at least one of its samples is kept; a
 * trajectory that cannot be read is dropped by reason (see model.ts REASONS), one whose every
 * sample fails verification as `roundtrip_mismatch`. Samples that fail while another template of
 * the same trajectory is kept are counted in `stats` and under `produced`.
 */
export const isTrajectoryFile = (name: string) => isWholeJson(name) || isJsonl(name);
const isWholeJson = (name: string) => name.endsWith('.traj') || name.endsWith('.json');

/** One template as the stage uses it: its name, weight, and how it makes a sample of a trajectory. */
interface Sampler {
  name: string;
  weight: number;
  /** The sample, or the reason it cannot be made (a failed round trip, a template's own error, ...). */
  sample(t: Trajectory): Sample | TrajectoryError;
}

/**
 * A trajectory in one template: its whole render, and with `--turns faithful` (or `auto` on a
 * row the template is unstable on) the turn-faithful samples written in its place.
 */
interface Sample {
  rendered: Rendered;
  dropped: Partial<Record<DropReason, number>>;
  nullContentPrinted?: number;
  faithful?: FaithfulResult;
}

function builtinSampler(name: TemplateName, weight: number, o: TrajectoriesOptions): Sampler {
  const tpl = TEMPLATES[name];
  return {
    name,
    weight,
    sample(t) {
      const rendered = renderTrajectory(t, tpl, o.lossOn);
      // The built-in formats have no place for reasoning kept apart from the content.
      const reasoning = t.messages.filter((m) => m.reasoning !== undefined).length;
      return verify(t, tpl, rendered) ?? { rendered, dropped: reasoning ? { reasoning } : {} };
    },
  };
}

function chatSampler(ct: ChatTemplate, weight: number, o: TrajectoriesOptions, specials: () => SpecialFinder): Sampler {
  return {
    name: ct.name,
    weight,
    sample(t) {
      try {
        const ro = { lossOn: o.lossOn, kwargs: o.templateKwargs, specials: specials(), date: o.templateDate, bounds: o };
        const whole = renderChatTemplate(t, ct, ro);
        if (o.turns === 'whole') return whole;
        const faithful = renderFaithful(t, ct, ro, whole);
        return o.turns === 'auto' && faithful.stable ? whole : { ...whole, faithful };
      } catch (e) {
        if (e instanceof TrajectoryError) return e;
        throw e;
      }
    },
  };
}

/** The templates in play: the built-ins (all of them, or those weighted, beside chat templates) and the chat templates. */
function samplers(o: TrajectoriesOptions): Sampler[] {
  let finder: SpecialFinder | undefined;
  const specials = () => (finder ??= specialFinder(o.tokenizer));
  const builtins = TEMPLATE_NAMES.filter((n) => !o.allTemplates || o.chatTemplates.length === 0 || o.templates[n] > 0);
  return [...builtins.map((n) => builtinSampler(n, o.templates[n], o)), ...o.chatTemplates.map((c) => chatSampler(c.template, c.weight, o, specials))];
}

export async function* trajectoriesSource(inputs: string[], o: TrajectoriesOptions, ctx: StageContext): AsyncIterable<Doc> {
  const stats = new TrajectoryStats({ turns: o.turns, templateDate: o.templateDate });
  ctx.stats.trajectories = stats.json;
  const all = samplers(o);
  const byName = new Map(all.map((x) => [x.name, x]));
  const weights = Object.fromEntries(all.map((x) => [x.name, x.weight]));
  for await (const t of filteredTrajectories(inputs, o, ctx, stats)) {
    const chosen = o.allTemplates ? all : [byName.get(drawTemplate(t, weights, ctx.seed))!];
    const kept: Doc[] = [];
    let failure: TrajectoryError | undefined;
    for (const s of chosen) {
      const r = s.sample(t);
      if (r instanceof TrajectoryError) {
        failure = r;
        stats.rejected(s.name, r.reason, r.message);
        continue;
      }
      kept.push(...(ctx.repeat && !o.allTemplates ? redrawn(t, s.name, r, byName, weights, o, ctx.seed, ctx.repeat) : toDocs(t, s.name, r, o, ctx.seed)));
      stats.sample(s.name, t, r, o.countTokens);
    }
    if (kept.length === 0) {
      ctx.ledger.drop(failure!.reason, failure!.message);
      continue;
    }
    if (failure) ctx.ledger.produce('samples_failed_verification', chosen.length - kept.length);
    ctx.ledger.output();
    ctx.ledger.produce('documents', kept.length);
    stats.trajectory(t);
    yield* kept;
  }
  ctx.stats.trajectories = stats.json;
}

/**
 * The trajectories of the inputs that pass the filters (filters.ts), their outcome joined; each
 * one dropped is counted in the ledger by reason and in `stats` by scaffold. A SWE-bench report
 * among the inputs is skipped (logged, and listed in `stats`).
 */
export async function* filteredTrajectories(inputs: string[], o: TrajectoriesOptions, ctx: StageContext, stats: TrajectoryStats): AsyncIterable<Trajectory> {
  const filters: TrajectoryFilters = { requireTermination: o.requireTermination, requireValidCalls: o.requireValidCalls, require: o.require, outcomes: o.outcomes.length ? loadOutcomes(o.outcomes) : undefined };
  const skipped = (file: string, why: string) => {
    stats.skippedFile(file, why);
    ctx.log(`${file}: skipped: ${why}`);
  };
  for await (const read of readTrajectories(inputs, o, ctx, skipped)) {
    const resolved = outcomeOf(read, filters.outcomes);
    const t = resolved === undefined ? read : { ...read, resolved };
    const filtered = filterTrajectory(t, filters);
    stats.read(t, filtered?.reason);
    if (filtered) ctx.ledger.drop(filtered.reason, filtered.message);
    else yield t;
  }
}

function drawTemplate(t: Trajectory, weights: Record<string, number>, seed: number, repeat?: number): string {
  const key = t.key ?? t.source;
  return new Rng(seed, 'trajectory-template', repeat ? `${key}#r${repeat}` : key).weighted(weights);
}

/**
 * Repeat N of a mixture: the template drawn afresh from the seed and N, under the first use's id
 * (the mixture unit). A redrawn template whose sample cannot be made keeps the first one.
 */
function redrawn(t: Trajectory, first: string, firstSample: Sample, byName: Map<string, Sampler>, weights: Record<string, number>, o: TrajectoriesOptions, seed: number, repeat: number): Doc[] {
  const name = drawTemplate(t, weights, seed, repeat);
  const r = name === first ? firstSample : byName.get(name)!.sample(t);
  const docs = r instanceof TrajectoryError ? toDocs(t, first, firstSample, o, seed) : toDocs(t, name, r, o, seed);
  return docs.map((doc, k) => ({ ...doc, id: toDocId(t, first, seed, k) }));
}

/** A trajectory's document in a template; its faithful sample k > 0 has an id of its own. */
const toDocId = (t: Trajectory, template: string, seed: number, k = 0) => (k === 0 ? stableId(seed, 'trajectory', t.key ?? t.source, template) : stableId(seed, 'trajectory', t.key ?? t.source, template, `sample-${k}`));

/** The documents of a sample: the whole render's, or one per faithful sample (meta as jinja/turns.ts describes). */
function toDocs(t: Trajectory, template: string, sample: Sample, o: TrajectoriesOptions, seed: number): Doc[] {
  const f = sample.faithful;
  if (!f) return [toDoc(t, template, sample, o, seed)];
  const shift = t.noSystem ? 1 : 0;
  return f.samples.map((s, k) => {
    const doc = toDoc(t, template, { rendered: s.rendered, dropped: f.dropped }, o, seed);
    doc.id = toDocId(t, template, seed, k);
    // Which assistant turns the sample trains (message indexes of the trajectory), where each turn's own text
    // starts and ends (its context, generation prompt included, before), and the characters it shares with the previous sample.
    Object.assign(doc.meta, { turns_mode: 'faithful', sample: k, samples: f.samples.length, held_turns: s.messages.map((m) => m + shift), turn_spans: s.turnSpans, shared_prefix: s.sharedPrefix });
    // The samples share prefixes: `pack` plans them as one group, in one bin where they fit (pack/groups.ts).
    if (f.samples.length > 1) doc.meta.group = toDocId(t, template, seed);
    return doc;
  });
}

/** Parses the sample back with the template's parser and compares messages, calls and the tools its header lists. */
export function verify(t: Trajectory, tpl: Template, r: Rendered): TrajectoryError | undefined {
  const fail = (why: string) => new TrajectoryError(REASONS.roundtrip, `${t.source}: ${tpl.name}: the sample does not parse back: ${why}`);
  try {
    const parsed = parseTrajectory(r.text, r.special_spans, tpl);
    const kept = tpl.kept?.(t) ?? t.messages;
    const expected = t.noSystem && tpl.defaultSystem ? [{ role: 'system' as const, content: tpl.defaultSystem(t) ?? '' }, ...kept.slice(1)] : kept;
    const diff = firstDifference(expected, parsed.messages);
    if (diff) return fail(diff);
    const listed = [...parsed.header.tools.keys()].join(',');
    const want = tpl.listsTools(t) ? t.tools.map((x) => x.name).join(',') : '';
    if (listed !== want) return fail(`the header lists tools [${listed}], expected [${want}]`);
    return undefined;
  } catch (e) {
    return fail((e as Error).message);
  }
}

/** What the scaffold's file told: only the facts it had (a plain OpenAI row adds nothing). */
export function scaffoldMeta(t: Trajectory): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (t.scaffold) meta.scaffold = t.scaffold;
  if (t.instanceId !== undefined) meta.instance_id = t.instanceId;
  if (t.termination) meta.termination = t.termination.status;
  if (t.resolved !== undefined) meta.resolved = t.resolved;
  if (t.subagent) meta.subagent = true;
  return meta;
}

function toDoc(t: Trajectory, template: string, sample: Sample, o: TrajectoriesOptions, seed: number): Doc {
  const r = sample.rendered;
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
      ...scaffoldMeta(t),
      loss_on: o.lossOn,
      // The header (system turn with the tool definitions) is [0, header_end); each boundary starts a turn.
      header_end: r.boundaries[0],
      boundaries: r.boundaries,
      // What the template left out of the trajectory, by reason (chat templates: earlier reasoning, a call, ...).
      ...(Object.keys(sample.dropped).length ? { dropped_content: sample.dropped } : {}),
    },
    special_spans: r.special_spans,
  };
  if (r.loss_mask_spans.length) doc.loss_mask_spans = r.loss_mask_spans;
  return doc;
}

/** Every trajectory of the inputs this rank owns, in input order; unreadable ones counted by reason. */
export async function* readTrajectories(inputs: string[], o: TrajectoriesOptions, ctx: StageContext, skipped: (file: string, why: string) => void): AsyncIterable<Trajectory> {
  const { ledger, owns } = ctx;
  const nameOf = portableNamer(inputs);
  for (const file of expandInputs(inputs, isTrajectoryFile)) {
    // Ranks split by the portable name too: where the inputs are changes no rank's share.
    if (isWholeJson(file)) {
      if (owns && !owns(nameOf(file))) continue;
      yield* readJsonFile(file, nameOf(file), o.maxTrajectoryBytes, ctx, skipped);
      continue;
    }
    if (file !== '-' && isSessionRecord(await firstRecord(file, o.maxTrajectoryBytes))) {
      if (owns && !owns(nameOf(file))) continue;
      const t = await readSessionFile(file, o.maxTrajectoryBytes, ctx);
      if (t) yield { ...t, key: nameOf(file) };
      continue;
    }
    for await (const rec of readJsonl(file, ledger, o.maxTrajectoryBytes, inputOwns(owns, nameOf(file)))) {
      const source = `${file}:${rec.lineNo}`;
      try {
        // Keyed by the portable name, not the path: the id and the drawn template do not move with the data.
        yield { ...readRecord(rec.value, source), key: `${nameOf(file)}:${rec.lineNo}` };
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

/** A `.traj` or `.json` file: one trajectory, or several (Terminus traces); a SWE-bench report beside them is skipped. */
function* readJsonFile(file: string, name: string, maxBytes: number, ctx: StageContext, skipped: (file: string, why: string) => void): Iterable<Trajectory> {
  let value: unknown;
  try {
    value = readJsonValue(file, maxBytes);
  } catch (e) {
    ctx.ledger.input();
    return dropOrThrow(e, ctx);
  }
  if (isSweBenchReport(value)) return skipped(file, 'a SWE-bench report, not a trajectory (give it to --outcomes)');
  const { trajectories, prefixes } = readDocument(value, file);
  for (const p of prefixes) {
    ctx.ledger.input();
    ctx.ledger.drop(REASONS.episodePrefix, p);
  }
  for (const t of trajectories) {
    ctx.ledger.input();
    if (t instanceof TrajectoryError) dropOrThrow(t, ctx);
    else yield { ...t, key: name + t.source.slice(file.length) };
  }
}

function readJsonValue(file: string, maxBytes: number): unknown {
  let bytes: Buffer;
  try {
    const size = isRemote(file) ? sizeOf(file) : statSync(file).size;
    if (size > maxBytes) throw new TrajectoryError(REASONS.tooLarge, `${file}: ${size} bytes, over the limit of ${maxBytes}`);
    bytes = readFileAnySync(file);
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
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new TrajectoryError(REASONS.malformedJson, `${file}: ${(e as Error).message}`);
  }
}

/**
 * The first record of a JSONL file that parses (undefined when none of its first lines does): a bad
 * first line must not turn a session into rows, each then dropped as not a trajectory.
 */
async function firstRecord(file: string, maxBytes: number, lookAhead = 100): Promise<unknown> {
  let seen = 0;
  try {
    for await (const line of readLines(openBytes(file), maxBytes)) {
      if (++seen > lookAhead) return undefined;
      if (line.text === null || line.text.trim() === '') continue;
      try {
        return JSON.parse(line.text);
      } catch {
        // the next line may be a record
      }
    }
  } catch {
    // An unreadable file is counted when it is read as rows.
  }
  return undefined;
}

/**
 * A session file (every line a record of one trajectory): one ledger input; a line that is not
 * JSON or not UTF-8 is its own input, dropped by reason, and the session goes on without it. A
 * session over the size limit is dropped whole (`too_large`), read no further.
 */
async function readSessionFile(file: string, maxBytes: number, ctx: StageContext): Promise<Trajectory | undefined> {
  const records: SessionRecord[] = [];
  let bytes = 0;
  ctx.ledger.input();
  try {
    for await (const line of readLines(openBytes(file), maxBytes)) {
      bytes += line.bytes + 1;
      if (bytes > maxBytes) throw new TrajectoryError(REASONS.tooLarge, `${file}: the session is over the limit of ${maxBytes} bytes at line ${line.lineNo}`);
      if (line.text !== null && line.text.trim() === '') continue;
      const bad = line.text === null ? line.error! : undefined;
      let value: unknown;
      try {
        value = line.text === null ? undefined : JSON.parse(line.text);
      } catch (e) {
        ctx.ledger.input();
        ctx.ledger.drop(REASONS.malformedJson, `${file}:${line.lineNo}: ${(e as Error).message}`);
        continue;
      }
      if (bad) {
        ctx.ledger.input();
        ctx.ledger.drop(bad, `${file}:${line.lineNo}: ${bad === 'invalid_utf8' ? 'line is not valid UTF-8' : 'line is over the limit'}`);
        continue;
      }
      records.push({ lineNo: line.lineNo, value });
    }
    return readSession(records, file);
  } catch (e) {
    if (e instanceof TrajectoryError) return void ctx.ledger.drop(e.reason, e.message);
    const fault = unreadableFile(file, e);
    ctx.ledger.drop(fault.reason, `${file}: ${fault.message}: ${(e as Error).message}`);
    return undefined;
  }
}
