import type { PackedBin } from '../write/bin.js';
import type { ChunkStore } from './chunk-store.js';
import type { PlannedUnit } from './plan-store.js';

/**
 * Builds a planned bin's exactly-L token and mask arrays from the work store (positioned reads).
 * Two pairs of arrays are reused in turn: both writers copy a bin before writeBin resolves, so
 * a bin is assembled while the one before it is still being written; a fresh 1.3 MB pair per
 * bin made the main thread collect garbage through the write phase.
 */
export class BinAssembler {
  private readonly pairs: { inputIds: Int32Array; lossMask: Uint8Array }[];
  private turn = 0;

  constructor(
    private readonly store: ChunkStore,
    private readonly seqLen: number,
    private readonly padId: number,
  ) {
    this.pairs = [0, 1].map(() => ({ inputIds: new Int32Array(seqLen), lossMask: new Uint8Array(seqLen) }));
  }

  /** `b` names the bin in errors. Tokens used: the sum of docLens. The arrays are valid until the call after next. */
  assemble(units: readonly PlannedUnit[], b: number): PackedBin {
    const { inputIds, lossMask } = this.pairs[this.turn]!;
    this.turn ^= 1;
    const n = units.length;
    const docLens = new Int32Array(n);
    const docOffsets = new Int32Array(n);
    const docIds: string[] = [];
    const docKinds: string[] = [];
    const docSources: string[] = [];
    let at = 0;
    units.forEach((u, i) => {
      const len = u.header + u.end - u.start;
      if (at + len > this.seqLen) throw new Error(`planner bug: bin ${b} overflows ${this.seqLen} tokens`);
      this.store.read(u.doc, 0, u.header, inputIds, lossMask, at);
      this.store.read(u.doc, u.start, u.end, inputIds, lossMask, at + u.header);
      const d = this.store.doc(u.doc);
      docLens[i] = len;
      docOffsets[i] = u.start;
      docIds.push(d.id);
      docKinds.push(d.kind);
      docSources.push(d.mix ?? '');
      at += len;
    });
    // The units' reads covered [0, at): only the padding is filled.
    inputIds.fill(this.padId, at);
    lossMask.fill(0, at);
    return { inputIds, lossMask, docLens, docIds, docKinds, docOffsets, docSources };
  }
}
