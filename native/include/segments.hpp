#pragma once
// The masking stage's segments of a document (src/stages/mask/segments.ts states the unit):
// each line of a UTF-16 text (split at '\n'), trimmed of whitespace at both ends as JavaScript's
// String.prototype.trim does, is a segment when the trimmed text has at least minChars UTF-16
// units and its raw line touches no special span. Its hash is XXH64 (seed 0) of the trimmed
// text's UTF-8 bytes, a lone surrogate encoded as U+FFFD as TextEncoder does: the same 64 bits
// as xxhash-wasm's h64(normalized). Plain C++17, tested on its own (native/test/test_segments.cpp)
// and against the JavaScript definition on real documents (test/stages/mask/native-segments.test.ts).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace midpack {

// XXH64 of `len` bytes with seed 0.
uint64_t xxh64(const uint8_t* data, size_t len);

// True for the UTF-16 units String.prototype.trim removes (WhiteSpace and LineTerminator).
bool isTrimmedSpace(uint16_t c);

// True when every unit of t[0, n) is below U+0100 (the text is Latin-1).
bool allLatin1(const uint16_t* t, size_t n);

// True when every surrogate of t[0, n) is in a high-low pair (String.prototype.isWellFormed).
bool wellFormedUtf16(const uint16_t* t, size_t n);

// Writes the UTF-8 bytes of text[from, to) to `out` (room for 3 bytes a unit), lone surrogates as
// U+FFFD; returns how many.
size_t utf8Of(const uint16_t* text, size_t from, size_t to, uint8_t* out);

// Finds a document's segments. `specials` holds sorted, non-overlapping [start, end) pairs
// (specialPairs of them). Appends four words a segment to `out` (cleared first): the hash's
// high and low 32 bits, the line's start, and the line's end before its newline. With
// `distinct`, only each hash's first occurrence is listed.
class LineSegmenter {
 public:
  void segment(const uint16_t* text, size_t length, const uint32_t* specials, size_t specialPairs, uint32_t minChars,
               bool distinct, std::vector<uint32_t>& out);

 private:
  std::vector<uint8_t> utf8_;
  std::vector<uint64_t> seen_;  // open addressing, 0 = empty (a hash of 0 is kept aside)
  std::vector<size_t> used_;    // the slots of seen_ in use
  bool seenZero_ = false;
  size_t seenSize_ = 0;
  bool firstOccurrence(uint64_t h);
  void clearSeen();
};

}  // namespace midpack
