#include "splitters.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace midpack {

namespace {

inline bool isNewline(uint32_t c) { return c == '\r' || c == '\n'; }

inline uint32_t lower(uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at i: its length in code points, or 0. The reference's case
// folding also takes U+017F (long s) for s; no other code point folds to these letters.
template <typename C>
size_t contraction(const C* s, size_t n, size_t i) {
  if (i + 1 >= n || s[i] != '\'') return 0;
  uint32_t a = lower(s[i + 1]);
  if (a == 's' || a == 0x17F || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= n) return 0;
  uint32_t b = lower(s[i + 2]);
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// DeepSeek-V3's [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]: every ASCII punctuation mark and symbol.
inline bool asciiPunct(uint32_t c) { return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E); }
inline bool asciiLetter(uint32_t c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
// DeepSeek-V3's [一-龥぀-ゟ゠-ヿ]: U+4E00..U+9FA5, U+3040..U+309F, U+30A0..U+30FF.
inline bool cjk(uint32_t c) { return (c >= 0x4E00 && c <= 0x9FA5) || (c >= 0x3040 && c <= 0x30FF); }

inline bool asciiSpace(uint32_t c) { return (c >= 0x09 && c <= 0x0D) || c == 0x20; }

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

// Per byte of 16 ASCII bytes at p: 1 bits where it is [0-9].
inline unsigned asciiDigitMask(const uint8_t* p) {
  const __m128i x = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), _mm_set1_epi8('0'));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(-1)), _mm_cmplt_epi8(x, _mm_set1_epi8(10)))));
}

// Per byte of 16 ASCII bytes at p: 1 bits where it is \r or \n.
inline unsigned asciiNewlineMask(const uint8_t* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')))));
}
#endif

// The 1 bits of the positions of a 16-byte block at `at` that lie before n.
inline unsigned before(size_t at, size_t n) { return n - at >= 16 ? 0xFFFFu : (1u << (n - at)) - 1; }

// What qwenAscii dispatches on, per byte: the pattern's classes, with the space and the
// apostrophe apart (a space may lead a run of others; an apostrophe may start a contraction).
enum AsciiKind : uint8_t { kAsciiLetter, kAsciiNumber, kAsciiSpace, kAsciiBlank, kAsciiNewline, kAsciiOther, kAsciiApostrophe, kAsciiEnd };

}  // namespace

Splitter::Splitter(SplitPattern pattern, int maxDigits, std::vector<uint8_t> classes) : pattern_(pattern), maxDigits_(maxDigits), classes_(std::move(classes)) {
  if (maxDigits_ < 1) throw std::invalid_argument("Splitter: maxDigits must be at least 1");
  if (static_cast<int>(pattern_) < 0 || static_cast<int>(pattern_) > 2) throw std::invalid_argument("Splitter: unknown pattern");
  if (classes_.size() < 0x110000) classes_.resize(0x110000, 0);
  asciiVectorRuns_ = true;
  bool asciiDigits = true;
  for (uint32_t c = 0; c < 0x80; c++) {
    if (((classes_[c] & kLetter) != 0) != asciiLetter(c) || ((classes_[c] & kSpace) != 0) != asciiSpace(c)) asciiVectorRuns_ = false;
    if (((classes_[c] & kNumber) != 0) != (c >= '0' && c <= '9')) asciiDigits = false;
  }
#ifdef __SSE2__
  asciiQwen_ = pattern_ == SplitPattern::kQwen && asciiVectorRuns_ && asciiDigits;
#endif
  asciiAvx2_ = avx2Supported();
  for (uint32_t c = 0; c < 0x80; c++) {
    const uint8_t k = classes_[c];
    asciiKind_[c] = (k & kLetter) ? kAsciiLetter : (k & kNumber) ? kAsciiNumber : c == ' ' ? kAsciiSpace : isNewline(c) ? kAsciiNewline : (k & kSpace) ? kAsciiBlank : c == '\'' ? kAsciiApostrophe : kAsciiOther;
  }
}

#ifdef __SSE2__
// qwen() for an ASCII text: the alternative is chosen by the kinds of the piece's first two
// bytes (one dispatch, where qwen() tests the alternatives in turn), and each run ends where a
// 16-byte mask of its class first has a 0 bit (one step for most runs, where qwen() tests each
// character). The pieces are qwen()'s: the case comments say which alternative matches.
size_t Splitter::qwenAscii(const uint8_t* s, size_t n, size_t i) const {
  // The end of the run from j of the bytes a mask marks (none past n).
  auto runOf = [n](const uint8_t* t, size_t j, auto mask) {
    for (;; j += 16) {
      const unsigned miss = ~mask(t + j) & before(j, n);
      if (miss) return j + static_cast<size_t>(__builtin_ctz(miss));
      if (j + 16 >= n) return n;
    }
  };
  auto letters = [](const uint8_t* p) { return asciiMask(p, kLetter); };
  auto others = [](const uint8_t* p) { return ~(asciiMask(p, kLetter) | asciiMask(p, kSpace) | asciiDigitMask(p)) & 0xFFFFu; };
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*' from j (after the space, if any).
  auto otherRun = [&](size_t j) { return runOf(s, runOf(s, j, others), asciiNewlineMask); };
  const uint8_t first = asciiKind_[s[i]];
  const uint8_t second = i + 1 < n ? asciiKind_[s[i + 1]] : static_cast<uint8_t>(kAsciiEnd);
  switch (first) {
    case kAsciiLetter:  // \p{L}+
      return runOf(s, i, letters);
    case kAsciiNumber: {  // \p{N}{1,K}
      size_t j = i + 1;
      while (j < n && j - i < static_cast<size_t>(maxDigits_) && asciiKind_[s[j]] == kAsciiNumber) j++;
      return j;
    }
    case kAsciiApostrophe:
      if (size_t k = contraction(s, n, i)) return i + k;
      [[fallthrough]];
    case kAsciiOther:  // [^\r\n\p{L}\p{N}]?\p{L}+, else ' ?[^\s\p{L}\p{N}]+[\r\n]*'
      return second == kAsciiLetter ? runOf(s, i + 1, letters) : otherRun(i);
    case kAsciiSpace:  // the same, the space leading; else the white-space alternatives
      if (second == kAsciiLetter) return runOf(s, i + 1, letters);
      if (second == kAsciiOther || second == kAsciiApostrophe) return otherRun(i + 1);
      return asciiSpaces(s, n, i);
    case kAsciiBlank:  // [^\r\n\p{L}\p{N}]?\p{L}+, else the white-space alternatives
      if (second == kAsciiLetter) return runOf(s, i + 1, letters);
      return asciiSpaces(s, n, i);
    default:  // a line break: the white-space alternatives
      return asciiSpaces(s, n, i);
  }
}

// whitespace() for an ASCII text: the run of spaces from i and its last line break, found 16
// bytes a step.
size_t Splitter::asciiSpaces(const uint8_t* s, size_t n, size_t i) const {
  size_t lastBreak = SIZE_MAX, j = i;
  for (;; j += 16) {
    const unsigned spaces = asciiMask(s + j, kSpace) & before(j, n);
    const unsigned miss = ~spaces & 0xFFFFu;
    // The block's part of the run: up to its first non-space (all 16 when there is none).
    const unsigned inRun = miss ? (1u << __builtin_ctz(miss)) - 1 : 0xFFFFu;
    if (const unsigned breaks = asciiNewlineMask(s + j) & inRun) lastBreak = j + 31 - static_cast<size_t>(__builtin_clz(breaks));
    if (miss) {
      j += static_cast<size_t>(__builtin_ctz(miss));
      break;
    }
    if (j + 16 >= n) {
      j = n;
      break;
    }
  }
  if (lastBreak != SIZE_MAX) return lastBreak + 1;
  if (j == n || j - i == 1) return j;
  return j - 1;
}
// Per class, one bit per byte of a 64-byte ASCII block (bit k for byte k).
struct BlockMasks {
  uint64_t letter = 0, digit = 0, space = 0, newline = 0, blank = 0, apostrophe = 0;
};

// The classes of the 64 bytes at p (every byte under 0x80: the signed compares do not wrap).
BlockMasks blockMasks(const uint8_t* p) {
  BlockMasks m;
  for (int k = 0; k < 4; k++) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    auto bits = [k](__m128i hit) { return static_cast<uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(hit))) << (16 * k); };
    auto within = [](__m128i x, char from, char count) {
      const __m128i d = _mm_sub_epi8(x, _mm_set1_epi8(from));
      return _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(-1)), _mm_cmplt_epi8(d, _mm_set1_epi8(count)));
    };
    const __m128i blank = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
    const __m128i newline = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
    m.letter |= bits(within(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 26));
    m.digit |= bits(within(v, '0', 10));
    m.space |= bits(_mm_or_si128(within(v, '\t', 5), blank));
    m.newline |= bits(newline);
    m.blank |= bits(blank);
    m.apostrophe |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('\'')));
  }
  return m;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define MIDPACK_AVX2_MASKS 1
// The bytes of v in [from, from + count) (every byte under 0x80: no wrap), with AVX2.
__attribute__((target("avx2"))) inline __m256i within256(__m256i v, char from, char count) {
  const __m256i d = _mm256_sub_epi8(v, _mm256_set1_epi8(from));
  return _mm256_and_si256(_mm256_cmpgt_epi8(d, _mm256_set1_epi8(-1)), _mm256_cmpgt_epi8(_mm256_set1_epi8(count), d));
}

__attribute__((target("avx2"))) inline uint64_t bits256(__m256i hit, int k) { return static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(hit))) << (32 * k); }

// blockMasks with 32-byte vectors: the same masks, two loads a block (chosen at run time).
__attribute__((target("avx2"))) BlockMasks blockMasksAvx2(const uint8_t* p) {
  BlockMasks m;
  for (int k = 0; k < 2; k++) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
    const __m256i blank = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(' '));
    const __m256i newline = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r')), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n')));
    m.letter |= bits256(within256(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), 'a', 26), k);
    m.digit |= bits256(within256(v, '0', 10), k);
    m.space |= bits256(_mm256_or_si256(within256(v, '\t', 5), blank), k);
    m.newline |= bits256(newline, k);
    m.blank |= bits256(blank, k);
    m.apostrophe |= bits256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\'')), k);
  }
  return m;
}
#endif

// x's bits one position later, the bit before the block (bit 63 of `before`) first.
inline uint64_t shifted(uint64_t x, uint64_t before, unsigned by = 1) { return (x << by) | (before >> (64 - by)); }

// The positions of `run` (one class) from which a run of it reaches a bit of `seeds` at or after
// them: seeds spread towards lower bits through the run, doubling the distance each step.
inline uint64_t reachBack(uint64_t seeds, uint64_t run) {
  for (unsigned by = 1; by < 64; by *= 2) {
    seeds |= run & (seeds >> by);
    run &= run >> by;
  }
  return seeds;
}

// Whether the white space from s[at] (at < n) holds a line break before its first other byte.
inline bool breakAhead(const uint8_t* s, size_t n, size_t at) {
  for (; at < n && asciiSpace(s[at]); at++)
    if (isNewline(s[at])) return true;
  return false;
}

#else
size_t Splitter::qwenAscii(const uint8_t* s, size_t n, size_t i) const { return qwen(s, n, i); }
size_t Splitter::asciiSpaces(const uint8_t* s, size_t n, size_t i) const { return whitespace(s, n, i); }
#endif

#ifdef __SSE2__
// The piece starts among s[at, at + 64), as next() cuts an ASCII text under kQwen. Which
// alternative a piece takes, and so where the next one starts, depends on a byte's class and the
// classes around it; for a start at byte p (q = p - 1):
//   - a letter: q is a number, a line break or a contraction's end, or q is another byte that
//     is no piece's start (not taken as the letters' leading character: an "other" run's last);
//   - a number: q is no number, or p is K digits after the start of q's group;
//   - another byte: q is neither another byte (same run) nor a space (the space leads it);
//   - a line break: q is a letter or a number (after another byte it ends its run; after white
//     space the run goes on to its last line break);
//   - a blank (white space but a line break): q is a letter, a number or another byte; or q is a
//     line break and either no line break follows in this run of white space, or q ends the
//     line breaks that end an "other" run; or q is a blank and p is the run's last byte before
//     a byte of the text that is no white space (\s+(?!\S) gave p back).
// Contractions: an apostrophe that starts a piece and matches one (contraction()) ends it.
uint64_t Splitter::asciiBlock(const uint8_t* s, size_t n, size_t at, AsciiCarry& c) const {
  const size_t left = n - at;
  uint8_t padded[64] = {};
  const uint8_t* p = s + at;
  if (left + 16 < 64) {  // the block reads past the 16 readable bytes: copy the rest of the text
    std::memcpy(padded, p, left);
    p = padded;
  }
  const uint64_t valid = left >= 64 ? ~uint64_t{0} : (uint64_t{1} << left) - 1;
#ifdef MIDPACK_AVX2_MASKS
  const BlockMasks m = asciiAvx2_ ? blockMasksAvx2(p) : blockMasks(p);
#else
  const BlockMasks m = blockMasks(p);
#endif
  const uint64_t letter = m.letter & valid, digit = m.digit & valid, space = m.space & valid;
  const uint64_t newline = m.newline & valid, blank = m.blank & valid;
  const uint64_t other = valid & ~(letter | digit | space), quiet = space & ~newline;
  const bool nextSpace = at + 64 < n && asciiSpace(s[at + 64]);
  const bool nextOther = at + 64 < n && !nextSpace;
  // White space from which a line break lies ahead within its run.
  const uint64_t breakSeeds = newline | ((space >> 63) && nextSpace && breakAhead(s, n, at + 64) ? uint64_t{1} << 63 : 0);
  const uint64_t breakAheadMask = reachBack(breakSeeds, space);
  const uint64_t beforeOther = ((valid & ~space) >> 1) | (nextOther ? uint64_t{1} << 63 : 0);
  const uint64_t qLetter = shifted(letter, c.letter), qDigit = shifted(digit, c.digit), qNewline = shifted(newline, c.newline);
  const uint64_t qOther = shifted(other, c.other), qBlank = shifted(blank, c.blank), qQuiet = shifted(quiet, c.quiet);
  const uint64_t otherStarts = other & ~(qOther | qBlank);
  // The line breaks right after an "other" run are its own: a seed at each such run of breaks'
  // first byte, carried through the run by an addition.
  const uint64_t tailSeeds = newline & (qOther | shifted(0, c.otherTail));
  const uint64_t otherTail = ((newline + tailSeeds) ^ newline) & newline;
  const uint64_t contractionEnds = asciiContractionEnds(s, n, at, otherStarts & m.apostrophe, c);
  const uint64_t digitStarts = asciiDigitStarts(digit, qDigit, c);
  uint64_t starts = (at == 0 ? 1 : 0) | otherStarts | digitStarts | (newline & (qLetter | qDigit));
  starts |= letter & (qDigit | qNewline | shifted(contractionEnds, c.contractionEnds) | (qOther & ~shifted(otherStarts, c.otherStarts)));
  starts |= quiet & (qLetter | qDigit | qOther | (qNewline & (~breakAheadMask | shifted(otherTail, c.otherTail))) | (qQuiet & beforeOther));
  c.letter = letter;
  c.digit = digit;
  c.newline = newline;
  c.other = other;
  c.blank = blank;
  c.quiet = quiet;
  c.otherStarts = otherStarts;
  c.otherTail = otherTail;
  c.digitStarts = digitStarts;
  c.contractionEnds = contractionEnds;
  return starts & valid;
}

// The last bytes of the contractions that the apostrophes at `apostrophes` (piece starts) begin,
// in this block; those that fall in the next block are kept for it in the carry.
uint64_t Splitter::asciiContractionEnds(const uint8_t* s, size_t n, size_t at, uint64_t apostrophes, AsciiCarry& c) const {
  uint64_t ends = c.nextContractionEnds;
  c.nextContractionEnds = 0;
  for (; apostrophes; apostrophes &= apostrophes - 1) {
    const size_t q = at + static_cast<size_t>(__builtin_ctzll(apostrophes));
    if (const size_t k = contraction(s, n, q)) {
      const size_t last = q + k - 1 - at;
      if (last < 64) ends |= uint64_t{1} << last;
      else c.nextContractionEnds |= uint64_t{1} << (last - 64);
    }
  }
  return ends;
}

// \p{N}{1,K}: a digit starts a piece after a non-digit, and K digits after a start in the same run.
uint64_t Splitter::asciiDigitStarts(uint64_t digit, uint64_t qDigit, const AsciiCarry& c) const {
  if (maxDigits_ == 1) return digit;
  const unsigned k = static_cast<unsigned>(maxDigits_);
  // Digits whose K bytes before them are digits too (same run).
  uint64_t inRun = digit;
  for (unsigned by = 1; by <= k; by++) inRun &= shifted(digit, c.digit, by);
  uint64_t starts = digit & ~qDigit;
  for (;;) {
    const uint64_t more = starts | (shifted(starts, c.digitStarts, k) & inRun);
    if (more == starts) return starts;
    starts = more;
  }
}
#else
uint64_t Splitter::asciiBlock(const uint8_t*, size_t, size_t, AsciiCarry&) const { return 0; }
#endif

bool Splitter::avx2Supported() {
#ifdef MIDPACK_AVX2_MASKS
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

template <typename C>
size_t Splitter::run(const C* s, size_t n, size_t j, uint8_t bits) const {
#ifdef __SSE2__
  if constexpr (std::is_same_v<C, uint8_t>) {
    if (asciiVectorRuns_ && (bits == kLetter || bits == kSpace)) {
      for (; j + 16 <= n; j += 16) {
        const unsigned miss = ~asciiMask(s + j, bits) & 0xFFFF;
        if (miss) return j + static_cast<size_t>(__builtin_ctz(miss));
      }
    }
  }
#endif
  while (j < n && (classOf(s[j]) & bits)) j++;
  return j;
}

template <typename C>
size_t Splitter::next(const C* s, size_t n, size_t i, size_t& segmentEnd, bool& keep) const {
  keep = true;
  if (pattern_ == SplitPattern::kQwen) return qwen(s, n, i);
  if (pattern_ == SplitPattern::kO200k) {
    size_t end = o200k(s, n, i);
    if (end > i) return end;
    // Removed: the text up to the next match is dropped.
    keep = false;
    size_t k = i + 1;
    while (k < n && o200k(s, n, k) == k) k++;
    return k;
  }
  if (i >= segmentEnd) segmentEnd = deepSeekSegment(s, n, i);
  size_t end = deepSeekPiece(s, segmentEnd, i);
  if (end > i) return end;
  // Isolated: the text up to the next match is a piece of its own.
  size_t k = i + 1;
  while (k < segmentEnd && deepSeekPiece(s, segmentEnd, k) == k) k++;
  return k;
}

// The white-space alternatives at i: \s*[\r\n]+ to the run's last line break, else \s+(?!\S)
// (the run but its last character when a non-space follows), else \s+. i when s[i] is no space.
template <typename C>
size_t Splitter::whitespace(const C* s, size_t n, size_t i) const {
  const size_t j = run(s, n, i, kSpace);
  if (j == i) return i;
  for (size_t k = j; k > i; k--)
    if (isNewline(s[k - 1])) return k;
  if (j == n || j - i == 1) return j;
  return j - 1;
}

template <typename C>
size_t Splitter::qwen(const C* s, size_t n, size_t i) const {
  if (size_t k = contraction(s, n, i)) return i + k;
  uint8_t c = classOf(s[i]);
  // [^\r\n\p{L}\p{N}]?\p{L}+
  size_t j = i;
  if (!(c & (kLetter | kNumber)) && !isNewline(s[i]) && i + 1 < n && (classOf(s[i + 1]) & kLetter)) j = i + 1;
  if (classOf(s[j]) & kLetter) return run(s, n, j, kLetter);
  // \p{N}{1,K}
  if (c & kNumber) {
    j = i;
    while (j < n && j - i < static_cast<size_t>(maxDigits_) && (classOf(s[j]) & kNumber)) j++;
    return j;
  }
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
  auto other = [&](size_t k) { return k < n && !(classOf(s[k]) & (kLetter | kNumber | kSpace)); };
  j = s[i] == ' ' ? i + 1 : i;
  if (other(j)) {
    while (other(j)) j++;
    while (j < n && isNewline(s[j])) j++;
    return j;
  }
  size_t end = whitespace(s, n, i);
  return end > i ? end : i + 1;  // every character matches one alternative; kept whole if not
}

// The piece of DeepSeek-V3's first two Splits that starts at i: at most three numbers, or a run
// of non-numbers; within it, a run of the CJK ranges or a run of anything else.
template <typename C>
size_t Splitter::deepSeekSegment(const C* s, size_t n, size_t i) const {
  size_t end = i;
  if (classOf(s[i]) & kNumber) {
    while (end < n && end - i < 3 && (classOf(s[end]) & kNumber)) end++;
  } else {
    while (end < n && !(classOf(s[end]) & kNumber)) end++;
  }
  const bool inCjk = cjk(s[i]);
  size_t k = i + 1;
  while (k < end && cjk(s[k]) == inCjk) k++;
  return k;
}

// DeepSeek-V3's third Split at i, within a piece that ends at n: the match's end, or i.
template <typename C>
size_t Splitter::deepSeekPiece(const C* s, size_t n, size_t i) const {
  const uint32_t c = s[i];
  // [!"#...~][A-Za-z]+
  if (asciiPunct(c) && i + 1 < n && asciiLetter(s[i + 1])) {
    size_t j = i + 1;
    while (j < n && asciiLetter(s[j])) j++;
    return j;
  }
  // [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
  const uint8_t k = classOf(c);
  size_t j = i;
  if (!(k & (kLetter | kPunct | kSymbol)) && !isNewline(c) && i + 1 < n && (classOf(s[i + 1]) & (kLetter | kMark))) j = i + 1;
  if (classOf(s[j]) & (kLetter | kMark)) {
    while (j < n && (classOf(s[j]) & (kLetter | kMark))) j++;
    return j;
  }
  // ' ?[\p{P}\p{S}]+[\r\n]*'
  j = c == ' ' && i + 1 < n ? i + 1 : i;
  if (classOf(s[j]) & (kPunct | kSymbol)) {
    while (j < n && (classOf(s[j]) & (kPunct | kSymbol))) j++;
    while (j < n && isNewline(s[j])) j++;
    return j;
  }
  return whitespace(s, n, i);
}

// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+ (upperFirst false) or
// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]* (true) at p, as the regex
// backtracks: the end, or p when it does not match.
template <typename C>
size_t Splitter::o200kLetters(const C* s, size_t n, size_t p, bool upperFirst) const {
  const uint8_t upper = kUpperLike | kMark, lowerish = kLowerLike | kMark;
  size_t a = p;
  while (a < n && (classOf(s[a]) & upper)) a++;
  if (upperFirst && a == p) return p;
  size_t b = a;
  while (b < n && (classOf(s[b]) & lowerish)) b++;
  if (upperFirst || b > a) return b;
  // The upper run ends where no lower one starts: give back characters of it until the last
  // one that is also of the second class; that one is the [...]+ and the match ends after it.
  for (size_t k = a; k > p; k--)
    if (classOf(s[k - 1]) & lowerish) return k;
  return p;
}

template <typename C>
size_t Splitter::o200k(const C* s, size_t n, size_t i) const {
  const uint8_t c = classOf(s[i]);
  const bool prefix = !(c & (kLetter | kNumber)) && !isNewline(s[i]) && i + 1 < n;
  // The two letter alternatives, each first with the optional leading character, then without.
  for (bool upperFirst : {false, true}) {
    size_t end = prefix ? o200kLetters(s, n, i + 1, upperFirst) : i;
    if (end <= i + 1) end = o200kLetters(s, n, i, upperFirst);
    if (end > i) return end + contraction(s, n, end);
  }
  // \p{N}{1,3}
  if (c & kNumber) {
    size_t j = i;
    while (j < n && j - i < 3 && (classOf(s[j]) & kNumber)) j++;
    return j;
  }
  // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
  auto other = [&](size_t k) { return k < n && !(classOf(s[k]) & (kLetter | kNumber | kSpace)); };
  size_t j = s[i] == ' ' ? i + 1 : i;
  if (other(j)) {
    while (other(j)) j++;
    while (j < n && (isNewline(s[j]) || s[j] == '/')) j++;
    return j;
  }
  return whitespace(s, n, i);
}

template size_t Splitter::next<uint8_t>(const uint8_t*, size_t, size_t, size_t&, bool&) const;
template size_t Splitter::next<char16_t>(const char16_t*, size_t, size_t, size_t&, bool&) const;
template size_t Splitter::next<char32_t>(const char32_t*, size_t, size_t, size_t&, bool&) const;

}  // namespace midpack
