#pragma once
// A well-formed text's UTF-8 bytes as a JSON string literal, the bytes Node writes for
// Buffer.from(JSON.stringify(text)): quotes around it; '"' and '\' escaped with a backslash; the
// control characters \b \t \n \f \r as those escapes and the others below U+0020 as \u00xx (lower
// case); every other byte as it is. (A lone surrogate, which JSON.stringify writes as \udxxx, has
// no UTF-8: src/doc/json-line.ts leaves such texts to JSON.stringify.) Plain C++17, tested against
// JSON.stringify on real documents and random texts (test/doc/json-line.test.ts).
#include <cstddef>
#include <cstdint>

namespace midpack {

// The bytes jsonStringOfUtf8 writes for utf8[0, n).
size_t jsonStringLength(const uint8_t* utf8, size_t n);

// Writes the literal of utf8[0, n) to `out` (jsonStringLength bytes of room); returns how many.
size_t jsonStringOfUtf8(const uint8_t* utf8, size_t n, uint8_t* out);

}  // namespace midpack
