import type { ClosedBins } from './packer.js';

/**
 * Counts, from the bins themselves, the units held by more than one bin (fragmented) and the
 * units no bin holds (lost), by unit id (the unit's ordinal in cut order). Memory: 2 bits per unit.
 */
export class UnitTally {
  private readonly seen: Uint8Array;
  private readonly repeated: Uint8Array;
  private distinct = 0;
  /** Units held by more than one bin. */
  fragmented = 0;

  constructor(readonly units: number) {
    this.seen = new Uint8Array(Math.ceil(units / 8));
    this.repeated = new Uint8Array(Math.ceil(units / 8));
  }

  /** Every bin of `c`: a unit seen in an earlier bin (or twice in one) is fragmented. */
  add(c: ClosedBins): void {
    for (let i = 0; i < c.unitId.length; i++) this.addUnit(c.unitId[i]!);
  }

  addUnit(id: number): void {
    if (id >= this.units) throw new RangeError(`unit id ${id} out of range: the plan has ${this.units} units`);
    const byte = id >>> 3;
    const bit = 1 << (id & 7);
    if (!(this.seen[byte]! & bit)) {
      this.seen[byte] = this.seen[byte]! | bit;
      this.distinct++;
    } else if (!(this.repeated[byte]! & bit)) {
      this.repeated[byte] = this.repeated[byte]! | bit;
      this.fragmented++;
    }
  }

  /** Units that no bin holds. */
  get missing(): number {
    return this.units - this.distinct;
  }
}
