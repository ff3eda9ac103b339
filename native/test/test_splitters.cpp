// The hand-written splitters against the pieces the Rust reference gives for the same text (each
// expected list printed by its pre-tokenizer: `tokenizers` from npm, the shipped tokenizer.json),
// and the vocabulary options of the core: ignore_merges, and a token whose merges do not reach it.
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bpe_tokenizer.hpp"
#include "check.hpp"
#include "splitters.hpp"

using namespace midpack;

namespace {

// The classes of the code points used below, as the reference's tables have them.
std::vector<uint8_t> classes() {
  std::vector<uint8_t> t(0x110000, 0);
  for (int c = 'a'; c <= 'z'; c++) t[c] = kLetter | kLowerLike;
  for (int c = 'A'; c <= 'Z'; c++) t[c] = kLetter | kUpperLike;
  for (int c = '0'; c <= '9'; c++) t[c] = kNumber;
  for (int c : {0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c, 0x85}) t[c] = kSpace;
  for (char c : std::string("!\"#%&'()*,-./:;?@[\\]_{}")) t[static_cast<uint8_t>(c)] = kPunct;
  for (char c : std::string("$+<=>^`|~")) t[static_cast<uint8_t>(c)] = kSymbol;
  t[0xE9] = t[0x17F] = kLetter | kLowerLike;          // é, ſ (Ll)
  t[0x1C5] = kLetter | kUpperLike;                    // ǅ (Lt)
  t[0x2B0] = t[0x2B2] = t[0x30FC] = t[0x4E2D] = kLetter | kUpperLike | kLowerLike;  // ʰ ʲ ー (Lm), 中 (Lo)
  t[0x30FB] = kPunct;                                 // ・
  t[0x301] = kMark;                                   // combining acute
  return t;                                           // U+200B (Cf): no class
}

std::u32string decode(const std::string& utf8) {
  std::u32string out;
  for (size_t i = 0; i < utf8.size();) {
    unsigned char b = static_cast<unsigned char>(utf8[i]);
    size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    char32_t c = len == 1 ? b : b & (0x7F >> len);
    for (size_t k = 1; k < len; k++) c = (c << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    out.push_back(c);
    i += len;
  }
  return out;
}

std::string encode(const std::u32string& s) {
  std::string out;
  for (char32_t c : s) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out += {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
    } else {
      out += {static_cast<char>(0xE0 | (c >> 12)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
    }
  }
  return out;
}

// The kept pieces, and each removed run as "~" + its text.
std::vector<std::string> pieces(const Splitter& s, const std::string& utf8) {
  std::u32string cps = decode(utf8);
  std::vector<std::string> out;
  size_t segment = 0;
  bool keep = true;
  for (size_t i = 0; i < cps.size();) {
    size_t j = s.next(cps.data(), cps.size(), i, segment, keep);
    CHECK(j > i, "an empty piece at %zu", i);
    out.push_back((keep ? "" : "~") + encode(cps.substr(i, j - i)));
    i = j;
  }
  return out;
}

void expectPieces(const Splitter& s, const std::string& text, const std::vector<std::string>& want) {
  std::vector<std::string> got = pieces(s, text);
  if (got != want) {
    std::fprintf(stderr, "pieces of \"%s\":", text.c_str());
    for (auto& p : got) std::fprintf(stderr, " [%s]", p.c_str());
    std::fprintf(stderr, "\n");
  }
  CHECK(got == want, "pieces of \"%s\" differ from the reference's", text.c_str());
}

void testSplitters() {
  Splitter qwen(SplitPattern::kQwen, 1, classes());
  expectPieces(qwen, "don'ſt  x\n\n  y 123 a.b!!\n ǅx", {"don", "'ſ", "t", " ", " x", "\n\n", " ", " y", " ", "1", "2", "3", " a", ".b", "!!\n", " ǅx"});
  Splitter llama(SplitPattern::kQwen, 3, classes());
  expectPieces(llama, "12345 abc 1234567", {"123", "45", " abc", " ", "123", "456", "7"});
  Splitter deepSeek(SplitPattern::kDeepSeekV3, 3, classes());
  expectPieces(deepSeek, "_foo $abc (é x\u200by \u200b 中中ー・123456 a\u0301  \n b",
               {"_foo", " $", "abc", " (", "é", " x", "\u200by", " ", "\u200b", " ", "中中ー", "・", "123", "456", " a\u0301", "  \n", " b"});
  Splitter o200k(SplitPattern::kO200k, 3, classes());
  expectPieces(o200k, "HELLOworld ǅemal ABCdéf ʰʲab ABʰ don'ſt x/y//\n 1234 \u0301abc",
               {"HELLOworld", " ǅemal", " ABCdéf", " ʰʲab", " ABʰ", " don'ſ", "t", " x", "/y", "//\n", " ", "123", "4", " \u0301abc"});
  // A character of no class at all is matched by o200k's "other" run: nothing is removed.
  expectPieces(o200k, "a\u200b\u200bb", {"a", "\u200b\u200b", "b"});
  bool threw = false;
  try {
    Splitter bad(static_cast<SplitPattern>(7), 1, classes());
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK(threw, "an unknown pattern is refused");
}

// The ASCII paths (nextAscii: qwenAscii's dispatch and 16-byte runs; AsciiPieceEnds: the start
// masks of 64-byte blocks, read with AVX2 and with SSE2) cut the pieces the general one (next on the same text's UTF-16 units)
// cuts, on random ASCII texts built from runs of every
// kind it dispatches on (letters, digits, spaces, other blanks, line breaks, apostrophes and
// contractions, punctuation, control characters), short and over 16 bytes, for K = 1 and 3.
void testAsciiPath(unsigned seed) {
  const std::string parts[] = {"a", "Z", "x", "7", " ", "\t", "\v", "\n", "\r", "\r\n", "'", "'s", "'LL", "'re", "'x", ".", "(", "\"", "_", "\x01", "\x7f", "~"};
  std::mt19937 rng(seed);
  for (int maxDigits : {1, 3}) {
    Splitter splitter(SplitPattern::kQwen, maxDigits, classes());
    // The blocks read with SSE2 as well as AVX2 (where the CPU has it): the same pieces.
    Splitter sse2 = splitter;
    sse2.useAsciiAvx2(false);
    for (int it = 0; it < 3000; it++) {
      std::string text;
      for (size_t k = 0, len = 1 + rng() % 40; k < len; k++) {
        const std::string& part = parts[rng() % (sizeof(parts) / sizeof(parts[0]))];
        text.append(rng() % 6 == 0 ? 1 + rng() % 40 : 1, part[0]);
        text += part.substr(1);
      }
      std::vector<uint8_t> bytes(text.begin(), text.end());
      // The padding is readable but not text: random ASCII, so a run read past the end shows.
      for (int k = 0; k < 16; k++) bytes.push_back(static_cast<uint8_t>(parts[rng() % (sizeof(parts) / sizeof(parts[0]))][0]));
      const std::u16string units(text.begin(), text.end());
      size_t narrowSegment = 0, wideSegment = 0;
      bool narrowKeep = true, wideKeep = true;
      CHECK(splitter.asciiBlocks(), "the 64-byte blocks apply to this table");
      AsciiPieceEnds blocks(splitter, bytes.data(), text.size()), sse2Blocks(sse2, bytes.data(), text.size());
      for (size_t i = 0; i < text.size();) {
        const size_t narrow = splitter.nextAscii(bytes.data(), text.size(), i, narrowSegment, narrowKeep);
        const size_t wide = splitter.next(units.data(), units.size(), i, wideSegment, wideKeep);
        const size_t block = blocks.next();
        CHECK(sse2Blocks.next() == block, "the SSE2 blocks' piece at %zu ends where the AVX2 blocks' does (K %d, case %d)", i, maxDigits, it);
        CHECK(narrow == wide && narrowKeep == wideKeep, "the ASCII path's piece at %zu ends at %zu, the general one's at %zu (K %d, case %d)", i, narrow, wide, maxDigits, it);
        CHECK(block == wide, "the 64-byte blocks' piece at %zu ends at %zu, the general one's at %zu (K %d, case %d: %s)", i, block, wide, maxDigits, it, text.c_str());
        if (narrow != wide || block != wide) break;
        i = wide;
      }
      CHECK(blocks.next() == text.size(), "the 64-byte blocks have no piece after the text (case %d)", it);
    }
  }
}

// Bytes 'a', 'b', 'c' merged: ab (256), abc (257, from ab + c); "bc" (258) is a token no merge makes.
BpeConfig vocabConfig(bool ignoreMerges) {
  BpeConfig c;
  for (int b = 0; b < 256; b++) c.byteIds.push_back(b);
  c.merges = {'a', 'b', 256, 256, 'c', 257};
  c.classes = classes();
  c.ignoreMerges = ignoreMerges;
  c.tokenLengths.assign(259, 1);
  c.tokenLengths[256] = 2;
  c.tokenLengths[257] = 3;
  c.tokenLengths[258] = 2;
  for (int b = 0; b < 256; b++) c.tokenBytes.push_back(static_cast<char>(b));
  c.tokenBytes += "ababcbc";
  return c;
}

std::vector<int32_t> ids(BpeTokenizer& t, const std::u16string& text) {
  Encoding out;
  t.encode(text.data(), text.size(), out);
  return out.ids;
}

void testVocabulary() {
  // ignore_merges: "bc" is in the vocabulary, so the piece is that token.
  BpeTokenizer whole(vocabConfig(true));
  CHECK(ids(whole, u"bc") == std::vector<int32_t>({258}), "ids of a piece");
  CHECK(ids(whole, u"abc") == std::vector<int32_t>({257}), "ids of a piece");
  // Without it, "bc" is merged like any piece (no merge makes it), and stays two bytes; the
  // lookup of the vocabulary must not shortcut it.
  BpeTokenizer merged(vocabConfig(false));
  CHECK(ids(merged, u"bc") == std::vector<int32_t>({'b', 'c'}), "ids of a piece");
  CHECK(ids(merged, u"bc") == std::vector<int32_t>({'b', 'c'}), "ids of a piece");  // from the cache of pieces
  CHECK(ids(merged, u"abc") == std::vector<int32_t>({257}), "ids of a piece");
  // A pair listed twice keeps its last rank, as the reference's map of merges does.
  BpeConfig twice = vocabConfig(false);
  twice.merges = {'b', 'c', 258, 'a', 'b', 256, 256, 'c', 257, 'b', 'c', 258};
  BpeTokenizer last(std::move(twice));
  CHECK(ids(last, u"abc") == std::vector<int32_t>({257}), "ids of a piece");
}

}  // namespace

int main() {
  testSplitters();
  testAsciiPath(12345);
  testVocabulary();
  if (failures) return 1;
  std::printf("test_splitters: ok\n");
  return 0;
}
