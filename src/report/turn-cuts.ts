import { cutDocument } from '../pack/cut.js';

/**
 * Where `pack --overlong boundary` cuts the trajectories: a chunk after the first starts either at
 * a turn (between turns) or, when one turn alone is longer than the room, inside that turn. The
 * cuts are those of the packer's TypeScript twin (pack/cut.ts), which its property tests hold
 * equal to the native packer's.
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
    const opts = { capacity: this.capacity, overlong: 'boundary' as const, slideStride: this.capacity };
    cutDocument(len, opts, (start) => {
      if (start === 0) return;
      if (starts.has(start)) this.between_turns++;
      else this.inside_turn++;
    }, boundaries, 0, boundaries.length, boundaries[0]!);
  }

  toJSON(): { trajectories_cut: number; between_turns: number; inside_turn: number } {
    return { trajectories_cut: this.trajectories_cut, between_turns: this.between_turns, inside_turn: this.inside_turn };
  }
}
