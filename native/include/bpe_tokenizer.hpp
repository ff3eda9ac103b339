// A byte-level BPE tokenizer core with the Rust reference's ids, for the pre-tokenizer pattern
// family of Qwen2/2.5/3 and Llama-3:
//
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,K}| ?[^\s\p{L}\p{N}]+[\r\n]*
//   |\s*[\r\n]+|\s+(?!\S)|\s+
//
// split by hand (no regex engine), with the Unicode classes given by the caller (the table the
// TypeScript side generated from the reference). Each piece is looked up in the vocabulary, then
// in a bounded table of pieces already encoded (one flat table for both, one probe); on a miss the reference's merge algorithm runs
// (lowest merge rank first, leftmost on ties) in O(n log n). Every token gets its range in UTF-16
// units of the input: a token owns each code point it holds a byte of.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace midpack {

struct BpeConfig {
  // The id of each single byte.
  std::vector<int32_t> byteIds;
  // (left, right, merged) ids per merge, in merge order (the order is the rank).
  std::vector<int32_t> merges;
  // Per code point (0..0x10FFFF): bit 1 letter (\p{L}), bit 2 number (\p{N}), bit 4 white space (\s).
  std::vector<uint8_t> classes;
  // K in \p{N}{1,K}.
  int maxDigits = 1;
  // BPE's ignore_merges: a piece that is a vocabulary token is that token.
  bool ignoreMerges = false;
  // Pieces kept in the table of pieces already encoded, and the longest piece kept (bytes).
  size_t cacheEntries = 1 << 16;
  size_t cacheMaxBytes = 256;
  // A piece longer than this is refused (std::length_error): its merges would hold O(n) memory.
  size_t maxPieceBytes = 16u << 20;
};

enum CharClass : uint8_t { kLetter = 1, kNumber = 2, kSpace = 4 };

struct Encoding {
  std::vector<int32_t> ids, starts, ends;
  void clear() {
    ids.clear();
    starts.clear();
    ends.clear();
  }
};

class BpeTokenizer {
 public:
  explicit BpeTokenizer(BpeConfig config);
  // Appends the tokens of text[0, n) (UTF-16; a lone surrogate counts as U+FFFD) to `out`.
  void encode(const char16_t* text, size_t n, Encoding& out);
  // The pieces' [start, end) in UTF-16 units (for tests).
  void split(const char16_t* text, size_t n, std::vector<uint32_t>& bounds) const;
  size_t cacheSize() const { return cached_; }

 private:
  struct Merge {
    int32_t rank;
    int32_t merged;
  };
  // One slot of the flat table of merges, keyed by the pair (left id << 32 | right id); rank -1
  // is an empty slot. A flat table, not a node-based map: the merge loop probes it for every
  // adjacent pair of a piece not seen before, and that probe was a third of a worker's time.
  struct PairSlot {
    uint64_t key = 0;
    Merge merge{-1, 0};
  };
  const Merge* findMerge(int32_t left, int32_t right) const;
  // One slot of the flat piece table: the vocabulary's tokens and the pieces already encoded, in
  // one open-addressing table keyed by the piece's bytes (one hash, one probe sequence). `value`
  // is a token id (>= 0) or ~offset of the piece's ids in pieceIdArena_ (then `count` ids).
  struct Slot {
    uint64_t hash = 0;
    uint32_t keyOffset = 0, keyLength = 0;
    int32_t value = 0;
    uint16_t count = 0;
    uint8_t state = 0;  // 0 empty, 1 vocabulary, 2 cached piece
  };
  uint8_t classOf(uint32_t cp) const { return cp < classes_.size() ? classes_[cp] : 0; }
  size_t pieceEnd(const std::u32string& cps, size_t i) const;
  void encodePiece(const char* bytes, size_t n, std::vector<int32_t>& ids);
  void mergeBytes(const char* bytes, size_t n, std::vector<int32_t>& ids);
  size_t findSlot(const char* bytes, size_t n, uint64_t hash) const;
  void insertSlot(const char* bytes, size_t n, uint64_t hash, size_t at, int32_t value, uint32_t count, bool cached);
  void clearCache();
  void emitPiece(size_t first, size_t last, bool ascii, Encoding& out);
  const char* keyOf(const Slot& s) const { return (s.state == 2 ? cacheArena_ : vocabArena_).data() + s.keyOffset; }

  std::vector<int32_t> byteIds_;
  std::vector<uint8_t> classes_;
  int maxDigits_;
  bool ignoreMerges_;
  size_t cacheEntries_, cacheMaxBytes_, maxPieceBytes_;
  std::vector<PairSlot> pairs_;      // a power of two, at most half full
  std::vector<uint32_t> tokenBytes_;  // byte length per id
  std::vector<Slot> slots_;           // a power of two, at most half full
  std::string vocabArena_;            // the vocabulary's keys (fixed)
  std::string cacheArena_;            // the cached pieces' keys (emptied with the cache)
  std::vector<int32_t> pieceIdArena_; // the cached pieces' ids
  size_t cached_ = 0;
  // Scratch, kept between calls.
  std::u32string cps_;
  std::vector<uint32_t> units_;
  std::string bytes_;
  std::vector<uint32_t> byteUnit_;
  std::vector<int32_t> pieceIds_;
  std::vector<int32_t> sym_, prev_, next_;
  std::vector<std::pair<int64_t, int32_t>> heap_;
};

}  // namespace midpack
