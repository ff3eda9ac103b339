// A byte-level BPE tokenizer core with the Rust reference's ids, for the pre-tokenizer patterns
// of Qwen2/2.5/3, Llama-3, DeepSeek-V3 and GPT-4o, split by hand (splitters.hpp: no regex
// engine), with the Unicode classes given by the caller (the table the TypeScript side generated
// from the reference). Each piece is looked up in the vocabulary, then
// in a bounded table of pieces already encoded (one flat table for both, one probe); on a miss the reference's merge algorithm runs
// (lowest merge rank first, leftmost on ties) in O(n log n). Every token gets its range in UTF-16
// units of the input: a token owns each code point it holds a byte of.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "splitters.hpp"

namespace midpack {

struct BpeConfig {
  // The id of each single byte.
  std::vector<int32_t> byteIds;
  // (left, right, merged) ids per merge, in merge order (the order is the rank).
  std::vector<int32_t> merges;
  // Per code point (0..0x10FFFF): CharClass bits (splitters.hpp).
  std::vector<uint8_t> classes;
  // The Split pattern, and K in kQwen's \p{N}{1,K}.
  SplitPattern pattern = SplitPattern::kQwen;
  int maxDigits = 1;
  // BPE's ignore_merges: a piece that is a vocabulary token is that token, before any merge.
  bool ignoreMerges = false;
  // The vocabulary: each id's byte length (0 where no token) and their bytes, in id order. When
  // empty, the tokens are the single bytes and what the merges make. Without ignore_merges a
  // token is looked up whole only when the merges of its own bytes reach it (checked here).
  std::vector<int32_t> tokenLengths;
  std::string tokenBytes;
  // Pieces kept in the table of pieces already encoded, and the longest piece kept (bytes).
  size_t cacheEntries = 1 << 16;
  size_t cacheMaxBytes = 256;
  // A piece longer than this is refused (std::length_error): its merges would hold O(n) memory.
  size_t maxPieceBytes = 16u << 20;
};

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
  void addVocabulary(const std::vector<std::string>& bytes, bool verify);
  void encodePiece(const char* bytes, size_t n, std::vector<int32_t>& ids);
  void mergeBytes(const char* bytes, size_t n, std::vector<int32_t>& ids);
  size_t findSlot(const char* bytes, size_t n, uint64_t hash) const;
  void insertSlot(const char* bytes, size_t n, uint64_t hash, size_t at, int32_t value, uint32_t count, bool cached);
  void clearCache();
  void emitPiece(size_t first, size_t last, bool ascii, Encoding& out);
  const char* keyOf(const Slot& s) const { return (s.state == 2 ? cacheArena_ : vocabArena_).data() + s.keyOffset; }

  std::vector<int32_t> byteIds_;
  Splitter splitter_;
  bool ignoreMerges_;
  size_t cacheEntries_, cacheMaxBytes_, maxPieceBytes_;
  std::vector<PairSlot> pairs_;      // a power of two, at most half full
  std::vector<uint32_t> tokenBytes_;  // byte length per id
  // In front of slots_: the last single-token pieces of up to 8 bytes, direct-mapped by their
  // bytes packed in a word (small enough to stay in the core's cache; a piece's ids never change,
  // so an entry is never stale).
  struct HotPiece {
    uint64_t word = 0;
    int32_t id = -1;
    uint32_t length = 0;
  };
  static constexpr int kHotBits = 12;
  std::vector<HotPiece> hot_;
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
