#include "json_string.hpp"

namespace midpack {
namespace {

inline bool isHigh(uint16_t c) { return c >= 0xD800 && c <= 0xDBFF; }
inline bool isLow(uint16_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

// The escape letter of a short escape (b t n f r " \), or 0 when the unit has none.
inline char shortEscape(uint16_t c) {
  switch (c) {
    case 0x08: return 'b';
    case 0x09: return 't';
    case 0x0A: return 'n';
    case 0x0C: return 'f';
    case 0x0D: return 'r';
    case 0x22: return '"';
    case 0x5C: return '\\';
    default: return 0;
  }
}

const char kHex[] = "0123456789abcdef";

inline uint8_t* unicodeEscape(uint16_t c, uint8_t* o) {
  *o++ = '\\';
  *o++ = 'u';
  for (int shift = 12; shift >= 0; shift -= 4) *o++ = static_cast<uint8_t>(kHex[(c >> shift) & 0xF]);
  return o;
}

}  // namespace

size_t jsonStringUtf8Length(const uint16_t* text, size_t n) {
  size_t bytes = 2;
  for (size_t i = 0; i < n; i++) {
    const uint16_t c = text[i];
    if (c < 0x80) bytes += c >= 0x20 && c != 0x22 && c != 0x5C ? 1 : shortEscape(c) ? 2 : 6;
    else if (c < 0x800) bytes += 2;
    else if (isHigh(c) && i + 1 < n && isLow(text[i + 1])) bytes += 4, i++;
    else if (isHigh(c) || isLow(c)) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

size_t jsonStringUtf8(const uint16_t* text, size_t n, uint8_t* out) {
  uint8_t* o = out;
  *o++ = '"';
  for (size_t i = 0; i < n; i++) {
    const uint16_t c = text[i];
    if (c < 0x80) {
      if (c >= 0x20 && c != 0x22 && c != 0x5C) {
        *o++ = static_cast<uint8_t>(c);
      } else if (char e = shortEscape(c)) {
        *o++ = '\\';
        *o++ = static_cast<uint8_t>(e);
      } else {
        o = unicodeEscape(c, o);
      }
    } else if (c < 0x800) {
      *o++ = static_cast<uint8_t>(0xC0 | (c >> 6));
      *o++ = static_cast<uint8_t>(0x80 | (c & 0x3F));
    } else if (isHigh(c) && i + 1 < n && isLow(text[i + 1])) {
      const uint32_t cp = 0x10000 + ((static_cast<uint32_t>(c) - 0xD800) << 10) + (text[++i] - 0xDC00);
      *o++ = static_cast<uint8_t>(0xF0 | (cp >> 18));
      *o++ = static_cast<uint8_t>(0x80 | ((cp >> 12) & 0x3F));
      *o++ = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
      *o++ = static_cast<uint8_t>(0x80 | (cp & 0x3F));
    } else if (isHigh(c) || isLow(c)) {
      o = unicodeEscape(c, o);
    } else {
      *o++ = static_cast<uint8_t>(0xE0 | (c >> 12));
      *o++ = static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F));
      *o++ = static_cast<uint8_t>(0x80 | (c & 0x3F));
    }
  }
  *o++ = '"';
  return static_cast<size_t>(o - out);
}

}  // namespace midpack
