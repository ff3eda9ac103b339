#include "header_lines.hpp"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "segments.hpp"

namespace midpack {
namespace {

// A view of the text: every read past the end is 0, which no pattern character equals.
struct Text {
  const uint16_t* t;
  size_t n;
  uint16_t at(size_t i) const { return i < n ? t[i] : 0; }
  // Whether the ASCII literal `s` stands at position i.
  bool has(size_t i, const char* s) const {
    for (; *s; ++s, ++i)
      if (at(i) != static_cast<uint8_t>(*s)) return false;
    return true;
  }
};

// JavaScript's line terminators ([\n\r\u2028\u2029]: `.` stops at them, multiline ^ follows them).
bool isTerminator(uint16_t c) { return (c == 0x0a) | (c == 0x0d) | ((c | 1) == 0x2029); }
// JavaScript's \s (WhiteSpace and LineTerminator; 0, past the end, is none).
bool isSpace(uint16_t c) { return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x80 && isTrimmedSpace(c)); }
// JavaScript's \w without the u flag.
bool isWord(uint16_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// A predicate on a unit and the next (text[length] read as 0), scalar and, on x86-64, for 8 units
// at once (SSE2): a C header is read to its end twice (its line ends, and C++'s marks), and a
// loop testing one unit a step cost several times as much.
struct TerminatorTest {
  bool operator()(uint16_t c, uint16_t) const { return isTerminator(c); }
#if defined(__SSE2__)
  __m128i operator()(__m128i c, __m128i) const {
    const __m128i lf = _mm_cmpeq_epi16(c, _mm_set1_epi16(0x0a));
    const __m128i cr = _mm_cmpeq_epi16(c, _mm_set1_epi16(0x0d));
    const __m128i ls = _mm_cmpeq_epi16(_mm_or_si128(c, _mm_set1_epi16(1)), _mm_set1_epi16(0x2029));
    return _mm_or_si128(_mm_or_si128(lf, cr), ls);
  }
#endif
};
// A colon (`std::`) and `__`: where C++'s marks outside line starts can begin.
struct CppMarkTest {
  bool operator()(uint16_t c, uint16_t d) const { return (c == ':') | ((c == '_') & (d == '_')); }
#if defined(__SSE2__)
  __m128i operator()(__m128i c, __m128i d) const {
    const __m128i u = _mm_set1_epi16('_');
    return _mm_or_si128(_mm_cmpeq_epi16(c, _mm_set1_epi16(':')), _mm_and_si128(_mm_cmpeq_epi16(c, u), _mm_cmpeq_epi16(d, u)));
  }
#endif
};

// The first i >= from where found(text[i], text[i + 1]) holds, or `length`.
template <class Found>
size_t findFrom(const uint16_t* text, size_t length, size_t from, Found found) {
  size_t i = from;
#if defined(__SSE2__)
  for (; i + 9 <= length; i += 8) {
    const auto* at = reinterpret_cast<const __m128i*>(text + i);
    const int mask = _mm_movemask_epi8(found(_mm_loadu_si128(at), _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + i + 1))));
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask))) / 2;
  }
#endif
  for (; i < length; ++i)
    if (found(text[i], i + 1 < length ? text[i + 1] : uint16_t{0})) return i;
  return length;
}

size_t skipSpace(const Text& x, size_t i) {
  while (isSpace(x.at(i))) ++i;
  return i;
}
size_t skipBlanks(const Text& x, size_t i) {
  while (x.at(i) == ' ' || x.at(i) == '\t') ++i;
  return i;
}

// A keyword of `words` at i followed by a word boundary (\b after a word character).
bool keywordAt(const Text& x, size_t i, const char* const* words) {
  for (; *words; ++words)
    if (x.has(i, *words) && !isWord(x.at(i + std::strlen(*words)))) return true;
  return false;
}

// `#import\s+.+\.h[">]` at i: white space (it may span lines), then on one line at least one
// character before `.h"` or `.h>`. The `.+` starts after the run's last line terminator, or one
// past `#import`.
bool importAt(const Text& x, size_t i) {
  if (!x.has(i, "#import")) return false;
  size_t from = i + 7;
  if (!isSpace(x.at(from))) return false;
  size_t dotFrom = from + 1;
  for (size_t k = from; isSpace(x.at(k)); ++k)
    if (isTerminator(x.at(k))) dotFrom = k + 1;
  for (size_t k = dotFrom + 1; k < x.n && !isTerminator(x.at(k)) && !isTerminator(x.at(k - 1)); ++k)
    if (x.at(k) == '.' && x.at(k + 1) == 'h' && (x.at(k + 2) == '"' || x.at(k + 2) == '>')) return true;
  return false;
}

// Objective-C's line: `@(?:interface|class|...)\b|#import\s+.+\.h[">]` at i.
bool objectiveCAt(const Text& x, size_t i) {
  if (x.at(i) != '@' && x.at(i) != '#') return false;
  static const char* const kKeywords[] = {"interface", "class", "protocol", "property", "end", "synchronised", "selector", "implementation", nullptr};
  return (x.at(i) == '@' && keywordAt(x, i + 1, kKeywords)) || importAt(x, i);
}

// C++'s alternatives after any white space: `#\s*include <(?:cstdint|...)>` and `template\s*<`.
bool cppAfterSpaceAt(const Text& x, size_t i) {
  if (x.at(i) != '#' && x.at(i) != 't') return false;
  static const char* const kHeaders[] = {"cstdint", "string", "vector", "map", "list", "array", "bitset", "queue", "stack", "forward_list", "unordered_map", "unordered_set", "istream", "ostream", "iostream", nullptr};
  if (x.at(i) == '#') {
    const size_t k = skipSpace(x, i + 1);
    if (!x.has(k, "include <")) return false;
    for (const char* const* h = kHeaders; *h; ++h)
      if (x.has(k + 9, *h) && x.at(k + 9 + std::strlen(*h)) == '>') return true;
    return false;
  }
  return x.has(i, "template") && x.at(skipSpace(x, i + 8)) == '<';
}

// `\s+\w` at i: white space, at least one, then a word character.
bool spaceThenWord(const Text& x, size_t i) { return isSpace(x.at(i)) && isWord(x.at(skipSpace(x, i))); }

// C++'s alternatives after spaces and tabs: `try`, `constexpr`, `catch\s*\(`,
// `(?:class|(?:using[ \t]+)?namespace)\s+\w+`, `(?:private|public|protected):` at a line's end.
bool cppAfterIndentAt(const Text& x, size_t i) {
  const uint16_t c = x.at(i);
  if (c != 't' && c != 'c' && c != 'u' && c != 'n' && c != 'p') return false;
  if (x.has(i, "try") || x.has(i, "constexpr")) return true;
  if (x.has(i, "catch")) return x.at(skipSpace(x, i + 5)) == '(';
  if (x.has(i, "class")) return spaceThenWord(x, i + 5);
  if (x.has(i, "namespace")) return spaceThenWord(x, i + 9);
  if (x.has(i, "using") && (x.at(i + 5) == ' ' || x.at(i + 5) == '\t')) {
    const size_t k = skipBlanks(x, i + 5);
    return x.has(k, "namespace") && spaceThenWord(x, k + 9);
  }
  for (const char* access : {"private:", "public:", "protected:"}) {
    const size_t end = i + std::strlen(access);
    if (x.has(i, access)) return end == x.n || isTerminator(x.at(end));
  }
  return false;
}

// `__has_cpp_attribute|__cplusplus >|std::\w` anywhere: each begins `__` or holds `::`.
bool cppAnywhere(const Text& x) {
  for (size_t i = findFrom(x.t, x.n, 0, CppMarkTest{}); i < x.n; i = findFrom(x.t, x.n, i + 1, CppMarkTest{})) {
    if (x.t[i] == ':' ? i >= 3 && x.has(i - 3, "std::") && isWord(x.at(i + 2)) : x.has(i, "__has_cpp_attribute") || x.has(i, "__cplusplus >")) return true;
  }
  return false;
}

}  // namespace

// Each line start is where the expressions' `(?:^|[\n\r\u2028\u2029])` lets an alternative be
// tried. The alternatives begin with a non-space character, so after `\s*` one begins where the
// line's white space ends, and after `[ \t]*` where its spaces and tabs end. A match whose `\s*`
// runs over a line end also matches from the later line's start, so a blank line is passed.
HeaderLanguage headerLanguage(const uint16_t* text, size_t length) {
  const Text x{text, length};
  bool cppLine = false;
  size_t start = 0;
  for (;;) {
    size_t first = start;
    while (first < length && isSpace(text[first]) && !isTerminator(text[first])) ++first;
    if (first < length && !isTerminator(text[first])) {
      if (objectiveCAt(x, first)) return HeaderLanguage::ObjectiveC;
      if (!cppLine) cppLine = cppAfterSpaceAt(x, first) || cppAfterIndentAt(x, skipBlanks(x, start));
    }
    const size_t end = findFrom(text, length, first, TerminatorTest{});
    if (end >= length) break;
    start = end + 1;
  }
  return cppLine || cppAnywhere(x) ? HeaderLanguage::Cpp : HeaderLanguage::C;
}

}  // namespace midpack
