#include "json_string.hpp"

#include <cstring>

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

}  // namespace

size_t jsonStringLength(const uint8_t* utf8, size_t n) {
  size_t bytes = n + 2;
  for (size_t i = 0; i < n; i++) {
    const char e = kEscape.of[utf8[i]];
    if (e) bytes += e == 'u' ? 5 : 1;
  }
  return bytes;
}

size_t jsonStringOfUtf8(const uint8_t* utf8, size_t n, uint8_t* out) {
  uint8_t* o = out;
  *o++ = '"';
  size_t from = 0;
  for (size_t i = 0; i < n; i++) {
    const char e = kEscape.of[utf8[i]];
    if (!e) continue;
    std::memcpy(o, utf8 + from, i - from);
    o += i - from;
    from = i + 1;
    *o++ = '\\';
    *o++ = static_cast<uint8_t>(e);
    if (e == 'u') {
      *o++ = '0';
      *o++ = '0';
      *o++ = static_cast<uint8_t>(kHex[utf8[i] >> 4]);
      *o++ = static_cast<uint8_t>(kHex[utf8[i] & 0xF]);
    }
  }
  std::memcpy(o, utf8 + from, n - from);
  o += n - from;
  *o++ = '"';
  return static_cast<size_t>(o - out);
}

}  // namespace midpack
