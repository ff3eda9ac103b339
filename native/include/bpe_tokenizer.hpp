// A byte-level BPE tokenizer core with the Rust reference's ids, for the pre-tokenizer patterns
// of Qwen2/2.5/3, Llama-3, DeepSeek-V3 and GPT-4o, split by hand (splitters.hpp: no regex
// engine), with the Unicode classes given by the caller (the table the TypeScript side generated
// from the reference).
//
// A text is read at its narrowest width: an ASCII text as bytes (its pieces are its own bytes,
// no copy), a text without surrogates as its UTF-16 units, any other as code points with a map
// back to units. Each piece is looked up in a direct-mapped table of recent short pieces (two
// word compares), then in one flat table of the vocabulary and the pieces already encoded
// (bounded); on a miss the reference's merge algorithm runs (lowest merge rank first, leftmost
// on ties): a scan for short pieces, a heap for long ones, O(n log n). Every token gets its range
// in UTF-16 units of the input: a token owns each code point it holds a byte of.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "splitters.hpp"

namespace midpack {

// Memory for the tables probed once per piece (a few MB each, touched at random): 2 MB-aligned
// and, on Linux, asked for transparent huge pages, so their probes do not also miss the TLB.
void* allocateHuge(size_t bytes);
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(allocateHuge(n * sizeof(T))); }
  void deallocate(T* p, size_t) { std::free(p); }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const { return false; }
};

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
  // That check's outcome when already known (unmergedTokens() of a core built from the same
  // vocabulary and merges, kept with the prepared tables): the ids, ascending, that are not
  // looked up whole. With it the check is not run again; it is about half of a core's build.
  bool unmergedKnown = false;
  std::vector<int32_t> unmergedTokens;
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
  // The same for a text known to be ASCII, given as its bytes, with 16 readable bytes after them.
  void encodeAscii(const uint8_t* text, size_t n, Encoding& out);
  // The pieces' [start, end) in UTF-16 units (for tests).
  void split(const char16_t* text, size_t n, std::vector<uint32_t>& bounds) const;
  size_t cacheSize() const { return cached_; }
  // The vocabulary's ids (ascending) whose bytes the merges do not end in (so they are not looked
  // up whole): BpeConfig::unmergedTokens for a later build. Empty where no check is made
  // (ignore_merges, or no vocabulary given).
  const std::vector<int32_t>& unmergedTokens() const { return unmerged_; }

 private:
  // One slot of the flat table of merges, a word: the pair's left and right ids (20 bits each)
  // and its rank + 1 (24 bits; 0 is an empty slot). The merged id is mergedOf_[rank], read once
  // a merge is applied, not at each probe. A flat table of words, not a node-based map: the
  // merge loop probes it for every adjacent pair of a piece not seen before, and those probes
  // miss the caches (8-byte slots: the table is half the size of (key, rank, merged) slots).
  static constexpr int kPairIdBits = 20, kPairRankBits = 24;
  static constexpr int32_t kNoMerge = INT32_MAX;
  // The pair's rank, or kNoMerge when the merges do not list it.
  int32_t pairRank(int32_t left, int32_t right) const;
  template <typename C>
  void encodeText(const C* s, size_t n, const uint32_t* units, Encoding& out);
  // The splitter's next piece: an ASCII text's commonest pieces cut inline (Splitter::nextAscii).
  template <typename C>
  size_t nextPiece(const C* s, size_t n, size_t i, size_t& segment, bool& keep) const {
    if constexpr (std::is_same_v<C, uint8_t>) return splitter_.nextAscii(s, n, i, segment, keep);
    else return splitter_.next(s, n, i, segment, keep);
  }
  class TokenStage;
  struct HotPiece;
  // A piece cut ahead of its lookup: [first, last) in code points, its UTF-8 (`length` bytes, 16
  // readable after them), its hot entry with its bytes as two words, or (no hot entry: a piece
  // over kHotMaxBytes) its hash in `low`.
  struct Cut {
    size_t first, last;
    const char* bytes;
    size_t length;
    bool ascii;
    HotPiece* hot;
    uint64_t low, high;
  };
  // A piece of a wider text whose UTF-8 is longer than this is not read ahead (encodePieceAt).
  static constexpr size_t kSpillBytes = 64;
  void lookAhead(Cut& c);
  void encodeAsciiBlocks(const uint8_t* s, size_t n, Encoding& out);
  template <typename C>
  void encodeCut(const C* s, const Cut& c, const uint32_t* units, TokenStage& stage);
  void refuseLongPiece(size_t n) const;
  template <typename C>
  void encodePieceAt(const C* s, size_t first, size_t last, const uint32_t* units, Encoding& out);
  template <typename C>
  void emitPiece(const C* s, size_t first, size_t last, bool ascii, const uint32_t* units, Encoding& out);
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
  void addVocabulary(const std::vector<std::string>& bytes, bool verify, const std::vector<int32_t>* known);
  std::vector<int32_t> unmerged_;
  void encodePiece(const char* bytes, size_t n, std::vector<int32_t>& ids);
  // `hash` is hashBytes(bytes, n).
  void lookupOrMerge(const char* bytes, size_t n, uint64_t hash, std::vector<int32_t>& ids);
  void mergeBytes(const char* bytes, size_t n, std::vector<int32_t>& ids);
  static constexpr size_t kShortMergeBytes = 64;
  void mergeShort(const char* bytes, size_t n, std::vector<int32_t>& ids) const;
  size_t findSlot(const char* bytes, size_t n, uint64_t hash) const;
  void insertSlot(const char* bytes, size_t n, uint64_t hash, size_t at, int32_t value, uint32_t count, bool cached);
  void clearCache();
  const char* keyOf(const Slot& s) const { return (s.state == 2 ? cacheArena_ : vocabArena_).data() + s.keyOffset; }

  std::vector<int32_t> byteIds_;
  Splitter splitter_;
  bool ignoreMerges_;
  size_t cacheEntries_, cacheMaxBytes_, maxPieceBytes_;
  std::vector<uint64_t, HugePageAllocator<uint64_t>> pairs_;  // a power of two, at most half full
  std::vector<int32_t> mergedOf_;  // the id each rank's merge makes
  // The rank of each pair of single bytes (first byte << 8 | second), as pairRank gives it: a
  // piece's first probes, one per byte, read 256 KB instead of the whole table.
  std::vector<int32_t> bytePairRank_;
  std::vector<uint32_t> tokenBytes_;  // byte length per id
  // In front of slots_: the last pieces of up to 16 bytes and up to 3 tokens, direct-mapped by
  // their bytes packed in two words: one compare of the words, no hash of the bytes, no key in
  // an arena. A piece's ids never change, so an entry is never stale. An entry holds its tokens'
  // byte lengths (the last one is what the others leave), so a piece's ranges need no other
  // read. On real code 9 pieces in 10 are found here (docs/tokenizer.md). Half a cache line an
  // entry: with 8 tokens in a whole line, more pieces were found but fewer stayed in L2.
  static constexpr size_t kHotTokens = 3;
  struct alignas(32) HotPiece {
    uint64_t low = 0, high = 0;
    int32_t ids[kHotTokens] = {};
    uint8_t bytes[kHotTokens - 1] = {};  // the byte lengths of all tokens but the last
    uint8_t length = 0, count = 0;       // the piece's bytes (0: an empty entry), its tokens
  };
  static constexpr int kHotBits = 16;  // 2 MB
  static constexpr size_t kHotMaxBytes = 16;
  HotPiece* hotOf(const char* bytes, size_t n, uint64_t& low, uint64_t& high);
  bool hotHit(const HotPiece* hot, size_t n, uint64_t low, uint64_t high) const { return hot && hot->length == n && hot->low == low && hot->high == high; }
  void keepHot(HotPiece* hot, size_t n, uint64_t low, uint64_t high, const std::vector<int32_t>& ids) const;
  std::vector<HotPiece, HugePageAllocator<HotPiece>> hot_;
  std::vector<Slot, HugePageAllocator<Slot>> slots_;  // a power of two, at most half full
  std::string vocabArena_;            // the vocabulary's keys (fixed)
  std::string cacheArena_;            // the cached pieces' keys (emptied with the cache)
  std::vector<int32_t> pieceIdArena_; // the cached pieces' ids
  size_t cached_ = 0;
  // Scratch, kept between calls. A piece's bytes are followed by at least 16 readable bytes
  // (narrow_'s and bytes_'s padding), so hotOf reads two whole words.
  std::u32string cps_;
  std::vector<uint32_t> units_;
  std::vector<uint8_t> narrow_;
  std::vector<char> bytes_;
  std::vector<uint32_t> byteUnit_;
  std::vector<int32_t> pieceIds_;
  std::vector<int32_t> sym_, prev_, next_;
  std::vector<std::pair<int64_t, int32_t>> heap_;
};

}  // namespace midpack
