#include "json_text.hpp"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace midpack {
namespace {

bool isSpace(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t skipSpace(const uint8_t* s, size_t i, size_t n) {
  while (i < n && isSpace(s[i])) i++;
  return i;
}

// s[i] is an opening quote: the index past its closing quote, or n when it has none. A quote
// closes the string when an even number of backslashes comes right before it (pairs of "\\":
// no other escape ends in a backslash).
size_t endOfString(const uint8_t* s, size_t i, size_t n) {
  const size_t start = i + 1;
  for (i = start; i < n;) {
    const auto* q = static_cast<const uint8_t*>(std::memchr(s + i, '"', n - i));
    if (!q) return n;
    size_t back = static_cast<size_t>(q - s);
    while (back > start && s[back - 1] == '\\') back--;
    const size_t end = static_cast<size_t>(q - s);
    if ((end - back) % 2 == 0) return end + 1;
    i = end + 1;
  }
  return n;
}

// The index past the value starting at s[i] (an object, array, string or scalar); n when it does not end.
size_t endOfValue(const uint8_t* s, size_t i, size_t n) {
  if (i >= n) return n;
  if (s[i] == '"') return endOfString(s, i, n);
  if (s[i] != '{' && s[i] != '[') {
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && !isSpace(s[i])) i++;
    return i;
  }
  size_t depth = 0;
  while (i < n) {
    const uint8_t c = s[i];
    if (c == '"') {
      i = endOfString(s, i, n);
      continue;
    }
    if (c == '{' || c == '[') depth++;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    i++;
  }
  return n;
}

int hexDigit(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The character of the escape at s[i] (past its backslash), and its length in `len`; -1 when
// JSON does not allow it.
int escapeAt(const uint8_t* s, size_t i, size_t n, size_t& len) {
  if (i >= n) return -1;
  len = 1;
  switch (s[i]) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'u': break;
    default: return -1;
  }
  if (n - i < 5) return -1;
  int v = 0;
  for (size_t k = 1; k <= 4; k++) {
    const int d = hexDigit(s[i + k]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  len = 5;
  return v;
}

// The index of the first byte at or past i that is not ASCII, a control character or a backslash
// (n when none): 16 bytes a step with SSE2 (x86-64's baseline), as a signed compare below 0x20
// takes both the bytes over 0x7F and the control characters.
size_t nextSpecial(const uint8_t* s, size_t i, size_t n) {
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20);
  const __m128i backslash = _mm_set1_epi8('\\');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const int hits = _mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, backslash)));
    if (hits) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(hits)));
  }
#endif
  while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '\\') i++;
  return i;
}

// The UTF-8 of one character at s[i] (its lead byte says how many bytes), as a code point in
// `cp`: its length, or 0 when the bytes are not UTF-8 this reads. `strict` also refuses what a
// fatal UTF-8 decoder refuses: a lead byte past 0xF4, an overlong form, a surrogate's code point,
// one past U+10FFFF.
size_t utf8At(const uint8_t* s, size_t i, size_t n, bool strict, uint32_t& cp) {
  const uint8_t c = s[i];
  const size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (len == 0 || n - i < len) return 0;
  cp = c & (0x7F >> len);
  for (size_t k = 1; k < len; k++) {
    if ((s[i + k] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i + k] & 0x3F);
  }
  if (strict && (c >= 0xF5 || cp < (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)) return 0;
  return len;
}

}  // namespace

bool jsonStringField(const uint8_t* line, size_t n, std::string_view key, size_t& from, size_t& to) {
  size_t i = skipSpace(line, 0, n);
  if (i >= n || line[i] != '{') return false;
  bool found = false;
  for (i = skipSpace(line, i + 1, n); i < n && line[i] != '}';) {
    if (line[i] != '"') return false;
    const size_t keyEnd = endOfString(line, i, n);
    if (keyEnd >= n) return false;
    // A key with an escape may spell `key` another way: the caller reads such lines as before.
    if (std::memchr(line + i + 1, '\\', keyEnd - i - 2)) return false;
    const bool match = std::string_view(reinterpret_cast<const char*>(line) + i + 1, keyEnd - i - 2) == key;
    i = skipSpace(line, keyEnd, n);
    if (i >= n || line[i] != ':') return false;
    i = skipSpace(line, i + 1, n);
    const size_t end = endOfValue(line, i, n);
    if (end >= n) return false;
    if (match) {
      if (found || line[i] != '"') return false;
      found = true;
      from = i;
      to = end;
    }
    i = skipSpace(line, end, n);
    if (i < n && line[i] == ',') i = skipSpace(line, i + 1, n);
    else if (i >= n || line[i] != '}') return false;
  }
  return found;
}

long jsonAsciiLength(const uint8_t* s, size_t n) {
  long length = 0;
  for (size_t i = 0; i < n; i++, length++) {
    const size_t next = nextSpecial(s, i, n);
    length += static_cast<long>(next - i);
    if ((i = next) >= n) break;
    const uint8_t c = s[i];
    if (c >= 0x80 || c < 0x20) return -1;  // not ASCII, or a control character JSON does not allow unescaped
    if (c != '\\') continue;
    size_t len = 0;
    const int v = escapeAt(s, i + 1, n, len);
    if (v < 0 || v >= 0x80) return -1;
    i += len;
  }
  return length;
}

size_t unescapeJsonAscii(const uint8_t* s, size_t n, char* out) {
  char* o = out;
  for (size_t i = 0; i < n;) {
#if defined(__SSE2__)
    // 16 bytes copied a step up to the next backslash (the output is never longer than the input).
    const __m128i backslash = _mm_set1_epi8('\\');
    for (; i + 16 <= n; i += 16, o += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), v);
      const int hits = _mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash));
      if (!hits) continue;
      const size_t k = static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(hits)));
      i += k;
      o += k;
      break;
    }
#endif
    while (i < n && s[i] != '\\') *o++ = static_cast<char>(s[i++]);
    if (i >= n) break;
    size_t len = 0;
    *o++ = static_cast<char>(escapeAt(s, i + 1, n, len));
    i += len + 1;
  }
  return static_cast<size_t>(o - out);
}

bool jsonStringUnits(const uint8_t* s, size_t n, size_t& at, size_t& unit, size_t start, size_t end, std::vector<uint16_t>& out) {
  out.clear();
  if (unit > start) return false;
  size_t i = at, u = unit;
  auto emit = [&](uint32_t v) {
    if (u >= start && u < end) out.push_back(uint16_t(v));
    u++;
  };
  bool ok = true;
  while (i < n && u < end) {
    const uint8_t c = s[i];
    if (c < 0x80 && c != '\\') {
      // A run of plain ASCII (most of a text) is a unit a byte: its part in [start, end) copied at once.
      size_t run = std::max(nextSpecial(s, i, n), i + 1);  // a raw control character (not JSON) is a unit too
      if (run - i > end - u) run = i + (end - u);
      const size_t from = u < start ? i + std::min(run - i, start - u) : i;
      out.insert(out.end(), s + from, s + run);
      u += run - i;
      i = run;
      continue;
    }
    if (c == '\\') {
      size_t len = 0;
      const int v = escapeAt(s, i + 1, n, len);
      if (v < 0) {
        ok = false;
        break;
      }
      emit(uint32_t(v));
      i += len + 1;
      continue;
    }
    // UTF-8 of one character; four bytes stand for a surrogate pair.
    uint32_t cp = 0;
    const size_t len = utf8At(s, i, n, false, cp);
    if (len == 0) {
      ok = false;
      break;
    }
    if (cp >= 0x10000) {
      emit(0xD800 + ((cp - 0x10000) >> 10));
      emit(0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
      emit(cp);
    }
    i += len;
  }
  if (!ok) return false;
  at = i;
  unit = u;
  return u >= end;
}

size_t jsonStringAllUnits(const uint8_t* s, size_t n, uint16_t* out, size_t& units, bool strict) {
  uint16_t* o = out;
  size_t i = 0;
  while (i < n) {
#if defined(__SSE2__)
    // Sixteen bytes a step, widened to units and stored whole; where the step holds a byte that is
    // not plain ASCII (a signed compare below 0x20 also takes 0x80 and up) or a backslash, the
    // units before it stand and the walk goes on from it (the rest of the store is overwritten).
    const __m128i space = _mm_set1_epi8(0x20), backslash = _mm_set1_epi8('\\'), zero = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16, o += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_unpacklo_epi8(v, zero));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 8), _mm_unpackhi_epi8(v, zero));
      const int hits = _mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, backslash)));
      if (!hits) continue;
      const size_t k = static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(hits)));
      i += k;
      o += k;
      break;
    }
    if (i >= n) break;
#endif
    const uint8_t c = s[i];
    if (c < 0x80 && c != '\\') {  // a raw control character (not JSON) is a unit too, as jsonStringUnits reads it
      if (strict && c < 0x20) break;
      *o++ = c;
      i++;
      continue;
    }
    if (c == '\\') {
      size_t len = 0;
      const int v = escapeAt(s, i + 1, n, len);
      if (v < 0) break;
      *o++ = uint16_t(v);
      i += len + 1;
      continue;
    }
    uint32_t cp = 0;
    const size_t len = utf8At(s, i, n, strict, cp);
    if (len == 0) break;
    if (cp >= 0x10000) {
      *o++ = uint16_t(0xD800 + ((cp - 0x10000) >> 10));
      *o++ = uint16_t(0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
      *o++ = uint16_t(cp);
    }
    i += len;
  }
  units = size_t(o - out);
  return i;
}

}  // namespace midpack
