#include "json_string.hpp"

#include <cstring>
#include <initializer_list>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace midpack {
namespace {

// Per byte: 0 when written as it is, else the escape's letter (b t n f r " \), or 'u' for \u00xx.
struct EscapeTable {
  char of[256];
  EscapeTable() {
    for (int c = 0; c < 256; c++) of[c] = c < 0x20 ? 'u' : 0;
    of[0x08] = 'b';
    of[0x09] = 't';
    of[0x0A] = 'n';
    of[0x0C] = 'f';
    of[0x0D] = 'r';
    of['"'] = '"';
    of['\\'] = '\\';
  }
};
const EscapeTable kEscape;
const char kHex[] = "0123456789abcdef";

#if defined(__SSE2__)
// The bytes of v that are escaped: control characters (0x00-0x1F: max(v, 0x1F) is 0x1F), '"', '\\'.
inline __m128i escapedBytes(__m128i v) {
  const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F));
  return _mm_or_si128(control, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
}
#endif

// Writes the escape of byte c (kEscape.of[c] is e, not 0) at o; returns the end.
inline uint8_t* escapeInto(uint8_t* o, uint8_t c, char e) {
  *o++ = '\\';
  *o++ = static_cast<uint8_t>(e);
  if (e == 'u') {
    *o++ = '0';
    *o++ = '0';
    *o++ = static_cast<uint8_t>(kHex[c >> 4]);
    *o++ = static_cast<uint8_t>(kHex[c & 0xF]);
  }
  return o;
}

}  // namespace

size_t jsonStringLength(const uint8_t* utf8, size_t n) {
  size_t bytes = n + 2;
  size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes a step: an escaped byte adds 1 (its backslash), or 5 for \u00xx (a control
  // character but \b \t \n \f \r); a step with none adds nothing.
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(utf8 + i));
    const unsigned escaped = static_cast<unsigned>(_mm_movemask_epi8(escapedBytes(v)));
    if (!escaped) continue;
    bytes += static_cast<size_t>(__builtin_popcount(escaped));
    const unsigned control = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F))));
    if (!control) continue;
    __m128i letter = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x08));
    for (char c : {0x09, 0x0A, 0x0C, 0x0D}) letter = _mm_or_si128(letter, _mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
    bytes += 4 * static_cast<size_t>(__builtin_popcount(control & ~static_cast<unsigned>(_mm_movemask_epi8(letter))));
  }
#endif
  for (; i < n; i++) {
    const char e = kEscape.of[utf8[i]];
    if (e) bytes += e == 'u' ? 5 : 1;
  }
  return bytes;
}

size_t jsonStringOfUtf8(const uint8_t* utf8, size_t n, uint8_t* out) {
  uint8_t* o = out;
  *o++ = '"';
  size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes a step, stored whole; at the step's first escaped byte the bytes before it stand,
  // its escape follows and the walk goes on after it. The store stays within the literal's room:
  // past byte i, out holds 1 + i + (the escapes so far) bytes, and i + 16 <= n.
  while (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(utf8 + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), v);
    const unsigned escaped = static_cast<unsigned>(_mm_movemask_epi8(escapedBytes(v)));
    if (!escaped) {
      i += 16;
      o += 16;
      continue;
    }
    const size_t k = static_cast<size_t>(__builtin_ctz(escaped));
    o = escapeInto(o + k, utf8[i + k], kEscape.of[utf8[i + k]]);
    i += k + 1;
  }
#endif
  size_t from = i;
  for (; i < n; i++) {
    const char e = kEscape.of[utf8[i]];
    if (!e) continue;
    std::memcpy(o, utf8 + from, i - from);
    o = escapeInto(o + (i - from), utf8[i], e);
    from = i + 1;
  }
  std::memcpy(o, utf8 + from, n - from);
  o += n - from;
  *o++ = '"';
  return static_cast<size_t>(o - out);
}

}  // namespace midpack
