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

  // The piece starts of an ASCII text under kQwen, 64 bytes a step (asciiBlock), apply: the
  // table's ASCII classes are the ones the block's masks assume (as for nextAscii).
  bool asciiBlocks() const { return asciiQwen_ && maxDigits_ < 64; }

  // What a block's starts depend on in the blocks before it: their classes at its last
  // positions, and contraction ends that fall past it. Zero before a text's first block.
  struct AsciiCarry {
    // blank: ' '; quiet: white space but a line break.
    uint64_t letter = 0, digit = 0, newline = 0, other = 0, blank = 0, quiet = 0;
    uint64_t otherStarts = 0, otherTail = 0, digitStarts = 0, contractionEnds = 0;
    uint64_t nextContractionEnds = 0;
  };
  // The starts of next()'s pieces among the ASCII text's bytes [at, at + 64) (at a multiple of
  // 64, blocks in order from 0; 16 readable bytes after s[n)): bit k is s[at + k]. The pieces
  // are next()'s, cut from bit masks of the block's classes with the pattern's rules as bit
  // operations, without a branch per piece (see splitters.cpp).
  uint64_t asciiBlock(const uint8_t* s, size_t n, size_t at, AsciiCarry& carry) const;
  // Whether asciiBlock reads with AVX2; false makes it take SSE2 (for tests: the same starts on
  // both). Returns the width in use before.
  bool useAsciiAvx2(bool on) {
    const bool before = asciiAvx2_;
    asciiAvx2_ = on && avx2Supported();
    return before;
  }
  static bool avx2Supported();

  // No bounds check: the table covers every code point (the constructor pads it to 0x110000).
  uint8_t classOf(uint32_t cp) const { return classes_[cp]; }

 private:
  template <typename C> size_t qwen(const C* s, size_t n, size_t i) const;
  size_t qwenAscii(const uint8_t* s, size_t n, size_t i) const;
  size_t asciiSpaces(const uint8_t* s, size_t n, size_t i) const;
  uint64_t asciiContractionEnds(const uint8_t* s, size_t n, size_t at, uint64_t apostrophes, AsciiCarry& carry) const;
  uint64_t asciiDigitStarts(uint64_t digit, uint64_t qDigit, const AsciiCarry& carry) const;
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
  // asciiBlock reads its blocks with AVX2 (where the CPU has it: checked once), else SSE2.
  bool asciiAvx2_ = false;
  // Per byte, what qwenAscii dispatches on (AsciiKind in splitters.cpp).
  uint8_t asciiKind_[256] = {};
};

// The piece ends of an ASCII text, in order, from its blocks' start masks (Splitter::asciiBlock):
// one count of trailing zeros a piece. (The tests read the blocks through it; the tokenizer
// reads the masks itself, a block of pieces at a time: BpeTokenizer::encodeAsciiBlocks.)
class AsciiPieceEnds {
 public:
  AsciiPieceEnds(const Splitter& splitter, const uint8_t* s, size_t n) : splitter_(splitter), s_(s), n_(n) {
    if (n_ > 0) starts_ = splitter_.asciiBlock(s_, n_, 0, carry_) & ~uint64_t{1};
  }
  // The end of the piece that starts where the last one ended (at 0 first); n after the last.
  size_t next() {
    while (!starts_) {
      if (at_ + 64 >= n_) return n_;
      at_ += 64;
      starts_ = splitter_.asciiBlock(s_, n_, at_, carry_);
    }
    const size_t end = at_ + static_cast<size_t>(__builtin_ctzll(starts_));
    starts_ &= starts_ - 1;
    return end;
  }

 private:
  const Splitter& splitter_;
  const uint8_t* s_;
  size_t n_, at_ = 0;
  uint64_t starts_ = 0;
  Splitter::AsciiCarry carry_;
};

}  // namespace midpack
