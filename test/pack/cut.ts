import type { ResolvedPackerOptions } from '../../src/pack/packer.js';

/** Receives one packing unit: the token range [start, end) of the doc, after `header` repeated tokens. */
export type UnitSink = (start: number, end: number, header: number) => void;

export interface CutResult {
  droppedTokens: number;
  duplicatedTokens: number;
  dropped: boolean;
}

const KEPT: CutResult = { droppedTokens: 0, duplicatedTokens: 0, dropped: false };

/**
 * Cuts one document into packing units by the overlong policy (the TypeScript twin of
 * Packer::cutDocument in native/src/packer.cpp; the property tests hold them equal).
 * A document of at most L tokens is one unit whatever the policy.
 */
export function cutDocument(
  len: number,
  o: Pick<ResolvedPackerOptions, 'capacity' | 'overlong' | 'slideStride'>,
  emit: UnitSink,
  boundaries?: ArrayLike<number>,
  boundaryFrom = 0,
  boundaryCount = 0,
  headerLen = 0,
): CutResult {
  const L = o.capacity;
  if (len <= L) {
    emit(0, len, 0);
    return KEPT;
  }
  const policy = o.overlong === 'boundary' && boundaryCount === 0 ? 'split' : o.overlong;
  switch (policy) {
    case 'drop':
      return { droppedTokens: len, duplicatedTokens: 0, dropped: true };
    case 'truncate':
      emit(0, L, 0);
      return { droppedTokens: len - L, duplicatedTokens: 0, dropped: false };
    case 'split':
      for (let s = 0; s < len; s += L) emit(s, Math.min(len, s + L), 0);
      return KEPT;
    case 'slide': {
      let s = 0;
      let units = 1;
      for (; s + L < len; s += o.slideStride, units++) emit(s, s + L, 0);
      emit(len - L, len, 0); // the last window extended back to a full L
      return { droppedTokens: 0, duplicatedTokens: units * L - len, dropped: false };
    }
    case 'boundary': {
      // Greedy: each chunk ends at the last boundary that keeps it within room (a chunk must hold
      // more than the header); with no usable boundary it is cut at room. A header of L or more
      // tokens cannot be repeated and is not.
      const header = headerLen < L ? headerLen : 0;
      let duplicated = 0;
      let s = 0;
      let b = boundaryFrom;
      const bEnd = boundaryFrom + boundaryCount;
      for (;;) {
        const room = s === 0 ? L : L - header;
        const h = s === 0 ? 0 : header;
        duplicated += h;
        if (len - s <= room) {
          emit(s, len, h);
          return { droppedTokens: 0, duplicatedTokens: duplicated, dropped: false };
        }
        const limit = s + room;
        let cut = 0;
        for (; b < bEnd && boundaries![b]! <= limit; b++) {
          const at = boundaries![b]!;
          if (at > s && at > header) cut = at;
        }
        if (cut === 0) cut = limit;
        emit(s, cut, h);
        s = cut;
      }
    }
  }
}
