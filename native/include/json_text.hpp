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
#include <vector>

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

// The UTF-16 units [start, end) of the text that the JSON string content s[0, n) (the bytes
// between its quotes) stands for, into `out` (cleared first), without decoding the units before
// `start` into a string: a segment's sample is read from a document's JSONL line so, and the line
// is not parsed. The walk starts at byte `at`, which stands for unit `unit` (0, 0: the start), and
// leaves both at a character's start at or past `end`, so a document's samples, in the order of
// their lines, walk its text once. False when the content is not JSON this reads (an escape JSON
// does not allow, a byte that does not start UTF-8 of a character), it stands for fewer than `end`
// units, or `unit` is past `start`.
bool jsonStringUnits(const uint8_t* s, size_t n, size_t& at, size_t& unit, size_t start, size_t end, std::vector<uint16_t>& out);

// Every UTF-16 unit the content s[0, n) stands for, written to `out` (room for n units: a byte
// stands for at most one, four of UTF-8 for a surrogate pair's two), their count in `units`:
// jsonStringUnits(s, n, at = 0, unit = 0, 0, SIZE_MAX, ...) in one pass without its window (a
// masking pass reads each document's whole text so). Returns the bytes read: n, or where the
// content stops being JSON this reads. `strict` also stops where JSON.parse of the line decoded
// by a fatal UTF-8 decoder would fail: at a raw control character, and at UTF-8 such a decoder
// refuses (an overlong form, a surrogate's code point, one past U+10FFFF); a \u escape of a lone
// surrogate is read, as JSON.parse reads it.
size_t jsonStringAllUnits(const uint8_t* s, size_t n, uint16_t* out, size_t& units, bool strict = false);

}  // namespace midpack
