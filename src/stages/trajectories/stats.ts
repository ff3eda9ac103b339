import type { Doc } from '../../doc/document.js';
import type { Rendered } from './chatml.js';
import type { Trajectory } from './model.js';
import type { FaithfulResult } from './jinja/turns.js';

/** Faithful samples against the whole render, by template (`--turns faithful|auto`). */
interface TurnFigures {
  /** Trajectories written as faithful samples, and those (auto) the template is stable on, written whole. */
  faithful: number;
  stable: number;
  samples: number;
  chars: number;
  /** The same trajectories' whole renders. */
  whole_chars: number;
  /** Reasoning strings the samples hold that the whole renders drop. */
  reasoning_kept: number;
  tokens?: number;
  whole_tokens?: number;
}

type Counter = ((doc: Pick<Doc, 'text' | 'special_spans'>) => number) | undefined;

interface TemplateFigures {
  documents: number;
  turns: number;
  tool_calls: number;
  chars: number;
  masked_chars: number;
  masked_share: number;
  /** With a token counter (`--count-tokens`). */
  tokens?: number;
}

/**
 * The stage's figures (its manifest's `stats.trajectories`): trajectories by input format and
 * tool-definition origin; documents, turns, tool calls and characters by template; the masked
 * share; samples that failed verification by template and reason; content a template left out
 * of the samples it made, by template and reason (`dropped_content`, see jinja/mask.ts); by
 * scaffold, the trajectories read, kept (a sample written) and dropped by the filters' reasons
 * (filters.ts); input files skipped as not trajectories (SWE-bench reports). Token counts by template are
 * in the pack report (`by_template`), where the tokenizer runs.
 */
export class TrajectoryStats {
  private trajectories = 0;
  private readonly byFormat: Record<string, number> = {};
  private readonly toolsFrom: Record<string, number> = {};
  private readonly byTemplate: Record<string, Omit<TemplateFigures, 'masked_share'>> = {};
  private readonly rejectedBy: Record<string, Record<string, number>> = {};
  private readonly droppedBy: Record<string, Record<string, number>> = {};
  private readonly examples: string[] = [];
  private readonly byScaffold: Record<string, { read: number; kept: number; dropped: Record<string, number> }> = {};
  private readonly skippedFiles: Record<string, string> = {};
  private readonly turnsBy: Record<string, TurnFigures> = {};
  private readonly nullPrinted: Record<string, number> = {};

  constructor(private readonly settings: { turns: string; templateDate: Date } = { turns: 'whole', templateDate: new Date(Date.UTC(2024, 6, 26)) }) {}

  /**
   * A trajectory's sample in a template: its documents (the whole render, or the faithful
   * samples), the `None`s written for null contents, and the faithful figures against whole.
   */
  sample(template: string, t: Trajectory, s: { rendered: Rendered; dropped: Record<string, number | undefined>; nullContentPrinted?: number; faithful?: FaithfulResult }, count: Counter): void {
    if (s.nullContentPrinted) this.nullPrinted[template] = (this.nullPrinted[template] ?? 0) + s.nullContentPrinted;
    const f = s.faithful;
    if (this.settings.turns !== 'whole') this.turnFigures(template, s.rendered, f, count);
    if (!f) return this.add(template, t, s.rendered, count?.(s.rendered), s.dropped);
    f.samples.forEach((x, k) => this.add(template, t, x.rendered, count?.(x.rendered), k === 0 ? f.dropped : {}));
  }

  private turnFigures(template: string, whole: Rendered, f: FaithfulResult | undefined, count: Counter): void {
    const g = (this.turnsBy[template] ??= { faithful: 0, stable: 0, samples: 0, chars: 0, whole_chars: 0, reasoning_kept: 0 });
    const wholeTokens = count?.(whole);
    g.whole_chars += whole.text.length;
    if (wholeTokens !== undefined) g.whole_tokens = (g.whole_tokens ?? 0) + wholeTokens;
    const samples = f ? f.samples.map((x) => x.rendered) : [whole];
    if (f) g.faithful++;
    else g.stable++;
    g.reasoning_kept += f?.reasoningKept ?? 0;
    g.samples += samples.length;
    for (const r of samples) {
      g.chars += r.text.length;
      if (wholeTokens !== undefined) g.tokens = (g.tokens ?? 0) + (r === whole ? wholeTokens : count!(r));
    }
  }

  /** A trajectory read, and the filter reason it was dropped for (undefined: it passed the filters). */
  read(t: Trajectory, droppedFor: string | undefined): void {
    const g = (this.byScaffold[t.scaffold ?? '(none)'] ??= { read: 0, kept: 0, dropped: {} });
    g.read++;
    if (droppedFor) g.dropped[droppedFor] = (g.dropped[droppedFor] ?? 0) + 1;
  }

  /** A file in the inputs that is not a trajectory and is not counted as one (a SWE-bench report). */
  skippedFile(file: string, why: string): void {
    this.skippedFiles[file] = why;
  }

  trajectory(t: Trajectory): void {
    this.trajectories++;
    this.byFormat[t.format] = (this.byFormat[t.format] ?? 0) + 1;
    this.toolsFrom[t.toolsFrom] = (this.toolsFrom[t.toolsFrom] ?? 0) + 1;
    const g = this.byScaffold[t.scaffold ?? '(none)'];
    if (g) g.kept++;
  }

  add(template: string, t: Trajectory, r: Rendered, tokens?: number, dropped: Record<string, number | undefined> = {}): void {
    for (const [reason, n] of Object.entries(dropped)) {
      const d = (this.droppedBy[template] ??= {});
      d[reason] = (d[reason] ?? 0) + (n ?? 0);
    }
    const g = (this.byTemplate[template] ??= { documents: 0, turns: 0, tool_calls: 0, chars: 0, masked_chars: 0 });
    g.documents++;
    g.turns += r.turns;
    g.tool_calls += t.messages.reduce((n, m) => n + (m.calls?.length ?? 0), 0);
    g.chars += r.text.length;
    g.masked_chars += r.loss_mask_spans.reduce((n, [a, b]) => n + b - a, 0);
    if (tokens !== undefined) g.tokens = (g.tokens ?? 0) + tokens;
  }

  rejected(template: string, reason: string, message: string): void {
    if (this.examples.length < 5) this.examples.push(message);
    const g = (this.rejectedBy[template] ??= {});
    g[reason] = (g[reason] ?? 0) + 1;
  }

  get json(): Record<string, unknown> {
    const by = Object.fromEntries(
      Object.keys(this.byTemplate)
        .sort()
        .map((k) => {
          const g = this.byTemplate[k]!;
          return [k, { ...g, masked_share: g.chars ? g.masked_chars / g.chars : 0 }];
        }),
    );
    const chars = Object.values(this.byTemplate).reduce((n, g) => n + g.chars, 0);
    const masked = Object.values(this.byTemplate).reduce((n, g) => n + g.masked_chars, 0);
    return {
      trajectories: this.trajectories,
      by_format: this.byFormat,
      tools_from: this.toolsFrom,
      by_template: by,
      masked_share: chars ? masked / chars : 0,
      rejected: this.rejectedBy,
      dropped_content: this.droppedBy,
      rejected_examples: this.examples,
      by_scaffold: this.byScaffold,
      skipped_files: this.skippedFiles,
      template_date: this.settings.templateDate.toISOString().slice(0, 10),
      null_content_printed: this.nullPrinted,
      turns: this.settings.turns,
      ...(this.settings.turns === 'whole' ? {} : { turn_cost: this.turnCost() }),
    };
  }

  /** By template: faithful against whole, the cost as a ratio of characters (and of tokens, with a counter). */
  private turnCost(): Record<string, unknown> {
    return Object.fromEntries(
      Object.keys(this.turnsBy)
        .sort()
        .map((k) => {
          const g = this.turnsBy[k]!;
          const ratio = (a: number, b: number) => (b ? Math.round((a / b) * 1000) / 1000 : 0);
          return [k, { ...g, cost_chars: ratio(g.chars, g.whole_chars), ...(g.tokens !== undefined ? { cost_tokens: ratio(g.tokens, g.whole_tokens!) } : {}) }];
        }),
    );
  }
}
