#include "bpe_tokenizer.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <functional>
#include <string>
#include <stdexcept>
#include <type_traits>
#include <utility>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace midpack {

namespace {

// Writes c's UTF-8 at out: returns its length.
size_t putUtf8(char* out, uint32_t c) {
  if (c < 0x80) {
    out[0] = static_cast<char>(c);
    return 1;
  }
  if (c < 0x800) {
    out[0] = static_cast<char>(0xC0 | (c >> 6));
    out[1] = static_cast<char>(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (c >> 12));
    out[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (c >> 18));
  out[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (c & 0x3F));
  return 4;
}

// A piece's hash: eight bytes a step (pieces are short; this runs once per piece).
uint64_t hashBytes(const char* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xff51afd7ed558ccdull);
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  // murmur3's finalizer: every input bit reaches the low bits the table's mask keeps.
  h ^= w;
  h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
  h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

inline size_t utf8Length(uint32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

// The UTF-8 of the piece s[first, last), read ahead of its lookup, with 16 readable bytes after
// it: an ASCII text's own bytes, else written into `spill` (zero-padded) when it fits in
// `room` bytes; nullptr when it does not.
template <typename C>
const char* cutBytes(const C* s, size_t first, size_t last, char* spill, size_t room, size_t& length, bool& ascii) {
  if constexpr (std::is_same_v<C, uint8_t>) {
    (void)spill;
    (void)room;
    length = last - first;
    ascii = true;
    return reinterpret_cast<const char*>(s + first);
  } else {
    size_t b = 0;
    uint32_t any = 0;
    for (size_t k = first; k < last; k++) {
      if (b + 4 > room) return nullptr;
      any |= s[k];
      b += putUtf8(spill + b, s[k]);
    }
    std::memset(spill + b, 0, 16);
    length = b;
    ascii = any < 0x80;
    return spill;
  }
}

// A hint that *p is read soon (a lookup's table entry, while the pieces before it are encoded).
inline void prefetch(const void* p) {
#if defined(__GNUC__)
  if (p) __builtin_prefetch(p);
#else
  (void)p;
#endif
}

// Per piece length n (0..16): the bits of a piece's first n bytes in its two words, so hotOf
// keeps them without a branch on the length (lengths under and over 8 alternate at random).
struct WordMasks {
  uint64_t low, high;
};
constexpr std::array<WordMasks, 17> kPieceWordMasks = [] {
  std::array<WordMasks, 17> masks{};
  for (size_t n = 0; n <= 16; n++) {
    masks[n].low = n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
    masks[n].high = n >= 16 ? ~uint64_t{0} : n <= 8 ? 0 : (uint64_t{1} << (8 * (n - 8))) - 1;
  }
  return masks;
}();

inline uint64_t pairKey(int32_t a, int32_t b) { return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 20) | static_cast<uint32_t>(b); }

// The home slot of a pair in a table of `capacity` (a power of two) slots: the key's bits mixed.
inline size_t pairSlotOf(uint64_t key, size_t capacity) { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (capacity - 1); }

}  // namespace

void* allocateHuge(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  void* p = nullptr;
  if (bytes >= kHuge) {
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    p = std::aligned_alloc(kHuge, rounded);
#ifdef __linux__
    if (p) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP the pages stay small
#endif
  } else {
    p = std::malloc(bytes ? bytes : 1);
  }
  if (!p) throw std::bad_alloc();
  return p;
}

BpeTokenizer::BpeTokenizer(BpeConfig config)
    : byteIds_(std::move(config.byteIds)),
      splitter_(config.pattern, config.maxDigits, std::move(config.classes)),
      ignoreMerges_(config.ignoreMerges),
      cacheEntries_(config.cacheEntries),
      cacheMaxBytes_(config.cacheMaxBytes),
      maxPieceBytes_(config.maxPieceBytes) {
  if (byteIds_.size() != 256) throw std::invalid_argument("BpeTokenizer: 256 byte ids expected");
  if (config.merges.size() % 3 != 0) throw std::invalid_argument("BpeTokenizer: merges come in (left, right, merged) triples");
  int32_t maxId = 0;
  for (int32_t id : byteIds_) maxId = std::max(maxId, id);
  for (int32_t id : config.merges) maxId = std::max(maxId, id);
  // Every token's bytes: the vocabulary's when given, else a single byte or its merge's two parts.
  std::vector<std::string> bytes(static_cast<size_t>(maxId) + 1);
  const bool vocabulary = !config.tokenLengths.empty();
  if (vocabulary) {
    bytes.resize(std::max(bytes.size(), config.tokenLengths.size()));
    size_t at = 0;
    for (size_t id = 0; id < config.tokenLengths.size(); id++) {
      size_t len = static_cast<size_t>(config.tokenLengths[id]);
      if (at + len > config.tokenBytes.size()) throw std::invalid_argument("BpeTokenizer: token lengths run past the vocabulary's bytes");
      bytes[id].assign(config.tokenBytes, at, len);
      at += len;
    }
  } else {
    for (int b = 0; b < 256; b++) bytes[static_cast<size_t>(byteIds_[b])] = std::string(1, static_cast<char>(b));
  }
  size_t m = config.merges.size() / 3;
  if (maxId >= (int32_t{1} << kPairIdBits)) throw std::invalid_argument("BpeTokenizer: token ids of 2^20 or more (the merge table keys ids by 20 bits)");
  if (m >= (size_t{1} << kPairRankBits) - 1) throw std::invalid_argument("BpeTokenizer: 2^24 merges or more (the merge table holds ranks in 24 bits)");
  size_t pairCapacity = 1024;
  while (pairCapacity < 2 * m) pairCapacity *= 2;
  pairs_.assign(pairCapacity, 0);
  mergedOf_.resize(m);
  for (size_t r = 0; r < m; r++) {
    int32_t a = config.merges[3 * r], b = config.merges[3 * r + 1], c = config.merges[3 * r + 2];
    if (a < 0 || b < 0 || c < 0) throw std::invalid_argument("BpeTokenizer: negative id in a merge");
    const uint64_t key = pairKey(a, b);
    mergedOf_[r] = c;
    // A pair listed twice has its last rank, as the reference's map of merges keeps it.
    for (size_t i = pairSlotOf(key, pairCapacity);; i = (i + 1) & (pairCapacity - 1)) {
      uint64_t& s = pairs_[i];
      if (s != 0 && (s >> kPairRankBits) != key) continue;
      s = (key << kPairRankBits) | (r + 1);
      break;
    }
    if (!vocabulary) bytes[static_cast<size_t>(c)] = bytes[static_cast<size_t>(a)] + bytes[static_cast<size_t>(b)];
  }
  bytePairRank_.resize(size_t{1} << 16);
  for (size_t p = 0; p < bytePairRank_.size(); p++) bytePairRank_[p] = pairRank(byteIds_[p >> 8], byteIds_[p & 0xFF]);
  tokenBytes_.resize(bytes.size());
  size_t tokens = 0;
  for (size_t id = 0; id < bytes.size(); id++) {
    tokenBytes_[id] = static_cast<uint32_t>(bytes[id].size());
    if (!bytes[id].empty()) tokens++;
  }
  // At most half full with the whole vocabulary and a full cache.
  size_t capacity = 1024;
  while (capacity < 2 * (tokens + cacheEntries_)) capacity *= 2;
  slots_.assign(capacity, Slot());
  hot_.assign(size_t{1} << kHotBits, HotPiece());
  const bool verify = vocabulary && !ignoreMerges_;
  addVocabulary(bytes, verify, verify && config.unmergedKnown ? &config.unmergedTokens : nullptr);
}

// The vocabulary goes in first and is never removed, so no vocabulary key's probe sequence
// crosses a cached piece's slot: emptying the cache's slots leaves every lookup valid. With
// `verify`, a token goes in only when the merges of its own bytes end in it (else a piece equal
// to it is merged like any other). `known`: the ids the check left out, from an earlier build
// (ascending), so it is not run again. Either way the ids left out are unmerged_.
void BpeTokenizer::addVocabulary(const std::vector<std::string>& bytes, bool verify, const std::vector<int32_t>* known) {
  std::vector<int32_t> ids;
  size_t next = 0;  // known's next id
  for (size_t id = 0; id < bytes.size(); id++) {
    const std::string& key = bytes[id];
    if (key.empty()) continue;
    if (known) {
      if (next < known->size() && (*known)[next] == static_cast<int32_t>(id)) {
        next++;
        unmerged_.push_back(static_cast<int32_t>(id));
        continue;
      }
    } else if (verify && key.size() > 1) {
      ids.clear();
      mergeBytes(key.data(), key.size(), ids);
      if (ids.size() != 1 || ids[0] != static_cast<int32_t>(id)) {
        unmerged_.push_back(static_cast<int32_t>(id));
        continue;
      }
    }
    uint64_t h = hashBytes(key.data(), key.size());
    size_t at = findSlot(key.data(), key.size(), h);
    if (slots_[at].state != 0) continue;  // the lowest id of equal bytes wins
    insertSlot(key.data(), key.size(), h, at, static_cast<int32_t>(id), 0, false);
  }
  if (known && next != known->size()) throw std::invalid_argument("BpeTokenizer: the known unmerged tokens are not ascending ids of the vocabulary");
}

size_t BpeTokenizer::findSlot(const char* bytes, size_t n, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = static_cast<size_t>(hash) & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.state == 0) return i;
    if (s.hash == hash && s.keyLength == n && std::memcmp(keyOf(s), bytes, n) == 0) return i;
  }
}

void BpeTokenizer::insertSlot(const char* bytes, size_t n, uint64_t hash, size_t at, int32_t value, uint32_t count, bool cached) {
  std::string& arena = cached ? cacheArena_ : vocabArena_;
  Slot& s = slots_[at];
  s.hash = hash;
  s.keyOffset = static_cast<uint32_t>(arena.size());
  s.keyLength = static_cast<uint32_t>(n);
  s.value = value;
  s.count = static_cast<uint16_t>(count);
  s.state = cached ? 2 : 1;
  arena.append(bytes, n);
}

// Bounded: a full cache starts over (the vocabulary stays).
void BpeTokenizer::clearCache() {
  for (Slot& s : slots_)
    if (s.state == 2) s = Slot();
  cacheArena_.clear();
  pieceIdArena_.clear();
  cached_ = 0;
}

// UTF-16 to code points, with the UTF-16 offset where each starts (and n last). A lone
// surrogate is U+FFFD, as the reference reads a JavaScript string with one.
static void decodeUtf16(const char16_t* text, size_t n, std::u32string& cps, std::vector<uint32_t>& units) {
  for (size_t u = 0; u < n;) {
    char16_t c = text[u];
    units.push_back(static_cast<uint32_t>(u));
    if (c >= 0xD800 && c < 0xDC00 && u + 1 < n && text[u + 1] >= 0xDC00 && text[u + 1] < 0xE000) {
      cps.push_back(0x10000 + ((static_cast<uint32_t>(c) - 0xD800) << 10) + (text[u + 1] - 0xDC00));
      u += 2;
    } else {
      cps.push_back(c >= 0xD800 && c < 0xE000 ? 0xFFFD : c);
      u += 1;
    }
  }
  units.push_back(static_cast<uint32_t>(n));
}

// Calls f(s, count, units) with the text at its narrowest width: bytes for an ASCII text (with
// 16 zero bytes after it), its own units for a text without surrogates, else code points with
// the unit where each starts (`units`; null for the first two, where a code point is a unit).
// The scan is one pass the compiler vectorizes; most code and much prose take the byte path.
template <typename F>
static void byWidth(const char16_t* text, size_t n, std::vector<uint8_t>& narrow, std::u32string& cps, std::vector<uint32_t>& units, F&& f) {
  uint32_t any = 0;
  size_t surrogates = 0;
  for (size_t u = 0; u < n; u++) {
    any |= text[u];
    surrogates += (text[u] & 0xF800) == 0xD800;
  }
  if (any < 0x80) {
    narrow.resize(n + 16);
    for (size_t u = 0; u < n; u++) narrow[u] = static_cast<uint8_t>(text[u]);
    std::memset(narrow.data() + n, 0, 16);
    f(narrow.data(), n, static_cast<const uint32_t*>(nullptr));
    if (narrow.size() > (1u << 24)) std::vector<uint8_t>().swap(narrow);
  } else if (surrogates == 0) {
    f(text, n, static_cast<const uint32_t*>(nullptr));
  } else {
    cps.clear();
    units.clear();
    decodeUtf16(text, n, cps, units);
    f(cps.data(), cps.size(), static_cast<const uint32_t*>(units.data()));
  }
}

void BpeTokenizer::split(const char16_t* text, size_t n, std::vector<uint32_t>& bounds) const {
  std::vector<uint8_t> narrow;
  std::u32string cps;
  std::vector<uint32_t> units;
  byWidth(text, n, narrow, cps, units, [&](const auto* s, size_t count, const uint32_t* unitOf) {
    size_t segment = 0;
    bool keep = true;
    for (size_t i = 0; i < count;) {
      size_t j = nextPiece(s, count, i, segment, keep);
      if (keep) {
        bounds.push_back(unitOf ? unitOf[i] : static_cast<uint32_t>(i));
        bounds.push_back(unitOf ? unitOf[j] : static_cast<uint32_t>(j));
      }
      i = j;
    }
  });
}

void BpeTokenizer::encode(const char16_t* text, size_t n, Encoding& out) {
  byWidth(text, n, narrow_, cps_, units_, [&](const auto* s, size_t count, const uint32_t* unitOf) { encodeText(s, count, unitOf, out); });
}

void BpeTokenizer::encodeAscii(const uint8_t* text, size_t n, Encoding& out) { encodeText(text, n, nullptr, out); }

// Tokens gathered in a block on the stack and appended to the Encoding's vectors a block at a
// time: one copy per vector per block rather than three checked push_backs per token. The
// owner flushes it at the end (not a destructor: a piece refused midway leaves nothing to keep).
class BpeTokenizer::TokenStage {
 public:
  explicit TokenStage(Encoding& out) : out_(out) {}
  void push(int32_t id, size_t start, size_t end) {
    if (n_ == kBlock) flush();
    ids_[n_] = id;
    starts_[n_] = static_cast<int32_t>(start);
    ends_[n_] = static_cast<int32_t>(end);
    n_++;
  }
  // A hot entry's tokens over the piece [first, first + length) of an ASCII text: all
  // kHotTokens slots written and `count` kept, so the token count costs no branch.
  void pushHot(const HotPiece& hot, size_t first, size_t length) {
    if (n_ + kHotTokens > kBlock) flush();
    const int32_t b0 = static_cast<int32_t>(first), b1 = b0 + hot.bytes[0], b2 = b1 + hot.bytes[1];
    const int32_t end = static_cast<int32_t>(first + length);
    static_assert(kHotTokens == 3, "pushHot writes three tokens");
    std::memcpy(ids_ + n_, hot.ids, sizeof(hot.ids));
    starts_[n_] = b0;
    starts_[n_ + 1] = b1;
    starts_[n_ + 2] = b2;
    ends_[n_] = b1;
    ends_[n_ + 1] = b2;
    ends_[n_ + 2] = end;
    ends_[n_ + hot.count - 1] = end;  // (the last token's bytes are what the others leave)
    n_ += hot.count;
  }
  void flush() {
    out_.ids.insert(out_.ids.end(), ids_, ids_ + n_);
    out_.starts.insert(out_.starts.end(), starts_, starts_ + n_);
    out_.ends.insert(out_.ends.end(), ends_, ends_ + n_);
    n_ = 0;
  }

 private:
  static constexpr size_t kBlock = 256;
  Encoding& out_;
  size_t n_ = 0;
  int32_t ids_[kBlock], starts_[kBlock], ends_[kBlock];
};

// A text, pipelined: the splitter cuts up to kAhead pieces ahead of their lookups, and each
// piece's hot entry (or, for a longer piece, its slot in the piece table) is prefetched when it
// is cut, so the entries' cache misses overlap instead of each stalling the loop in turn (the
// hot table is 2 MB, more than a core's L2 here: that stall was most of the time of a lookup).
// An entry is compared only when its piece's turn comes, after the pieces before it have
// updated the table. A piece of a wider text too long for its spill buffer is encoded at its
// turn by encodePieceAt.
template <typename C>
void BpeTokenizer::encodeText(const C* s, size_t n, const uint32_t* units, Encoding& out) {
  if constexpr (std::is_same_v<C, uint8_t>)
    if (splitter_.asciiBlocks()) return encodeAsciiBlocks(s, n, out);
  constexpr size_t kAhead = 8;  // a power of two
  Cut ring[kAhead];
  char spill[std::is_same_v<C, uint8_t> ? 1 : kAhead][kSpillBytes + 16];
  size_t cut = 0, done = 0;  // pieces cut so far, and encoded
  size_t i = 0, segment = 0;
  bool keep = true;
  TokenStage stage(out);
  for (;;) {
    while (cut - done < kAhead && i < n) {
      const size_t j = nextPiece(s, n, i, segment, keep);
      if (keep) {
        Cut& c = ring[cut % kAhead];
        c.first = i;
        c.last = j;
        c.bytes = cutBytes(s, i, j, spill[std::is_same_v<C, uint8_t> ? 0 : cut % kAhead], kSpillBytes, c.length, c.ascii);
        if (c.bytes) lookAhead(c);
        cut++;
      }
      i = j;
    }
    if (done == cut) break;
    const Cut& c = ring[done++ % kAhead];
    if (c.bytes) {
      encodeCut(s, c, units, stage);
    } else {
      stage.flush();
      encodePieceAt(s, c.first, c.last, units, out);
    }
  }
  stage.flush();
}

// encodeText for an ASCII text whose pieces the splitter cuts 64 bytes a step: the pieces that
// end in a block are cut at once (their hot entries prefetched), and looked up while the next
// block's are cut, so a whole block's lookups overlap with no ring to keep per piece.
void BpeTokenizer::encodeAsciiBlocks(const uint8_t* s, size_t n, Encoding& out) {
  Cut batch[2][65];  // a block's pieces: one per start bit, and the text's last
  size_t counts[2] = {0, 0};
  Splitter::AsciiCarry carry;
  TokenStage stage(out);
  size_t first = 0;  // the start of the piece not yet cut
  for (size_t at = 0, k = 0;; at += 64, k ^= 1) {
    size_t m = 0;
    if (at < n) {
      uint64_t starts = splitter_.asciiBlock(s, n, at, carry) & (at == 0 ? ~uint64_t{1} : ~uint64_t{0});
      const bool last = at + 64 >= n;
      for (; starts || (last && first < n); starts &= starts - 1) {
        const size_t end = starts ? at + static_cast<size_t>(__builtin_ctzll(starts)) : n;
        Cut& c = batch[k][m++];
        c.first = first;
        c.last = end;
        c.bytes = reinterpret_cast<const char*>(s + first);
        c.length = end - first;
        c.ascii = true;
        if (c.length <= kHotMaxBytes) {  // (lookAhead's common case, inline)
          c.hot = hotOf(c.bytes, c.length, c.low, c.high);
          prefetch(c.hot);
        } else {
          lookAhead(c);
        }
        first = end;
        if (!starts) break;
      }
    }
    for (size_t q = 0; q < counts[k ^ 1]; q++) {
      const Cut& c = batch[k ^ 1][q];
      const HotPiece* hot = c.hot;
      // (One test of the three words, not three branches: hits and misses come in no order.)
      if (hot && ((hot->low ^ c.low) | (hot->high ^ c.high) | (hot->length ^ c.length)) == 0)
        stage.pushHot(*hot, c.first, c.length);
      else
        encodeCut(s, c, nullptr, stage);
    }
    counts[k] = m;
    if (at >= n) break;
  }
  stage.flush();
}

// A cut piece's hot entry (or its hash, when it is longer than a hot entry's) and a prefetch of
// what its lookup reads first.
void BpeTokenizer::lookAhead(Cut& c) {
  if (c.length <= kHotMaxBytes) {
    c.hot = hotOf(c.bytes, c.length, c.low, c.high);
    prefetch(c.hot);
  } else {
    c.hot = nullptr;
    c.low = hashBytes(c.bytes, c.length);
    prefetch(&slots_[static_cast<size_t>(c.low) & (slots_.size() - 1)]);
  }
}

// The tokens of a cut piece, from its hot entry or the piece table, with their ranges: a token
// owns each code point it holds a byte of (in an ASCII piece, a code point per byte).
template <typename C>
void BpeTokenizer::encodeCut(const C* s, const Cut& c, const uint32_t* units, TokenStage& stage) {
  const int32_t* ids;
  const uint8_t* lens = nullptr;
  uint8_t hotLens[kHotTokens];
  size_t count;
  if (hotHit(c.hot, c.length, c.low, c.high)) {
    ids = c.hot->ids;
    count = c.hot->count;
    size_t rest = c.length;
    for (size_t k = 0; k + 1 < count; k++) rest -= (hotLens[k] = c.hot->bytes[k]);
    hotLens[count - 1] = static_cast<uint8_t>(rest);
    lens = hotLens;
  } else {
    refuseLongPiece(c.length);
    pieceIds_.clear();
    lookupOrMerge(c.bytes, c.length, c.hot ? hashBytes(c.bytes, c.length) : c.low, pieceIds_);
    keepHot(c.hot, c.length, c.low, c.high, pieceIds_);
    ids = pieceIds_.data();
    count = pieceIds_.size();
  }
  // An ASCII text's code points are its units (encode passes no map for it).
  constexpr bool kBytes = std::is_same_v<C, uint8_t>;
  auto unit = [units](size_t k) { return kBytes || !units ? k : static_cast<size_t>(units[k]); };
  if (count == 1) return stage.push(ids[0], unit(c.first), unit(c.last));
  auto bytesOf = [&](size_t k) -> size_t { return lens ? lens[k] : tokenBytes_[static_cast<size_t>(ids[k])]; };
  if (kBytes || c.ascii) {
    for (size_t k = 0, b = c.first; k < count; b += bytesOf(k), k++) stage.push(ids[k], unit(b), unit(b + bytesOf(k)));
    return;
  }
  // Code point cp holds the piece's bytes up to cpEnd: walked once, as the tokens' bytes are.
  size_t cp = c.first, cpEnd = utf8Length(s[cp]), b = 0;
  for (size_t k = 0; k < count; k++) {
    const size_t len = bytesOf(k);
    while (cpEnd <= b) cpEnd += utf8Length(s[++cp]);
    const size_t start = cp;
    while (cpEnd < b + len) cpEnd += utf8Length(s[++cp]);
    stage.push(ids[k], unit(start), unit(cp + 1));
    b += len;
  }
}

// The piece s[first, last): its UTF-8 bytes (the text itself on the byte path, else written
// once into bytes_), its ids, its tokens' ranges.
template <typename C>
void BpeTokenizer::encodePieceAt(const C* s, size_t first, size_t last, const uint32_t* units, Encoding& out) {
  const char* bytes;
  size_t n = 0;
  bool ascii = true;
  if constexpr (std::is_same_v<C, uint8_t>) {
    bytes = reinterpret_cast<const char*>(s + first);
    n = last - first;
  } else {
    const size_t most = (last - first) * (sizeof(C) == 2 ? 3 : 4) + 16;
    if (bytes_.size() < most) bytes_.resize(most);
    char* o = bytes_.data();
    for (size_t k = first; k < last; k++) {
      const uint32_t c = s[k];
      if (c < 0x80) {
        o[n++] = static_cast<char>(c);
      } else {
        ascii = false;
        n += putUtf8(o + n, c);
      }
    }
    bytes = o;
  }
  refuseLongPiece(n);
  pieceIds_.clear();
  encodePiece(bytes, n, pieceIds_);
  emitPiece(s, first, last, ascii, units, out);
  if (bytes_.size() > (1u << 24)) std::vector<char>().swap(bytes_);  // a huge piece's scratch goes back
}

// The piece [first, last) in code points has its ids in pieceIds_: each token's range is the
// code points it holds a byte of. A one-token piece is the whole piece; an ASCII piece has a
// code point per byte; otherwise bytes are mapped to code points once.
template <typename C>
void BpeTokenizer::emitPiece(const C* s, size_t first, size_t last, bool ascii, const uint32_t* units, Encoding& out) {
  auto unit = [units](size_t k) { return static_cast<int32_t>(units ? units[k] : k); };
  if (pieceIds_.size() == 1) {
    out.ids.push_back(pieceIds_[0]);
    out.starts.push_back(unit(first));
    out.ends.push_back(unit(last));
    return;
  }
  if (!ascii) {
    byteUnit_.clear();
    for (size_t k = first; k < last; k++) byteUnit_.insert(byteUnit_.end(), utf8Length(s[k]), static_cast<uint32_t>(k));
  }
  size_t b = 0;
  for (int32_t id : pieceIds_) {
    size_t len = tokenBytes_[static_cast<size_t>(id)];
    size_t startCp = ascii ? first + b : byteUnit_[b];
    size_t endCp = ascii ? first + b + len : byteUnit_[b + len - 1] + 1;
    out.ids.push_back(id);
    out.starts.push_back(unit(startCp));
    out.ends.push_back(unit(endCp));
    b += len;
  }
}

void BpeTokenizer::refuseLongPiece(size_t n) const {
  if (n > maxPieceBytes_) throw std::length_error("piece_too_long: one pre-tokenized piece of " + std::to_string(n) + " bytes (limit " + std::to_string(maxPieceBytes_) + ")");
}

// A piece of at most kHotTokens tokens is kept in its hot entry (replacing whatever was there).
void BpeTokenizer::keepHot(HotPiece* hot, size_t n, uint64_t low, uint64_t high, const std::vector<int32_t>& ids) const {
  if (!hot || ids.empty() || ids.size() > kHotTokens) return;
  HotPiece entry;
  entry.low = low;
  entry.high = high;
  const size_t count = ids.size();
  // (Bounded by kHotTokens again so the compiler sees the arrays' bounds.)
  for (size_t k = 0; k < kHotTokens && k < count; k++) entry.ids[k] = ids[k];
  for (size_t k = 0; k + 1 < kHotTokens && k + 1 < count; k++) entry.bytes[k] = static_cast<uint8_t>(tokenBytes_[static_cast<size_t>(ids[k])]);
  entry.length = static_cast<uint8_t>(n);
  entry.count = static_cast<uint8_t>(count);
  *hot = entry;
}

// The hot entry of a piece of at most 16 bytes, and its bytes as two words (zero past n). The
// piece's buffer has 16 readable bytes from its start (the scratch buffers' padding).
inline BpeTokenizer::HotPiece* BpeTokenizer::hotOf(const char* bytes, size_t n, uint64_t& low, uint64_t& high) {
  std::memcpy(&low, bytes, 8);
  std::memcpy(&high, bytes + 8, 8);
  low &= kPieceWordMasks[n].low;
  high &= kPieceWordMasks[n].high;
  const uint64_t h = (low ^ (high * 0xC2B2AE3D27D4EB4Full) ^ n) * 0x9E3779B97F4A7C15ull;
  return &hot_[h >> (64 - kHotBits)];
}

// `ids` comes empty: it gets the piece's own ids (kept whole in the hot entry).
void BpeTokenizer::encodePiece(const char* bytes, size_t n, std::vector<int32_t>& ids) {
  // Most pieces of real text are short and were seen a moment ago: two word compares first.
  uint64_t low = 0, high = 0;
  HotPiece* hot = n <= kHotMaxBytes ? hotOf(bytes, n, low, high) : nullptr;
  if (hotHit(hot, n, low, high)) {
    ids.insert(ids.end(), hot->ids, hot->ids + hot->count);
    return;
  }
  lookupOrMerge(bytes, n, hashBytes(bytes, n), ids);
  keepHot(hot, n, low, high, ids);
}

// The vocabulary and the pieces already encoded, in one probe: with ignore_merges a token's
// bytes are that token; otherwise the merges of a token's own bytes end in it (the table holds
// only such tokens: addVocabulary). On a miss, the merges, and the piece joins the table.
void BpeTokenizer::lookupOrMerge(const char* bytes, size_t n, uint64_t h, std::vector<int32_t>& ids) {
  size_t at = findSlot(bytes, n, h);
  const Slot& hit = slots_[at];
  if (hit.state == 1) {
    ids.push_back(hit.value);
    return;
  }
  if (hit.state == 2) {
    auto from = pieceIdArena_.begin() + static_cast<std::ptrdiff_t>(hit.value);
    ids.insert(ids.end(), from, from + hit.count);
    return;
  }
  size_t before = ids.size();
  mergeBytes(bytes, n, ids);
  if (n > cacheMaxBytes_ || cacheEntries_ == 0 || ids.size() - before > 0xFFFF) return;
  if (cached_ >= cacheEntries_) {
    clearCache();
    at = findSlot(bytes, n, h);
  }
  insertSlot(bytes, n, h, at, static_cast<int32_t>(pieceIdArena_.size()), static_cast<uint32_t>(ids.size() - before), true);
  pieceIdArena_.insert(pieceIdArena_.end(), ids.begin() + static_cast<std::ptrdiff_t>(before), ids.end());
  cached_++;
}

int32_t BpeTokenizer::pairRank(int32_t left, int32_t right) const {
  const uint64_t key = pairKey(left, right);
  const size_t mask = pairs_.size() - 1;
  for (size_t i = pairSlotOf(key, pairs_.size());; i = (i + 1) & mask) {
    const uint64_t s = pairs_[i];
    if (s == 0) return kNoMerge;
    if ((s >> kPairRankBits) == key) return static_cast<int32_t>(s & ((uint64_t{1} << kPairRankBits) - 1)) - 1;
  }
}

// The reference's BPE: merge the adjacent pair of lowest rank (leftmost on ties) until none is
// listed, with a heap of candidate pairs and a linked list of symbols: O(n log n). The symbols,
// links and heap are scratch kept between calls (a miss allocates nothing once they have grown).
void BpeTokenizer::mergeBytes(const char* bytes, size_t n, std::vector<int32_t>& ids) {
  if (n == 0) return;
  if (n <= kShortMergeBytes) return mergeShort(bytes, n, ids);
  std::vector<int32_t>& sym = sym_;
  std::vector<int32_t>& prev = prev_;
  std::vector<int32_t>& next = next_;
  sym.resize(n);
  prev.resize(n);
  next.resize(n);
  for (size_t k = 0; k < n; k++) {
    sym[k] = byteIds_[static_cast<uint8_t>(bytes[k])];
    prev[k] = static_cast<int32_t>(k) - 1;
    next[k] = k + 1 < n ? static_cast<int32_t>(k + 1) : -1;
  }
  using Cand = std::pair<int64_t, int32_t>;  // (rank << 32 | position, right symbol's position)
  std::vector<Cand>& heap = heap_;
  heap.clear();
  const auto later = std::greater<Cand>();
  auto push = [&](int32_t left) {
    int32_t right = next[static_cast<size_t>(left)];
    if (right < 0) return;
    const int32_t rank = pairRank(sym[static_cast<size_t>(left)], sym[static_cast<size_t>(right)]);
    if (rank != kNoMerge) {
      heap.emplace_back((static_cast<int64_t>(rank) << 32) | left, right);
      std::push_heap(heap.begin(), heap.end(), later);
    }
  };
  for (size_t k = 0; k + 1 < n; k++) push(static_cast<int32_t>(k));
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    auto [key, right] = heap.back();
    heap.pop_back();
    int32_t left = static_cast<int32_t>(key & 0xFFFFFFFF);
    int32_t rank = static_cast<int32_t>(key >> 32);
    // Stale: a side was merged away since this pair was pushed.
    if (sym[static_cast<size_t>(left)] < 0 || next[static_cast<size_t>(left)] != right || sym[static_cast<size_t>(right)] < 0) continue;
    if (pairRank(sym[static_cast<size_t>(left)], sym[static_cast<size_t>(right)]) != rank) continue;
    sym[static_cast<size_t>(left)] = mergedOf_[static_cast<size_t>(rank)];
    sym[static_cast<size_t>(right)] = -1;
    int32_t after = next[static_cast<size_t>(right)];
    next[static_cast<size_t>(left)] = after;
    if (after >= 0) prev[static_cast<size_t>(after)] = left;
    if (prev[static_cast<size_t>(left)] >= 0) push(prev[static_cast<size_t>(left)]);
    push(left);
  }
  for (int32_t k = 0; k >= 0; k = next[static_cast<size_t>(k)]) ids.push_back(sym[static_cast<size_t>(k)]);
  if (n > (1u << 20)) {
    // A huge piece's scratch goes back.
    std::vector<int32_t>().swap(sym_);
    std::vector<int32_t>().swap(prev_);
    std::vector<int32_t>().swap(next_);
    std::vector<Cand>().swap(heap_);
  }
}

// The same merges as mergeBytes for a piece of at most kShortMergeBytes: the lowest rank first,
// leftmost on ties, found by a scan of the pairs' ranks in arrays on the stack. For short pieces
// (most misses) the scan is cheaper than the heap with its stale entries and linked symbols.
void BpeTokenizer::mergeShort(const char* bytes, size_t n, std::vector<int32_t>& ids) const {
  int32_t sym[kShortMergeBytes], rank[kShortMergeBytes];
  size_t m = n;
  for (size_t k = 0; k < m; k++) sym[k] = byteIds_[static_cast<uint8_t>(bytes[k])];
  const uint8_t* b = reinterpret_cast<const uint8_t*>(bytes);
  for (size_t k = 0; k + 1 < m; k++) rank[k] = bytePairRank_[size_t{b[k]} << 8 | b[k + 1]];
  while (m > 1) {
    size_t best = 0;
    for (size_t k = 1; k + 1 < m; k++)
      if (rank[k] < rank[best]) best = k;
    if (rank[best] == kNoMerge) break;
    // sym[best] becomes the merge; sym[best + 1] and pair best + 1 go; the pairs after shift.
    sym[best] = mergedOf_[static_cast<size_t>(rank[best])];
    std::memmove(sym + best + 1, sym + best + 2, (m - best - 2) * sizeof(int32_t));
    if (m > best + 3) std::memmove(rank + best + 1, rank + best + 2, (m - best - 3) * sizeof(int32_t));
    m--;
    if (best > 0) rank[best - 1] = pairRank(sym[best - 1], sym[best]);
    if (best + 1 < m) rank[best] = pairRank(sym[best], sym[best + 1]);
  }
  ids.insert(ids.end(), sym, sym + m);
}

}  // namespace midpack
