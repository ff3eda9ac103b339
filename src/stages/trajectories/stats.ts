import type { Rendered } from './chatml.js';
import type { Trajectory } from './model.js';

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
    };
  }
}
