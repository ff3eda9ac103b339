// Pre-tokenizer splitters written by hand for the Split patterns of the shipped byte-level BPE
// tokenizers (no regex engine on the hot path), each giving the pieces the Rust reference's
// regex engine (Oniguruma) gives:
//
// - kQwen (Qwen2/2.5/3 with K = 1, Llama-3 with K = 3), one Isolated Split:
//     (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,K}| ?[^\s\p{L}\p{N}]+[\r\n]*
//     |\s*[\r\n]+|\s+(?!\S)|\s+
// - kDeepSeekV3, three Isolated Splits in sequence, each run on every piece of the one before:
//     \p{N}{1,3}
//     [一-龥぀-ゟ゠-ヿ]+
//     [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
//     | ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// - kO200k (GPT-4o), one Split that keeps the matches and removes what lies between them:
//     [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|...|'d)?
//     |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|...|'d)?
//     |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// An alternation takes its first alternative that matches (not the longest); a piece of a later
// Split is a string of its own, so a lookahead never sees past it. Under (?i) the reference
// folds U+017F (long s) to s: "'ſ" is a contraction.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace midpack {

// Per code point, as the reference's regex engine has the classes (the generated table).
enum CharClass : uint8_t {
  kLetter = 1,      // \p{L}
  kNumber = 2,      // \p{N}
  kSpace = 4,       // \s
  kMark = 8,        // \p{M}
  kPunct = 16,      // \p{P}
  kSymbol = 32,     // \p{S}
  kUpperLike = 64,  // \p{Lu} \p{Lt} \p{Lm} \p{Lo}
  kLowerLike = 128, // \p{Ll} \p{Lm} \p{Lo}
};

enum class SplitPattern : int { kQwen = 0, kDeepSeekV3 = 1, kO200k = 2 };

class Splitter {
 public:
  Splitter(SplitPattern pattern, int maxDigits, std::vector<uint8_t> classes);

  // The piece of s[0, n) that starts at code point i: returns its end. `keep` is false for text
  // the pattern removes (o200k's gaps). `segmentEnd` carries the end of the current piece of the
  // earlier Splits between calls: 0 before the first call of a text.
  //
  // C is the width of the text's code points: uint8_t for an ASCII text (each byte a code point),
  // char16_t for a text without surrogates (each unit a code point), char32_t otherwise. The
  // pieces are the same whatever the width (instantiated for these three in splitters.cpp).
  template <typename C>
  size_t next(const C* s, size_t n, size_t i, size_t& segmentEnd, bool& keep) const;

  // next() for an ASCII text (16 readable bytes after it), with its commonest piece cut inline
  // in the caller's loop: under kQwen, a run of letters with at most one character before it
  // (" word", "(x", "word"). Any other piece is next()'s; the pieces are the same.
  inline size_t nextAscii(const uint8_t* s, size_t n, size_t i, size_t& segmentEnd, bool& keep) const;

  // No bounds check: the table covers every code point (the constructor pads it to 0x110000).
  uint8_t classOf(uint32_t cp) const { return classes_[cp]; }

 private:
  template <typename C> size_t qwen(const C* s, size_t n, size_t i) const;
  template <typename C> size_t deepSeekSegment(const C* s, size_t n, size_t i) const;
  template <typename C> size_t deepSeekPiece(const C* s, size_t n, size_t i) const;
  template <typename C> size_t o200k(const C* s, size_t n, size_t i) const;
  template <typename C> size_t o200kLetters(const C* s, size_t n, size_t p, bool upperFirst) const;
  template <typename C> size_t whitespace(const C* s, size_t n, size_t i) const;
  // The end of the run of `bits` (kLetter, or kSpace) that starts at j; ASCII text 16 bytes a step.
  template <typename C> size_t run(const C* s, size_t n, size_t j, uint8_t bits) const;

  SplitPattern pattern_;
  int maxDigits_;
  std::vector<uint8_t> classes_;
  // The table's ASCII letters are [A-Za-z] and its ASCII spaces [\t-\r ], as the vector runs
  // assume (checked once; a table that differs takes the scalar runs).
  bool asciiVectorRuns_ = false;
  // The table's first 256 entries, beside the splitter's other fields (no pointer to follow).
  uint8_t byteClasses_[256] = {};
};

#ifdef __SSE2__
// Per byte of 16 ASCII bytes at p: 1 bits where the byte is [A-Za-z] (bits kLetter) or
// [\t-\r ] (kSpace). Every byte is under 0x80, so the signed compares below do not wrap.
inline unsigned asciiMask(const uint8_t* p, uint8_t bits) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m128i hit;
  if (bits == kLetter) {
    const __m128i x = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
    hit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(-1)), _mm_cmplt_epi8(x, _mm_set1_epi8(26)));
  } else {
    const __m128i x = _mm_sub_epi8(v, _mm_set1_epi8(0x09));
    const __m128i control = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(-1)), _mm_cmplt_epi8(x, _mm_set1_epi8(5)));
    hit = _mm_or_si128(control, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x20)));
  }
  return static_cast<unsigned>(_mm_movemask_epi8(hit));
}
#endif

size_t Splitter::nextAscii(const uint8_t* s, size_t n, size_t i, size_t& segmentEnd, bool& keep) const {
#ifdef __SSE2__
  // qwen()'s second alternative, [^\r\n\p{L}\p{N}]?\p{L}+, when no contraction can start at i.
  const uint8_t c = s[i];
  if (pattern_ == SplitPattern::kQwen && asciiVectorRuns_ && c != '\'') {
    size_t j = i;
    if (!(byteClasses_[c] & (kLetter | kNumber)) && c != '\r' && c != '\n' && i + 1 < n) j = i + 1;
    if (byteClasses_[s[j]] & kLetter) {
      keep = true;
      // The letters' end, 16 bytes a step; bytes read past n (the padding) are cut off.
      for (;; j += 16) {
        const unsigned miss = ~asciiMask(s + j, kLetter) & 0xFFFF;
        if (miss) return std::min(n, j + static_cast<size_t>(__builtin_ctz(miss)));
        if (j + 16 >= n) return n;
      }
    }
  }
#endif
  return next(s, n, i, segmentEnd, keep);
}

}  // namespace midpack
