#include "bpe_tokenizer.hpp"

#include <queue>
#include <string>
#include <stdexcept>
#include <utility>

namespace midpack {

namespace {

inline bool isNewline(uint32_t c) { return c == '\r' || c == '\n'; }

inline uint32_t lower(uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at i: its length in code points, or 0.
size_t contraction(const std::u32string& s, size_t i) {
  if (s[i] != '\'' || i + 1 >= s.size()) return 0;
  uint32_t a = lower(s[i + 1]);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= s.size()) return 0;
  uint32_t b = lower(s[i + 2]);
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

void appendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

inline uint64_t pairKey(int32_t a, int32_t b) { return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b); }

}  // namespace

BpeTokenizer::BpeTokenizer(BpeConfig config)
    : byteIds_(std::move(config.byteIds)),
      classes_(std::move(config.classes)),
      maxDigits_(config.maxDigits),
      ignoreMerges_(config.ignoreMerges),
      cacheEntries_(config.cacheEntries),
      cacheMaxBytes_(config.cacheMaxBytes),
      maxPieceBytes_(config.maxPieceBytes) {
  if (byteIds_.size() != 256) throw std::invalid_argument("BpeTokenizer: 256 byte ids expected");
  if (config.merges.size() % 3 != 0) throw std::invalid_argument("BpeTokenizer: merges come in (left, right, merged) triples");
  int32_t maxId = 0;
  for (int32_t id : byteIds_) maxId = std::max(maxId, id);
  for (int32_t id : config.merges) maxId = std::max(maxId, id);
  // Every token's bytes: a single byte, or its merge's two parts.
  std::vector<std::string> bytes(static_cast<size_t>(maxId) + 1);
  for (int b = 0; b < 256; b++) bytes[static_cast<size_t>(byteIds_[b])] = std::string(1, static_cast<char>(b));
  size_t m = config.merges.size() / 3;
  pairs_.reserve(m * 2);
  for (size_t r = 0; r < m; r++) {
    int32_t a = config.merges[3 * r], b = config.merges[3 * r + 1], c = config.merges[3 * r + 2];
    if (a < 0 || b < 0 || c < 0) throw std::invalid_argument("BpeTokenizer: negative id in a merge");
    pairs_.emplace(pairKey(a, b), Merge{static_cast<int32_t>(r), c});
    bytes[static_cast<size_t>(c)] = bytes[static_cast<size_t>(a)] + bytes[static_cast<size_t>(b)];
  }
  tokenBytes_.resize(bytes.size());
  vocab_.reserve(bytes.size() * 2);
  for (size_t id = 0; id < bytes.size(); id++) {
    tokenBytes_[id] = static_cast<uint32_t>(bytes[id].size());
    if (!bytes[id].empty()) vocab_.emplace(bytes[id], static_cast<int32_t>(id));
  }
}

// The end of the piece that starts at code point i (one of the pattern's alternatives, in order).
size_t BpeTokenizer::pieceEnd(const std::u32string& s, size_t i) const {
  const size_t n = s.size();
  if (size_t k = contraction(s, i)) return i + k;
  uint8_t c = classOf(s[i]);
  // [^\r\n\p{L}\p{N}]?\p{L}+
  size_t j = i;
  if (!(c & kLetter) && !(c & kNumber) && !isNewline(s[i]) && i + 1 < n && (classOf(s[i + 1]) & kLetter)) j = i + 1;
  if (classOf(s[j]) & kLetter) {
    while (j < n && (classOf(s[j]) & kLetter)) j++;
    return j;
  }
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
  // The white-space run: \s*[\r\n]+ to its last line break, else \s+(?!\S), else \s+.
  j = i;
  size_t lastNewline = n;
  while (j < n && (classOf(s[j]) & kSpace)) {
    if (isNewline(s[j])) lastNewline = j;
    j++;
  }
  if (j == i) return i + 1;  // no alternative matches one character: it is a piece of its own
  if (lastNewline != n) return lastNewline + 1;
  if (j == n || j - i == 1) return j;
  return j - 1;
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

void BpeTokenizer::split(const char16_t* text, size_t n, std::vector<uint32_t>& bounds) const {
  std::u32string cps;
  std::vector<uint32_t> units;
  decodeUtf16(text, n, cps, units);
  for (size_t i = 0; i < cps.size();) {
    size_t j = pieceEnd(cps, i);
    bounds.push_back(units[i]);
    bounds.push_back(units[j]);
    i = j;
  }
}

void BpeTokenizer::encode(const char16_t* text, size_t n, Encoding& out) {
  cps_.clear();
  units_.clear();
  decodeUtf16(text, n, cps_, units_);
  for (size_t i = 0; i < cps_.size();) {
    size_t j = pieceEnd(cps_, i);
    bytes_.clear();
    byteUnit_.clear();
    for (size_t k = i; k < j; k++) {
      size_t before = bytes_.size();
      appendUtf8(bytes_, cps_[k]);
      byteUnit_.insert(byteUnit_.end(), bytes_.size() - before, static_cast<uint32_t>(k));
    }
    if (bytes_.size() > maxPieceBytes_) throw std::length_error("piece_too_long: one pre-tokenized piece of " + std::to_string(bytes_.size()) + " bytes (limit " + std::to_string(maxPieceBytes_) + ")");
    pieceIds_.clear();
    encodePiece(bytes_, pieceIds_);
    size_t b = 0;
    for (int32_t id : pieceIds_) {
      size_t len = tokenBytes_[static_cast<size_t>(id)];
      out.ids.push_back(id);
      out.starts.push_back(static_cast<int32_t>(units_[byteUnit_[b]]));
      out.ends.push_back(static_cast<int32_t>(units_[byteUnit_[b + len - 1] + 1]));
      b += len;
    }
    i = j;
  }
}

void BpeTokenizer::encodePiece(const std::string& bytes, std::vector<int32_t>& ids) {
  // The vocabulary first: with ignore_merges a token's bytes are that token; otherwise the
  // merges of a token's own bytes end in it whenever they are listed in rank order (the
  // TypeScript side checks that before it picks this backend).
  auto v = vocab_.find(bytes);
  if (v != vocab_.end()) {
    ids.push_back(v->second);
    return;
  }
  bool keep = bytes.size() <= cacheMaxBytes_;
  if (keep) {
    auto hit = cache_.find(bytes);
    if (hit != cache_.end()) {
      ids.insert(ids.end(), hit->second.begin(), hit->second.end());
      return;
    }
  }
  size_t at = ids.size();
  mergeBytes(bytes, ids);
  if (!keep) return;
  if (cache_.size() >= cacheEntries_) cache_.clear();  // bounded: a full table starts over
  cache_.emplace(bytes, std::vector<int32_t>(ids.begin() + static_cast<std::ptrdiff_t>(at), ids.end()));
}

// The reference's BPE: merge the adjacent pair of lowest rank (leftmost on ties) until none is
// listed, with a heap of candidate pairs and a linked list of symbols: O(n log n).
void BpeTokenizer::mergeBytes(const std::string& bytes, std::vector<int32_t>& ids) const {
  const size_t n = bytes.size();
  if (n == 0) return;
  std::vector<int32_t> sym(n);
  std::vector<int32_t> prev(n), next(n);
  for (size_t k = 0; k < n; k++) {
    sym[k] = byteIds_[static_cast<uint8_t>(bytes[k])];
    prev[k] = static_cast<int32_t>(k) - 1;
    next[k] = k + 1 < n ? static_cast<int32_t>(k + 1) : -1;
  }
  using Cand = std::pair<int64_t, int32_t>;  // (rank << 32 | position, right symbol's position)
  std::priority_queue<Cand, std::vector<Cand>, std::greater<Cand>> heap;
  auto push = [&](int32_t left) {
    int32_t right = next[static_cast<size_t>(left)];
    if (right < 0) return;
    auto it = pairs_.find(pairKey(sym[static_cast<size_t>(left)], sym[static_cast<size_t>(right)]));
    if (it != pairs_.end()) heap.emplace((static_cast<int64_t>(it->second.rank) << 32) | left, right);
  };
  for (size_t k = 0; k + 1 < n; k++) push(static_cast<int32_t>(k));
  while (!heap.empty()) {
    auto [key, right] = heap.top();
    heap.pop();
    int32_t left = static_cast<int32_t>(key & 0xFFFFFFFF);
    int32_t rank = static_cast<int32_t>(key >> 32);
    // Stale: a side was merged away since this pair was pushed.
    if (sym[static_cast<size_t>(left)] < 0 || next[static_cast<size_t>(left)] != right || sym[static_cast<size_t>(right)] < 0) continue;
    auto it = pairs_.find(pairKey(sym[static_cast<size_t>(left)], sym[static_cast<size_t>(right)]));
    if (it == pairs_.end() || it->second.rank != rank) continue;
    sym[static_cast<size_t>(left)] = it->second.merged;
    sym[static_cast<size_t>(right)] = -1;
    int32_t after = next[static_cast<size_t>(right)];
    next[static_cast<size_t>(left)] = after;
    if (after >= 0) prev[static_cast<size_t>(after)] = left;
    if (prev[static_cast<size_t>(left)] >= 0) push(prev[static_cast<size_t>(left)]);
    push(left);
  }
  for (int32_t k = 0; k >= 0; k = next[static_cast<size_t>(k)]) ids.push_back(sym[static_cast<size_t>(k)]);
}

}  // namespace midpack
