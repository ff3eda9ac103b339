/**
 * Accounting for "nothing lost silently": every input record is either emitted or
 * counted under a named reason. Stages share one Ledger per run; the manifest prints it.
 *
 *   records_in == records_out + sum(dropped[reason])
 *
 * Stages that fan out (one repository into one document, one file into several samples)
 * also count what they made under `produced`, which does not enter the balance.
 */
export interface LedgerJson {
  records_in: number;
  records_out: number;
  dropped: Record<string, number>;
  produced: Record<string, number>;
  examples: Record<string, string[]>;
}

const EXAMPLES_PER_REASON = 5;

export class Ledger {
  recordsIn = 0;
  recordsOut = 0;
  readonly dropped = new Map<string, number>();
  readonly produced = new Map<string, number>();
  /** A few messages per reason (file and record named), for the manifest and the summary. */
  readonly examples = new Map<string, string[]>();
  /** Called once per dropped record with its message; the CLI prints these to stderr. */
  onDrop: ((reason: string, message: string) => void) | undefined;

  /**
   * Prints drops on stderr as `midpack: PREFIX: message`, the first `perReason` of each reason,
   * then once that further ones are only counted, so a large run does not flood the terminal.
   */
  printDrops(prefix: string, perReason = 5): this {
    const seen = new Map<string, number>();
    this.onDrop = (reason, message) => {
      const n = (seen.get(reason) ?? 0) + 1;
      seen.set(reason, n);
      if (n <= perReason) process.stderr.write(`midpack: ${prefix}: ${message}\n`);
      else if (n === perReason + 1) process.stderr.write(`midpack: ${prefix}: more "${reason}" records are counted in the manifest, not printed\n`);
    };
    return this;
  }

  input(n = 1): void {
    this.recordsIn += n;
  }

  output(n = 1): void {
    this.recordsOut += n;
  }

  drop(reason: string, message: string, n = 1): void {
    this.dropped.set(reason, (this.dropped.get(reason) ?? 0) + n);
    const ex = this.examples.get(reason) ?? [];
    if (ex.length < EXAMPLES_PER_REASON) ex.push(message);
    this.examples.set(reason, ex);
    this.onDrop?.(reason, message);
  }

  produce(what: string, n = 1): void {
    this.produced.set(what, (this.produced.get(what) ?? 0) + n);
  }

  get droppedTotal(): number {
    let s = 0;
    for (const v of this.dropped.values()) s += v;
    return s;
  }

  balanced(): boolean {
    return this.recordsIn === this.recordsOut + this.droppedTotal;
  }

  merge(other: LedgerJson): void {
    this.recordsIn += other.records_in;
    this.recordsOut += other.records_out;
    for (const [k, v] of Object.entries(other.dropped)) this.dropped.set(k, (this.dropped.get(k) ?? 0) + v);
    for (const [k, v] of Object.entries(other.produced)) this.produced.set(k, (this.produced.get(k) ?? 0) + v);
    for (const [k, v] of Object.entries(other.examples)) {
      const ex = this.examples.get(k) ?? [];
      for (const m of v) if (ex.length < EXAMPLES_PER_REASON) ex.push(m);
      this.examples.set(k, ex);
    }
  }

  toJSON(): LedgerJson {
    const sorted = (m: Map<string, number>) => Object.fromEntries([...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
    return {
      records_in: this.recordsIn,
      records_out: this.recordsOut,
      dropped: sorted(this.dropped),
      produced: sorted(this.produced),
      examples: Object.fromEntries([...this.examples.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
    };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A ledger's JSON form (Ledger.toJSON), as it sits among a stage's figures. */
export function isLedgerJson(v: unknown): v is LedgerJson {
  return isObject(v) && Number.isInteger(v.records_in) && Number.isInteger(v.records_out) && isObject(v.dropped) && isObject(v.produced) && isObject(v.examples);
}
