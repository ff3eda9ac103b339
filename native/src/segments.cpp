#include "segments.hpp"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace midpack {
namespace {

constexpr uint64_t P1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t P2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t P3 = 0x165667B19E3779F9ULL;
constexpr uint64_t P4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t P5 = 0x27D4EB2F165667C5ULL;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// XXH64 reads its input little-endian; memcpy is an unaligned load on the little-endian hosts we build for.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "xxh64 here reads words little-endian");
inline uint64_t read64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t read32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline bool trimmedSpace(uint16_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D);
  if (c < 0xA0) return false;
  return c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

// The first '\n' unit of text[from, length), or length: memchr over the bytes (vectorized by the C
// library) for 0x0A, kept where it is the low byte of a unit whose high byte is 0.
inline size_t newlineFrom(const uint16_t* text, size_t from, size_t length) {
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(text);
  for (size_t at = 2 * from, end = 2 * length; at < end;) {
    const void* hit = std::memchr(bytes + at, '\n', end - at);
    if (!hit) break;
    size_t k = size_t(static_cast<const uint8_t*>(hit) - bytes);
    if (k % 2 == 0 && bytes[k + 1] == 0) return k / 2;
    at = k + 1;
  }
  return length;
}

inline uint64_t round(uint64_t acc, uint64_t input) { return rotl(acc + input * P2, 31) * P1; }
inline uint64_t mergeRound(uint64_t acc, uint64_t v) { return (acc ^ round(0, v)) * P1 + P4; }

}  // namespace

uint64_t xxh64(const uint8_t* p, size_t len) {
  const uint8_t* end = p + len;
  uint64_t h;
  if (len >= 32) {
    uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
    for (const uint8_t* limit = end - 32; p <= limit; p += 32) {
      v1 = round(v1, read64(p));
      v2 = round(v2, read64(p + 8));
      v3 = round(v3, read64(p + 16));
      v4 = round(v4, read64(p + 24));
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = mergeRound(mergeRound(mergeRound(mergeRound(h, v1), v2), v3), v4);
  } else {
    h = P5;
  }
  h += len;
  for (; p + 8 <= end; p += 8) h = rotl(h ^ round(0, read64(p)), 27) * P1 + P4;
  if (p + 4 <= end) {
    h = rotl(h ^ (read32(p) * P1), 23) * P2 + P3;
    p += 4;
  }
  for (; p < end; p++) h = rotl(h ^ (*p * P5), 11) * P1;
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

bool isTrimmedSpace(uint16_t c) { return trimmedSpace(c); }

bool allLatin1(const uint16_t* t, size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  // Eight units a step, their bits ORed: a unit of U+0100 or more sets a bit of 0xFF00.
  __m128i any = _mm_setzero_si128();
  for (; i + 8 <= n; i += 8) any = _mm_or_si128(any, _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + i)));
  if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(any, _mm_set1_epi16(int16_t(0xFF00))), _mm_setzero_si128())) != 0xFFFF) return false;
#endif
  uint16_t rest = 0;
  for (; i < n; i++) rest |= t[i];
  return rest < 0x100;
}

bool wellFormedUtf16(const uint16_t* t, size_t n) {
  for (size_t i = 0; i < n; i++) {
#if defined(__SSE2__)
    // Eight units at a time while none is a surrogate (0xD800-0xDFFF: its top five bits 11011).
    for (; i + 8 <= n; i += 8) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + i));
      if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16(int16_t(0xF800))), _mm_set1_epi16(int16_t(0xD800))))) break;
    }
    if (i >= n) break;
#endif
    const uint16_t c = t[i];
    if (c < 0xD800 || c > 0xDFFF) continue;
    if (c <= 0xDBFF && i + 1 < n && t[i + 1] >= 0xDC00 && t[i + 1] <= 0xDFFF) i++;
    else return false;
  }
  return true;
}

size_t utf8Of(const uint16_t* t, size_t from, size_t to, uint8_t* out) {
  uint8_t* o = out;
  for (size_t i = from; i < to; i++) {
#if defined(__SSE2__)
    // Eight ASCII units at a time, narrowed to their bytes (most lines are all ASCII): a unit
    // under 0x80 has no bit of 0xFF80 set, and packus keeps such a unit's low byte.
    for (; i + 8 <= to; i += 8, o += 8) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + i));
      if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16(int16_t(0xFF80))), _mm_setzero_si128())) != 0xFFFF) break;
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o), _mm_packus_epi16(v, v));
    }
    if (i >= to) break;
#endif
    uint32_t c = t[i];
    if (c < 0x80) {
      *o++ = uint8_t(c);
      continue;
    }
    if (c >= 0xD800 && c <= 0xDFFF) {
      // A high surrogate followed by a low one is one code point; any other surrogate is U+FFFD.
      if (c <= 0xDBFF && i + 1 < to && t[i + 1] >= 0xDC00 && t[i + 1] <= 0xDFFF) {
        c = 0x10000 + ((c - 0xD800) << 10) + (t[++i] - 0xDC00);
      } else {
        c = 0xFFFD;
      }
    }
    if (c < 0x800) {
      *o++ = uint8_t(0xC0 | c >> 6);
    } else if (c < 0x10000) {
      *o++ = uint8_t(0xE0 | c >> 12);
      *o++ = uint8_t(0x80 | ((c >> 6) & 0x3F));
    } else {
      *o++ = uint8_t(0xF0 | c >> 18);
      *o++ = uint8_t(0x80 | ((c >> 12) & 0x3F));
      *o++ = uint8_t(0x80 | ((c >> 6) & 0x3F));
    }
    *o++ = uint8_t(0x80 | (c & 0x3F));
  }
  return size_t(o - out);
}

void LineSegmenter::clearSeen() {
  // Only the slots this document used: a long document's table is not wiped for every short one.
  for (size_t i : used_) seen_[i] = 0;
  used_.clear();
  seenSize_ = 0;
  seenZero_ = false;
}

bool LineSegmenter::firstOccurrence(uint64_t h) {
  if (h == 0) return seenZero_ ? false : (seenZero_ = true);
  if ((seenSize_ + 1) * 2 > seen_.size()) {
    std::vector<uint64_t> old(std::max<size_t>(1024, seen_.size() * 2), 0);
    old.swap(seen_);
    used_.clear();
    seenSize_ = 0;
    for (uint64_t k : old)
      if (k) firstOccurrence(k);
  }
  size_t mask = seen_.size() - 1;
  for (size_t i = size_t(h ^ (h >> 29)) & mask;; i = (i + 1) & mask) {
    if (seen_[i] == h) return false;
    if (seen_[i] == 0) {
      seen_[i] = h;
      used_.push_back(i);
      seenSize_++;
      return true;
    }
  }
}

void LineSegmenter::segment(const uint16_t* text, size_t length, const uint32_t* specials, size_t specialPairs,
                            uint32_t minChars, bool distinct, std::vector<uint32_t>& out) {
  out.clear();
  if (distinct) clearSeen();
  size_t s = 0;  // first special span that may still touch a later line
  for (size_t start = 0; start < length;) {
    size_t lineEnd = newlineFrom(text, start, length);
    size_t next = lineEnd < length ? lineEnd + 1 : length;
    while (s < specialPairs && specials[2 * s + 1] <= start) s++;
    bool touchesSpecial = s < specialPairs && specials[2 * s] < lineEnd;
    if (!touchesSpecial && lineEnd - start >= minChars) {
      size_t a = start, b = lineEnd;
      while (a < b && trimmedSpace(text[a])) a++;
      while (b > a && trimmedSpace(text[b - 1])) b--;
      if (b - a >= minChars) {
        // A UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair: 4 for 2 units); grown, never shrunk.
        if (utf8_.size() < 3 * (b - a)) utf8_.resize(3 * (b - a));
        uint64_t h = xxh64(utf8_.data(), utf8Of(text, a, b, utf8_.data()));
        if (!distinct || firstOccurrence(h)) {
          out.push_back(uint32_t(h >> 32));
          out.push_back(uint32_t(h));
          out.push_back(uint32_t(start));
          out.push_back(uint32_t(lineEnd));
        }
      }
    }
    start = next;
  }
}

}  // namespace midpack
