// The tokenizer core on a small vocabulary: the splitter against the pattern's pieces written by
// hand, the heap merge against a plain quadratic BPE on random pieces, ranges in UTF-16 units.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bpe_tokenizer.hpp"
#include "check.hpp"

using midpack::BpeConfig;
using midpack::BpeTokenizer;

namespace {

// ASCII classes as the reference has them, and U+00E9 (a letter), U+0661 (a digit).
std::vector<uint8_t> asciiClasses() {
  std::vector<uint8_t> t(0x110000, 0);
  for (int c = 'a'; c <= 'z'; c++) t[c] = midpack::kLetter;
  for (int c = 'A'; c <= 'Z'; c++) t[c] = midpack::kLetter;
  for (int c = '0'; c <= '9'; c++) t[c] = midpack::kNumber;
  for (int c : {0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c, 0x85}) t[c] = midpack::kSpace;
  t[0xE9] = midpack::kLetter;
  t[0x661] = midpack::kNumber;
  return t;
}

// Merges over bytes 'a'..'d' and ' ': ids 256.. in merge order.
struct Vocab {
  std::vector<int32_t> merges;
  std::map<std::string, int32_t> ids;
  std::vector<std::string> bytes;
};

Vocab smallVocab() {
  Vocab v;
  for (int b = 0; b < 256; b++) v.bytes.push_back(std::string(1, static_cast<char>(b)));
  const char* list[][2] = {{"a", "b"}, {"c", "d"}, {"ab", "cd"}, {"a", "a"}, {"b", "a"}, {" ", "a"}, {"aa", "aa"}, {"d", "c"}, {"ab", "ab"}, {"c", "c"}};
  auto id = [&](const std::string& s) {
    for (size_t i = 0; i < v.bytes.size(); i++)
      if (v.bytes[i] == s) return static_cast<int32_t>(i);
    return -1;
  };
  for (auto& m : list) {
    int32_t a = id(m[0]), b = id(m[1]);
    v.bytes.push_back(std::string(m[0]) + m[1]);
    v.merges.insert(v.merges.end(), {a, b, static_cast<int32_t>(v.bytes.size() - 1)});
  }
  return v;
}

// Plain BPE: merge the lowest-rank adjacent pair, leftmost on ties, until none is listed.
std::vector<int32_t> quadratic(const Vocab& v, const std::string& piece) {
  std::vector<int32_t> s;
  for (unsigned char c : piece) s.push_back(c);
  for (;;) {
    size_t best = s.size();
    size_t bestRank = SIZE_MAX;
    int32_t made = -1;
    for (size_t i = 0; i + 1 < s.size(); i++)
      for (size_t r = 0; r < v.merges.size() / 3; r++)
        if (v.merges[3 * r] == s[i] && v.merges[3 * r + 1] == s[i + 1] && r < bestRank) {
          bestRank = r;
          best = i;
          made = v.merges[3 * r + 2];
        }
    if (best == s.size()) return s;
    s[best] = made;
    s.erase(s.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

std::u16string u16(const std::string& ascii) { return std::u16string(ascii.begin(), ascii.end()); }

std::vector<std::u16string> pieces(const BpeTokenizer& t, const std::u16string& text) {
  std::vector<uint32_t> bounds;
  t.split(text.data(), text.size(), bounds);
  std::vector<std::u16string> out;
  for (size_t i = 0; i < bounds.size(); i += 2) out.push_back(text.substr(bounds[i], bounds[i + 1] - bounds[i]));
  return out;
}

BpeTokenizer make(const Vocab& v, int maxDigits, size_t cache) {
  BpeConfig c;
  for (int b = 0; b < 256; b++) c.byteIds.push_back(b);
  c.merges = v.merges;
  c.classes = asciiClasses();
  c.maxDigits = maxDigits;
  c.cacheEntries = cache;
  return BpeTokenizer(c);
}

}  // namespace

int main(int argc, char** argv) {
  int iters = argc > 1 ? std::atoi(argv[1]) : 1000;
  unsigned seed = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 1;
  Vocab v = smallVocab();
  BpeTokenizer qwen = make(v, 1, 8);
  BpeTokenizer llama = make(v, 3, 8);

  // The pattern's alternatives, in order.
  using P = std::vector<std::u16string>;
  CHECK(pieces(qwen, u16("don't WE'LL go")) == (P{u"don", u"'t", u" WE", u"'LL", u" go"}), "expected");
  CHECK(pieces(qwen, u16("x=1234;")) == (P{u"x", u"=", u"1", u"2", u"3", u"4", u";"}), "expected");
  CHECK(pieces(llama, u16("x=1234;")) == (P{u"x", u"=", u"123", u"4", u";"}), "expected");
  CHECK(pieces(qwen, u16("a  b")) == (P{u"a", u" ", u" b"}), "expected");
  CHECK(pieces(qwen, u16("a \n\n  b")) == (P{u"a", u" \n\n", u" ", u" b"}), "expected");
  CHECK(pieces(qwen, u16("a   ")) == (P{u"a", u"   "}), "expected");
  CHECK(pieces(qwen, u16(" {};\n\nx")) == (P{u" {};\n\n", u"x"}), "expected");
  CHECK(pieces(qwen, u16("\tif")) == (P{u"\tif"}), "expected");
  CHECK(pieces(qwen, u"caf\u00e9 \u0661\u0661") == (P{u"caf\u00e9", u" ", u"\u0661", u"\u0661"}), "expected");

  // Ranges: a surrogate pair is two units; a lone surrogate is U+FFFD (three bytes).
  midpack::Encoding enc;
  std::u16string text = u"ab\U0001F600";
  text.push_back(static_cast<char16_t>(0xD800));
  text += u"cd";
  qwen.encode(text.data(), text.size(), enc);
  CHECK(!enc.ids.empty() && enc.ids[0] == 256, "expected");  // "ab"
  CHECK(enc.starts.front() == 0 && enc.ends.back() == static_cast<int32_t>(text.size()), "expected");
  for (size_t i = 0; i < enc.ids.size(); i++) CHECK(enc.starts[i] < enc.ends[i], "expected");

  // The heap merge equals plain BPE on random pieces; the cache stays within its bound.
  std::mt19937 rng(seed);
  const std::string alphabet = "abcd";
  for (int it = 0; it < iters; it++) {
    std::string piece;
    size_t len = 1 + rng() % (it % 10 == 0 ? 600 : 24);
    for (size_t k = 0; k < len; k++) piece.push_back(alphabet[rng() % alphabet.size()]);
    midpack::Encoding e;
    std::u16string t16 = u16(piece);
    qwen.encode(t16.data(), t16.size(), e);
    CHECK(e.ids == quadratic(v, piece), "piece of %zu bytes, seed %u", piece.size(), seed);
    CHECK(qwen.cacheSize() <= 8, "expected");
  }
  // The ranges of every path (one-token pieces, ASCII pieces, pieces with multi-byte code
  // points, surrogate pairs) against the per-byte rule: a token owns each code point it holds a
  // byte of. Letters only, so each text is one piece; the cache is cleared many times over.
  const std::u16string letters[] = {u"a", u"b", u"c", u"d", u"\u00e9", u"\U0001D400"};
  for (int it = 0; it < iters; it++) {
    std::u16string t16;
    size_t len = 1 + rng() % 30;
    bool ascii = it % 2 == 0;
    for (size_t k = 0; k < len; k++) t16 += letters[rng() % (ascii ? 4 : 6)];
    std::string utf8;
    std::vector<uint32_t> byteStart, byteEnd;  // per byte: its code point's units
    for (size_t u = 0; u < t16.size();) {
      uint32_t c = t16[u];
      size_t w = 1;
      if (c >= 0xD800 && c < 0xDC00) c = 0x10000 + ((c - 0xD800) << 10) + (t16[u + 1] - 0xDC00), w = 2;
      size_t before = utf8.size();
      if (c < 0x80) utf8.push_back(static_cast<char>(c));
      else if (c < 0x800) utf8 += {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
      else utf8 += {static_cast<char>(0xF0 | (c >> 18)), static_cast<char>(0x80 | ((c >> 12) & 0x3F)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
      byteStart.insert(byteStart.end(), utf8.size() - before, static_cast<uint32_t>(u));
      byteEnd.insert(byteEnd.end(), utf8.size() - before, static_cast<uint32_t>(u + w));
      u += w;
    }
    midpack::Encoding e, again;
    qwen.encode(t16.data(), t16.size(), e);
    CHECK(e.ids == quadratic(v, utf8), "text of %zu units, seed %u", t16.size(), seed);
    // Again: now from the hot entry or the piece table, with the same ranges.
    qwen.encode(t16.data(), t16.size(), again);
    CHECK(again.ids == e.ids && again.starts == e.starts && again.ends == e.ends, "text of %zu units encoded twice", t16.size());
    size_t b = 0;
    for (size_t k = 0; k < e.ids.size(); k++) {
      size_t bytes = e.ids[k] < 256 ? 1 : v.bytes[static_cast<size_t>(e.ids[k])].size();
      CHECK(e.starts[k] == static_cast<int32_t>(byteStart[b]) && e.ends[k] == static_cast<int32_t>(byteEnd[b + bytes - 1]), "token %zu of a text of %zu units", k, t16.size());
      b += bytes;
    }
  }
  // The three widths a text is read at (bytes for ASCII text, UTF-16 units without surrogates,
  // code points otherwise) give the same pieces, tokens and ranges: an ASCII text alone, then
  // followed by ".\u00e9" (UTF-16) or ".\U0001F600" (code points), which end it with a piece of
  // their own. Runs longer than 16 characters take the byte path's vector loops.
  const std::string parts[] = {"a", "b", "c", "d", "A", "D", " ", "\t", "\n", "\r\n", "7", ".", "(", "'s"};
  for (int it = 0; it < iters; it++) {
    std::string ascii;
    for (size_t k = 0, len = 1 + rng() % 60; k < len; k++) {
      const std::string& part = parts[rng() % (sizeof(parts) / sizeof(parts[0]))];
      ascii.append(rng() % 8 == 0 ? 1 + rng() % 40 : 1, part[0]);
      ascii += part.substr(1);
    }
    ascii += "ab";
    const std::u16string t16 = u16(ascii);
    midpack::Encoding bytePath;
    qwen.encode(t16.data(), t16.size(), bytePath);
    for (const std::u16string& tail : {std::u16string(u".\u00e9"), std::u16string(u".\U0001F600")}) {
      midpack::Encoding wide;
      const std::u16string longer = t16 + tail;
      qwen.encode(longer.data(), longer.size(), wide);
      const size_t k = bytePath.ids.size();
      CHECK(wide.ids.size() > k && std::equal(bytePath.ids.begin(), bytePath.ids.end(), wide.ids.begin()), "ids of a text of %zu units, tail %zu units", t16.size(), tail.size());
      CHECK(std::equal(bytePath.starts.begin(), bytePath.starts.end(), wide.starts.begin()) && std::equal(bytePath.ends.begin(), bytePath.ends.end(), wide.ends.begin()), "ranges of a text of %zu units", t16.size());
      std::vector<std::u16string> narrowPieces = pieces(qwen, t16), widePieces = pieces(qwen, longer);
      CHECK(widePieces.size() == narrowPieces.size() + 1 && std::equal(narrowPieces.begin(), narrowPieces.end(), widePieces.begin()), "pieces of a text of %zu units", t16.size());
    }
  }
  if (failures) return 1;
  std::printf("test_bpe_tokenizer: %d random pieces, ok\n", iters);
  return 0;
}
