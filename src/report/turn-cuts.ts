import { StreamingPacker, type ClosedBins } from '../pack/packer.js';

/**
 * Where `pack --overlong boundary` cuts the trajectories: a chunk after the first starts either at
 * a turn (between turns) or, when one turn alone is longer than the room, inside that turn. The
 * cuts are the native packer's own: the trajectory is packed alone and its units' starts read.
 */
export class TurnCuts {
  trajectories_cut = 0;
  between_turns = 0;
  inside_turn = 0;

  constructor(private readonly capacity: number) {}

  /** A trajectory of `len` tokens with its boundary token offsets (the header is tokens before the first). */
  add(len: number, boundaries: readonly number[]): void {
    if (len <= this.capacity || boundaries.length === 0) return;
    this.trajectories_cut++;
    const starts = new Set(boundaries);
    for (const start of unitStarts(this.capacity, len, boundaries)) {
      if (start === 0) continue;
      if (starts.has(start)) this.between_turns++;
      else this.inside_turn++;
    }
  }

  toJSON(): { trajectories_cut: number; between_turns: number; inside_turn: number } {
    return { trajectories_cut: this.trajectories_cut, between_turns: this.between_turns, inside_turn: this.inside_turn };
  }
}

/** Where the native packer's boundary policy starts the units of one document. */
function unitStarts(capacity: number, len: number, boundaries: readonly number[]): number[] {
  const packer = new StreamingPacker({ capacity, overlong: 'boundary', slideStride: capacity });
  const batch = { lengths: Uint32Array.of(len), boundaryCounts: Uint32Array.of(boundaries.length), boundaryOffsets: Uint32Array.from(boundaries), headerLens: Uint32Array.of(boundaries[0]!) };
  const starts = (c: ClosedBins) => Array.from(c.unitStart);
  return [...starts(packer.push(batch)), ...starts(packer.finish())];
}
