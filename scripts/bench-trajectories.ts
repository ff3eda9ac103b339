/**
 * Trajectories benchmark: the whole source (read the .traj files, normalize, render, parse back
 * and compare) on SWE-agent's own trajectories, one template at a time, one core. Each template
 * runs the set repeatedly for at least two seconds. Prints trajectories/s, MB/s of input (.traj
 * bytes) and of output (rendered text, UTF-8), and the peak RSS of the process.
 *
 * Then the jinja path: each published chat template of ../shared/data/chat-templates through
 * `--chat-template` (render with @huggingface/jinja, place the loss mask, special spans and
 * turn boundaries), with the bos/eos tokens and argument settings of the test fixtures. A
 * template that raises on a trajectory (Mistral's on ids that are not 9 characters) counts it
 * under `rejected`, as the stage does.
 *
 * Then `--turns faithful` through each chat template: samples/s and output MB/s on one core, the
 * rate against the same template's whole render in this run, and the token cost against whole
 * (Qwen3 tokens, the manifest's `turn_cost`) on the SWE-agent set and on the stress rows with
 * several user turns (test/fixtures/trajectories/chat-templates/stress.jsonl, rows 2-4).
 *
 * Last, the cost of the render bounds (--template-max-steps and the others): each chat template
 * renders the same trajectories with the default bounds and without any, the two passes
 * alternated in one run (and which goes first) so that load falls on both; the ratio of their
 * times is printed.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defaultContext } from '../src/core/stage.js';
import { TEMPLATE_NAMES, renderChatTemplate, resolveTrajectoriesOptions, specialFinder, trajectoriesSource, type Trajectory } from '../src/stages/trajectories/index.js';
import { readTrajectories } from '../src/stages/trajectories/stage.js';
import { sharedDir } from '../test/helpers/paths.js';
import { loadTokenizer } from '../src/tokenize/index.js';
import { CHAT_FIXTURES } from './build-chat-template-rows.js';

const dir = join(sharedDir, 'data', 'trajectories', 'swe-agent');
const files: string[] = [];
const walk = (d: string) => {
  for (const n of readdirSync(d).sort()) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) walk(p);
    else if (n.endsWith('.traj')) files.push(p);
  }
};
walk(dir);
const inputBytes = files.reduce((n, f) => n + statSync(f).size, 0);

const chatDir = join(sharedDir, 'data', 'chat-templates');
const settings = JSON.parse(readFileSync(join(CHAT_FIXTURES, 'settings.json'), 'utf8')) as Record<string, { bos_token?: string; eos_token?: string; json_arguments?: boolean }>;

/** The source's options for a built-in template name, or a shared chat template file (`*.jinja`). */
function options(template: string): Record<string, unknown> {
  if (!template.endsWith('.jinja')) return { templates: `${template}=1` };
  const s = settings[template] ?? {};
  return { chatTemplates: join(chatDir, template), bosToken: s.bos_token, eosToken: s.eos_token, jsonArguments: s.json_arguments ? template : undefined };
}

/** Options resolved once per template, as a run does (a chat template is read and parsed there). */
const resolved = new Map<string, ReturnType<typeof resolveTrajectoriesOptions>>();

async function pass(template: string, turns = 'whole'): Promise<{ trajectories: number; outBytes: number; rejected: number }> {
  const ctx = defaultContext({ log: () => {} });
  let outBytes = 0;
  let trajectories = 0;
  const raw = Object.fromEntries(Object.entries({ ...options(template), ...(turns === 'whole' ? {} : { turns }) }).filter(([, v]) => v !== undefined));
  const key = `${template}\0${turns}`;
  if (!resolved.has(key)) resolved.set(key, resolveTrajectoriesOptions(raw));
  for await (const d of trajectoriesSource(files, resolved.get(key)!, ctx)) {
    outBytes += Buffer.byteLength(d.text);
    trajectories++;
  }
  return { trajectories, outBytes, rejected: ctx.ledger.droppedTotal };
}

console.log(`${files.length} SWE-agent trajectories, ${(inputBytes / 1e6).toFixed(2)} MB of .traj files (${dir})`);
console.log('template                 passes  trajectories/s  input MB/s  output MB/s  rejected  vs qwen3-coder');
let builtinRate = 0;
const wholeRate = new Map<string, number>();
const jinja = readdirSync(chatDir).filter((n) => n.endsWith('.jinja')).sort();
/** Passes of a template over the set for `ms` after a warm-up pass (module and JIT), summed; `kept`: trajectories written. */
async function timedPasses(template: string, turns: string, ms: number) {
  await pass(template, turns);
  const sum = { passes: 0, docs: 0, outBytes: 0, rejected: 0, kept: 0, s: 0 };
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const r = await pass(template, turns);
    sum.passes++;
    sum.docs += r.trajectories;
    sum.outBytes += r.outBytes;
    sum.rejected += r.rejected;
    sum.kept += r.trajectories > 0 ? files.length - r.rejected : 0;
  }
  sum.s = (performance.now() - t0) / 1000;
  return sum;
}

for (const template of [...TEMPLATE_NAMES, ...jinja]) {
  const { passes, docs: trajectories, outBytes, rejected, s } = await timedPasses(template, 'whole', 2000);
  // The same run's built-in qwen3-coder rate: a ratio holds on a loaded machine where rates do not.
  if (template === 'qwen3-coder') builtinRate = trajectories / s;
  wholeRate.set(template, trajectories / s);
  const row = [template.padEnd(23), String(passes).padStart(7), (trajectories / s).toFixed(1).padStart(15), ((passes * inputBytes) / 1e6 / s).toFixed(2).padStart(11), (outBytes / 1e6 / s).toFixed(2).padStart(12), String(rejected).padStart(9), `${(trajectories / s / builtinRate).toFixed(2)}x`.padStart(15)];
  console.log(row.join(' '));
}
/** The token cost of faithful against whole (the manifest's turn_cost) on some inputs. */
async function tokenCost(template: string, inputs: string[], count: (d: { text: string; special_spans?: [number, number][] }) => number): Promise<string> {
  const ctx = defaultContext({ log: () => {} });
  const raw = Object.fromEntries(Object.entries({ ...options(template), turns: 'faithful', requireTermination: false }).filter(([, v]) => v !== undefined));
  const o = { ...resolveTrajectoriesOptions(raw), countTokens: count };
  for await (const _ of trajectoriesSource(inputs, o, ctx)) void _;
  const c = ((ctx.stats.trajectories as { turn_cost?: Record<string, { cost_tokens?: number; faithful: number }> }).turn_cost ?? {})[template];
  return c?.cost_tokens !== undefined ? `${c.cost_tokens.toFixed(2)}x` : '-';
}

const tok = await loadTokenizer();
const count = (d: { text: string; special_spans?: [number, number][] }) => tok.encodeDoc(d as never).ids.length;
const stress = join(CHAT_FIXTURES, 'stress.jsonl');
const multiUser = readFileSync(stress, 'utf8').trim().split('\n').slice(1);
const { writeFileSync, mkdtempSync } = await import('node:fs');
const multiFile = join(mkdtempSync(join((await import('node:os')).tmpdir(), 'bench-turns-')), 'multi-user.jsonl');
writeFileSync(multiFile, multiUser.join('\n') + '\n');
console.log(`\n--turns faithful, the same ${files.length} trajectories; token cost against whole (Qwen3 tokens) there and on ${multiUser.length} stress rows with several user turns`);
console.log('template                 passes     samples/s  output MB/s  vs whole  cost SWE-agent  cost multi-user');
for (const template of jinja) {
  const { passes, docs: samples, outBytes, kept: trajectories, s } = await timedPasses(template, 'faithful', 1500);
  const vsWhole = wholeRate.get(template) ? `${(trajectories / s / wholeRate.get(template)!).toFixed(2)}x` : '-';
  const row = [template.padEnd(23), String(passes).padStart(7), (samples / s).toFixed(1).padStart(13), (outBytes / 1e6 / s).toFixed(2).padStart(12), vsWhole.padStart(9), (await tokenCost(template, files, count)).padStart(14), (await tokenCost(template, [multiFile], count)).padStart(16)];
  console.log(row.join(' '));
}

/** Seconds of one pass rendering every trajectory with a chat template, with the options' bounds or none. */
function renderPass(ts: Trajectory[], o: ReturnType<typeof resolveTrajectoriesOptions>, bounded: boolean): number {
  const ct = o.chatTemplates[0]!.template;
  const specials = specialFinder(o.tokenizer);
  const t0 = performance.now();
  for (const t of ts) {
    try {
      renderChatTemplate(t, ct, { lossOn: o.lossOn, kwargs: o.templateKwargs, specials, bounds: bounded ? o : undefined });
    } catch {
      // a template that raises on a trajectory raises with and without bounds
    }
  }
  return (performance.now() - t0) / 1000;
}

const trajectories: Trajectory[] = [];
for await (const t of readTrajectories(files, resolveTrajectoriesOptions({}), defaultContext({ log: () => {} }), () => {})) trajectories.push(t);
console.log('\nrender bounds (defaults) against none, alternated passes of the same trajectories:');
console.log('template                 passes  bounded s  unbounded s  bounded/unbounded  fastest pass ratio');
for (const template of jinja) {
  const o = resolved.get(`${template}\0whole`)!;
  renderPass(trajectories, o, true);
  renderPass(trajectories, o, false);
  let passes = 0;
  let withBounds = 0;
  let without = 0;
  // The fastest pass of each: what load adds is never negative, so the minima are the least disturbed.
  let minWith = Infinity;
  let minWithout = Infinity;
  const bounded = () => {
    const s = renderPass(trajectories, o, true);
    withBounds += s;
    minWith = Math.min(minWith, s);
  };
  const unbounded = () => {
    const s = renderPass(trajectories, o, false);
    without += s;
    minWithout = Math.min(minWithout, s);
  };
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) {
    // Which goes first alternates: the garbage one pass leaves is collected in the next.
    const first = passes % 2 === 0;
    if (first) bounded();
    unbounded();
    if (!first) bounded();
    passes++;
  }
  console.log([template.padEnd(23), String(passes).padStart(7), withBounds.toFixed(3).padStart(10), without.toFixed(3).padStart(12), `${(withBounds / without).toFixed(3)}x`.padStart(18), `${(minWith / minWithout).toFixed(3)}x`.padStart(19)].join(' '));
}
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
