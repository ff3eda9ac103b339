#pragma once
// A string as a JSON string literal in UTF-8, the bytes Node writes for
// Buffer.from(JSON.stringify(s)): quotes around it; '"' and '\' escaped with a backslash; the
// control characters \b \t \n \f \r as those escapes and the others below U+0020 as \u00xx (lower
// case); a surrogate pair as its code point's 4 bytes; a lone surrogate as \udxxx (JSON.stringify's
// well-formed output). Everything else as its UTF-8 bytes. Plain C++17, tested against
// JSON.stringify on real documents and random texts (test/doc/json-line.test.ts).
#include <cstddef>
#include <cstdint>

namespace midpack {

// The bytes jsonStringUtf8 writes for text[0, n).
size_t jsonStringUtf8Length(const uint16_t* text, size_t n);

// Writes the literal of text[0, n) to `out` (jsonStringUtf8Length bytes of room); returns how many.
size_t jsonStringUtf8(const uint16_t* text, size_t n, uint8_t* out);

}  // namespace midpack
