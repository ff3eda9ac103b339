#pragma once
// A JSONL record's text field read from its bytes, for the pack workers: where the field's
// string literal lies in the line, and its unescaped bytes when they are all ASCII, so a
// document of ASCII text is tokenized from the line's bytes without a JS string of its text
// (no UTF-8 decoding, no JSON.parse of the text, no copy out of V8). Anything unusual (a key
// written with escapes, the field twice, a value that is not a string, an escape JSON does not
// allow, a character that is not ASCII) is not read here: the caller reads the line as before.
// Plain C++17.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace midpack {

// The string literal of the top-level field `key` of the JSON object in line[0, n): [from, to)
// spans its quotes. False when the line is not an object this reader follows to that field, the
// field is missing or there twice, or its value is not a string. The rest of the line is not
// validated (the caller parses it).
bool jsonStringField(const uint8_t* line, size_t n, std::string_view key, size_t& from, size_t& to);

// The length of the JSON string content s[0, n) (between the quotes) once unescaped, when it is
// valid JSON and every character it stands for is ASCII; -1 otherwise.
long jsonAsciiLength(const uint8_t* s, size_t n);

// Writes the unescaped content of s[0, n) (jsonAsciiLength accepted it) to out; returns its length.
size_t unescapeJsonAscii(const uint8_t* s, size_t n, char* out);

}  // namespace midpack
