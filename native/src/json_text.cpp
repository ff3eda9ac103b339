#include "json_text.hpp"

#include <cstring>

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
  size_t from = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '\\') continue;
    std::memcpy(o, s + from, i - from);
    o += i - from;
    size_t len = 0;
    *o++ = static_cast<char>(escapeAt(s, i + 1, n, len));
    i += len;
    from = i + 1;
  }
  std::memcpy(o, s + from, n - from);
  o += n - from;
  return static_cast<size_t>(o - out);
}

}  // namespace midpack
