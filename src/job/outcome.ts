import type { LedgerJson } from '../core/ledger.js';

/**
 * When a finished job still failed its user: nothing packed (a Slurm job must see a non-zero
 * exit, not "0 packed (balanced)"), or more of the records dropped than the user allows. The
 * outputs stay written; the error says why, naming the drop reasons and an example of each.
 */
export interface OutcomeOptions {
  /** Accept an output with no documents. */
  allowEmpty: boolean;
  /** Largest share of records a ledger may drop, in [0, 1]; 1 = no limit. */
  maxDropRate: number;
}

export const OUTCOME_DEFAULTS: OutcomeOptions = { allowEmpty: false, maxDropRate: 1 };

/** Throws when the packed ledger is empty or any ledger drops too much; `ledgers` maps a name to its ledger. */
export function checkOutcome(packed: LedgerJson, ledgers: Record<string, LedgerJson>, o: OutcomeOptions, worldSize = 1): void {
  // One rank of many may own no record at all (the job as a whole is not empty): not a failure.
  const emptyRank = worldSize > 1 && packed.records_in === 0;
  if (packed.records_out === 0 && !o.allowEmpty && !emptyRank) {
    const why =
      packed.records_in === 0
        ? 'the inputs hold no records (no document files? pack reads .jsonl, .jsonl.gz, .jsonl.zst, .parquet and .arrow)'
        : `all ${packed.records_in} records were dropped (${reasons(packed)})${packed.dropped.missing_text ? '; if the text is in another field, name it with --text-field' : ''}`;
    throw new Error(`no documents were packed: ${why}; pass --allow-empty to accept an empty output`);
  }
  for (const [name, l] of Object.entries(ledgers)) {
    const dropped = Object.values(l.dropped).reduce((s, n) => s + n, 0);
    if (l.records_in > 0 && dropped / l.records_in > o.maxDropRate) {
      const pct = ((100 * dropped) / l.records_in).toFixed(2);
      throw new Error(`${name}: ${dropped} of ${l.records_in} records (${pct}%) were dropped, more than --max-drop-rate ${o.maxDropRate} (${reasons(l)})`);
    }
  }
}

function reasons(l: LedgerJson): string {
  return Object.entries(l.dropped)
    .map(([k, n]) => `${k} ${n}${l.examples[k]?.[0] ? `, e.g. ${l.examples[k]![0]}` : ''}`)
    .join('; ');
}
