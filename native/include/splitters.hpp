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

#include <cstddef>
#include <cstdint>
#include <vector>

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

  // next() for an ASCII text (16 readable bytes after it): under kQwen, one dispatch on the kinds
  // of its first two bytes and runs found 16 bytes a step (qwenAscii), with next()'s pieces.
  size_t nextAscii(const uint8_t* s, size_t n, size_t i, size_t& segmentEnd, bool& keep) const {
    if (!asciiQwen_) return next(s, n, i, segmentEnd, keep);
    keep = true;
    return qwenAscii(s, n, i);
  }

  // No bounds check: the table covers every code point (the constructor pads it to 0x110000).
  uint8_t classOf(uint32_t cp) const { return classes_[cp]; }

 private:
  template <typename C> size_t qwen(const C* s, size_t n, size_t i) const;
  size_t qwenAscii(const uint8_t* s, size_t n, size_t i) const;
  size_t asciiSpaces(const uint8_t* s, size_t n, size_t i) const;
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
  // qwenAscii applies: kQwen, the vector runs, and the table's ASCII numbers are [0-9].
  bool asciiQwen_ = false;
  // Per byte, what qwenAscii dispatches on (AsciiKind in splitters.cpp).
  uint8_t asciiKind_[256] = {};
};

}  // namespace midpack
