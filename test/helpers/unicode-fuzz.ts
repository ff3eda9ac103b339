import { Rng } from '../../src/core/random.js';
import { NFC_UNKNOWN_TO_REFERENCE } from '../../src/tokenize/nfc-reference-table.js';

/**
 * Seeded text that stresses a tokenizer where implementations part ways: runs of combining
 * marks in every order (canonical reordering), characters newer than the reference's Unicode
 * tables, Hangul jamo, U+0085, U+FEFF, `'ſ` (case folding of contractions), digits of many
 * scripts, whitespace runs of every kind, lone surrogates, and code points from every plane.
 */
const MARKS = [0x300, 0x301, 0x307, 0x308, 0x316, 0x327, 0x334, 0x345, 0x35c, 0x35d, 0x5b0, 0x93c, 0x94d, 0xe38, 0xf71, 0xf72, 0xf74, 0xf80, 0x1dce, 0x302a, 0x20d0, 0x1e94a];
const DIGIT_ZEROS = [0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66, 0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x17e0, 0x1810, 0x1946, 0x19d0, 0xff10, 0x104a0, 0x11066, 0x1d7ce, 0x1e950];
const SPACES = [0x20, 0x9, 0xa, 0xb, 0xc, 0xd, 0x85, 0xa0, 0x1680, 0x2000, 0x2007, 0x200b, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff, 0x180e];
const PIECES = ["'s", "'S", "'ſ", "'t", "'RE", "'ve", "'m", "'LL", "'d", "ſ", 'K', 'ǅ', 'İ', 'ﬁ', 'Ω', '\u0130', '\u212a'];
const WORDS = ['function', 'return', ' the', 'const x = 1;', '\tif (a) {', '  }\n', 'naïve', 'Straße', 'Ελληνικά', 'русский', '中文字符', 'ひらがな', 'カタカナ', '한국어', 'العربية', 'עברית', 'हिन्दी', 'ไทย', '😀👍🏽', '👨‍👩‍👧'];

function codePoint(rng: Rng): string {
  for (;;) {
    const plane = rng.int(0, 17);
    const c = plane === 0 ? rng.int(0x80, 0x10000) : plane <= 3 ? rng.int(plane << 16, (plane + 1) << 16) : plane >= 14 ? rng.int(plane << 16, (plane + 1) << 16) : rng.int(0x10000, 0x20000);
    if (c < 0xd800 || c >= 0xe000) return String.fromCodePoint(c);
  }
}

const unknown = (rng: Rng) => {
  const [a, b] = NFC_UNKNOWN_TO_REFERENCE[rng.int(0, NFC_UNKNOWN_TO_REFERENCE.length)] ?? [0x41, 0x41];
  return String.fromCodePoint(rng.int(a, b + 1));
};

/** One fragment of fuzz text. */
function fragment(rng: Rng): string {
  const pick = <T>(xs: readonly T[]) => xs[rng.int(0, xs.length)]!;
  switch (rng.int(0, 12)) {
    case 0: {
      let s = pick(['a', 'e', 'E', 'o', 'A', 'ᄀ', 'ᄀ\u1161', '\u0915', 'x']);
      for (let n = rng.int(1, 6); n > 0; n--) s += String.fromCodePoint(rng.next() < 0.2 ? unknown(rng).codePointAt(0)! : pick(MARKS));
      return s;
    }
    case 1:
      return unknown(rng) + String.fromCodePoint(pick(MARKS));
    case 2: {
      const z = pick(DIGIT_ZEROS);
      let s = '';
      for (let n = rng.int(1, 9); n > 0; n--) s += String.fromCodePoint(z + rng.int(0, 10));
      return s;
    }
    case 3: {
      let s = '';
      for (let n = rng.int(1, 40); n > 0; n--) s += String.fromCodePoint(pick(SPACES));
      return s;
    }
    case 4:
      return pick(PIECES);
    case 5:
      return pick(['\ud800', '\udc00', '\udbff', 'a\udfff', '\ud83d']);
    case 6:
    case 7:
      return codePoint(rng);
    default:
      return pick(WORDS) + pick([' ', '', '\n', '.', '_', '/', '-', '  ']);
  }
}

/** About `chars` UTF-16 units of fuzz text, the same for the same seed. */
export function unicodeFuzz(seed: string | number, chars: number): string {
  const rng = new Rng('unicode-fuzz', seed);
  const parts: string[] = [];
  let n = 0;
  while (n < chars) {
    const f = fragment(rng);
    parts.push(f);
    n += f.length;
  }
  return parts.join('');
}
