// The segmenter's plain core: XXH64 against xxhash's own values (as xxhash-wasm gives them),
// UTF-8 of lone surrogates and pairs, the trim set, and segments of a small text by hand; then
// random texts of a few units, segmented whole and distinct, checked against a direct scan; and
// masking's count table (count_table.hpp) against a std::map.
#include <algorithm>
#include <map>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "check.hpp"
#include "count_table.hpp"
#include "json_text.hpp"
#include "segments.hpp"

#if defined(__linux__)
#include <sys/wait.h>
#include <unistd.h>
#endif

using midpack::LineSegmenter;

static uint64_t hashOf(const std::string& s) { return midpack::xxh64(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

static void testXxh64() {
  const struct {
    std::string in;
    uint64_t want;
  } cases[] = {
      {"", 0xef46db3751d8e999ULL},
      {"a", 0xd24ec4f1a98c6e5bULL},
      {"abc", 0x44bc2cf5ad770999ULL},
      {"Nobody inspects the spammish repetition", 0xfbcea83c8a378bf1ULL},
      {std::string(31, 'x'), 0x60dd0d01083b99f0ULL},
      {std::string(32, 'x'), 0xe2df261fc2ec30ebULL},
      {std::string(33, 'x'), 0xb3fa465f554208a6ULL},
  };
  for (const auto& c : cases) CHECK(hashOf(c.in) == c.want, "xxh64 of %zu bytes", c.in.size());
}

static std::vector<uint8_t> utf8(const std::u16string& s) {
  std::vector<uint8_t> out(3 * s.size());
  out.resize(midpack::utf8Of(reinterpret_cast<const uint16_t*>(s.data()), 0, s.size(), out.data()));
  return out;
}

static void testUtf8() {
  CHECK((utf8(u"a\u00e9\u20ac") == std::vector<uint8_t>{'a', 0xC3, 0xA9, 0xE2, 0x82, 0xAC}), "BMP characters");
  CHECK((utf8(u"\U0001F600") == std::vector<uint8_t>{0xF0, 0x9F, 0x98, 0x80}), "a surrogate pair is one code point");
  std::u16string lone = {0xD800, u'x', 0xDC00};
  CHECK((utf8(lone) == std::vector<uint8_t>{0xEF, 0xBF, 0xBD, 'x', 0xEF, 0xBF, 0xBD}), "lone surrogates are U+FFFD");
  std::u16string reversed = {0xDC00, 0xD800};
  CHECK(utf8(reversed).size() == 6, "a low then a high surrogate are two U+FFFD");
}

static void testTrimSet() {
  const uint16_t spaces[] = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF};
  for (uint16_t c : spaces) CHECK(midpack::isTrimmedSpace(c), "U+%04X is trimmed", c);
  const uint16_t kept[] = {0x00, 0x08, 0x0E, 0x1F, 0x21, 0x85, 0x180E, 0x200B, 0x2060, 0xFFFD};
  for (uint16_t c : kept) CHECK(!midpack::isTrimmedSpace(c), "U+%04X is kept", c);
}

static std::vector<uint32_t> segmentsOf(LineSegmenter& seg, const std::u16string& text, std::vector<uint32_t> specials, uint32_t minChars, bool distinct) {
  std::vector<uint32_t> out;
  seg.segment(reinterpret_cast<const uint16_t*>(text.data()), text.size(), specials.data(), specials.size() / 2, minChars, distinct, out);
  return out;
}

static void testByHand() {
  LineSegmenter seg;
  // Lines start at 0, 16, 22, 35 (empty) and 36.
  std::u16string text = u"  hello world  \nshort\nhello world\r\n\nhello world";
  auto all = segmentsOf(seg, text, {}, 10, false);
  CHECK(all.size() == 12, "three segments, got %zu words", all.size());
  uint64_t h = hashOf("hello world");
  for (size_t i = 0; i + 3 < all.size(); i += 4) CHECK((uint64_t(all[i]) << 32 | all[i + 1]) == h, "segment %zu hashes its trimmed line", i / 4);
  CHECK(all[2] == 0 && all[3] == 15, "first line [0, 15), got [%u, %u)", all[2], all[3]);
  CHECK(all[6] == 22 && all[7] == 34, "third line keeps its CR before the newline, got [%u, %u)", all[6], all[7]);
  CHECK(all[10] == 36 && all[11] == text.size(), "the last line has no newline, got [%u, %u)", all[10], all[11]);
  CHECK(segmentsOf(seg, text, {}, 10, true).size() == 4, "distinct: the first occurrence only");
  CHECK(segmentsOf(seg, text, {22, 23}, 10, false).size() == 8, "a special span inside a line drops it");
  CHECK(segmentsOf(seg, text, {15, 16}, 10, false).size() == 12, "a span on the newline ending line 1 touches none of the counted lines");
  CHECK(segmentsOf(seg, text, {}, 12, false).empty(), "minChars counts the trimmed line");
}

// Random short texts over a small alphabet (newlines, spaces, surrogates): segments against a direct scan.
static void fuzz(std::mt19937_64& rng, size_t iterations) {
  const char16_t alphabet[] = {u'a', u'b', u'\n', u' ', u'\t', 0xA0, 0xD83D, 0xDE00, 0x3000};
  LineSegmenter seg;
  for (size_t it = 0; it < iterations; it++) {
    std::u16string text(rng() % 200, u'a');
    for (auto& c : text) c = alphabet[rng() % (sizeof alphabet / sizeof alphabet[0])];
    uint32_t minChars = uint32_t(rng() % 4);
    auto got = segmentsOf(seg, text, {}, minChars, it % 2 == 1);
    std::vector<uint32_t> want;
    std::vector<uint64_t> seen;
    for (size_t start = 0; start < text.size();) {
      size_t end = text.find(u'\n', start);
      if (end == std::u16string::npos) end = text.size();
      size_t a = start, b = end;
      while (a < b && midpack::isTrimmedSpace(text[a])) a++;
      while (b > a && midpack::isTrimmedSpace(text[b - 1])) b--;
      if (b - a >= minChars) {
        auto bytes = utf8(text.substr(a, b - a));
        uint64_t h = midpack::xxh64(bytes.data(), bytes.size());
        bool first = std::find(seen.begin(), seen.end(), h) == seen.end();
        seen.push_back(h);
        if (it % 2 == 0 || first) want.insert(want.end(), {uint32_t(h >> 32), uint32_t(h), uint32_t(start), uint32_t(end)});
      }
      start = end + 1;
    }
    CHECK(got == want, "random text %zu (%zu units, minChars %u)", it, text.size(), minChars);
  }
}

// The units of a JSON string's content by hand: escapes, two- to four-byte characters (a pair
// split by a slice), a walk resumed where the last stopped, and content it does not read.
static void testJsonStringUnits() {
  const std::string lit = "a\\n\\\"\\u00e9\xC3\xA9\xF0\x9F\x98\x80z";  // a \n \" \u00e9 é 😀 z
  const auto* s = reinterpret_cast<const uint8_t*>(lit.data());
  const std::vector<uint16_t> want = {'a', '\n', '"', 0xE9, 0xE9, 0xD83D, 0xDE00, 'z'};
  std::vector<uint16_t> out;
  for (size_t start = 0; start <= want.size(); start++) {
    for (size_t end = start; end <= want.size(); end++) {
      size_t at = 0, unit = 0;
      bool ok = midpack::jsonStringUnits(s, lit.size(), at, unit, start, end, out);
      CHECK(ok && out == std::vector<uint16_t>(want.begin() + long(start), want.begin() + long(end)), "units [%zu, %zu)", start, end);
    }
  }
  size_t at = 0, unit = 0;
  CHECK(midpack::jsonStringUnits(s, lit.size(), at, unit, 1, 3, out) && unit == 3, "a walk stops at its end");
  CHECK(midpack::jsonStringUnits(s, lit.size(), at, unit, 5, 6, out) && out == std::vector<uint16_t>{0xD83D}, "a walk resumed");
  CHECK(!midpack::jsonStringUnits(s, lit.size(), at, unit, 0, 1, out), "a walk never goes back");
  at = unit = 0;
  CHECK(!midpack::jsonStringUnits(s, lit.size(), at, unit, 0, 9, out), "a text too short");
  // Runs of ASCII longer than a 16-byte step, around escapes and other characters, every window, walked on and afresh.
  std::string longLit;
  std::vector<uint16_t> longWant;
  for (int k = 0; k < 6; k++) {
    for (int j = 0; j < 13 + 7 * k; j++) {
      longLit += char('a' + (j + k) % 26);
      longWant.push_back(uint16_t('a' + (j + k) % 26));
    }
    longLit += k % 2 ? "\\t" : "\xE2\x82\xAC";
    longWant.push_back(k % 2 ? '\t' : 0x20AC);
  }
  const auto* ls = reinterpret_cast<const uint8_t*>(longLit.data());
  for (size_t start = 0; start <= longWant.size(); start++) {
    size_t walkAt = 0, walkUnit = 0;
    for (size_t end = start; end <= longWant.size(); end++) {
      size_t a = 0, u = 0;
      const std::vector<uint16_t> expect(longWant.begin() + long(start), longWant.begin() + long(end));
      CHECK(midpack::jsonStringUnits(ls, longLit.size(), a, u, start, end, out) && out == expect, "long units [%zu, %zu)", start, end);
      if (walkUnit <= start) CHECK(midpack::jsonStringUnits(ls, longLit.size(), walkAt, walkUnit, start, end, out) && out == expect, "long units walked on [%zu, %zu)", start, end);
    }
  }
  at = unit = 0;
  CHECK(midpack::jsonStringUnits(ls, longLit.size(), at, unit, 0, SIZE_MAX, out) == false && at == longLit.size() && out == longWant, "every unit to the literal's end");
  const std::string bad = "ab\\x";
  at = unit = 0;
  CHECK(!midpack::jsonStringUnits(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), at, unit, 0, 3, out), "an escape JSON does not allow");
}

// The one-pass paths against their definitions on random texts mixing the cases they take apart:
// runs of ASCII longer and shorter than a 16-byte (8-unit) step, escapes, raw control bytes, UTF-8
// of 2-4 bytes, lone and paired surrogates, bytes that are not JSON (the walk stops there).
static void fuzzOnePass(std::mt19937_64& rng, size_t iterations) {
  const char* pieces[] = {"a", "abcdefghijklmnopq", "xyz0123", "\\n", "\\\"", "\\u00e9", "\\ud83d", "\\ude00", "\x01", "\xC3\xA9",
                          "\xE2\x82\xAC", "\xF0\x9F\x98\x80", " ", "\\t", "\\/"};
  const char* bad[] = {"\\x", "\x80", "\xC3", "\\u12"};
  for (size_t it = 0; it < iterations; it++) {
    std::string lit;
    for (size_t k = rng() % 40; k > 0; k--) lit += pieces[rng() % (sizeof pieces / sizeof pieces[0])];
    if (rng() % 8 == 0) lit.insert(rng() % (lit.size() + 1), bad[rng() % (sizeof bad / sizeof bad[0])]);
    const auto* s = reinterpret_cast<const uint8_t*>(lit.data());
    std::vector<uint16_t> want;
    size_t at = 0, unit = 0;
    midpack::jsonStringUnits(s, lit.size(), at, unit, 0, SIZE_MAX, want);
    std::vector<uint16_t> got(lit.size() + 1);
    size_t units = 0;
    const size_t read = midpack::jsonStringAllUnits(s, lit.size(), got.data(), units);
    got.resize(units);
    // jsonStringUnits leaves `at` where it was when it fails: both read the whole literal, or neither.
    CHECK((read == lit.size()) == (at == lit.size()) && (read != lit.size() || got == want), "one pass over a literal of %zu bytes (read %zu, want %zu)", lit.size(), read, at);
    // Surrogates: a scalar walk of the same units decides.
    bool wellFormed = true;
    for (size_t i = 0; i < want.size() && wellFormed; i++) {
      const uint16_t c = want[i];
      if (c < 0xD800 || c > 0xDFFF) continue;
      if (c <= 0xDBFF && i + 1 < want.size() && want[i + 1] >= 0xDC00 && want[i + 1] <= 0xDFFF) i++;
      else wellFormed = false;
    }
    CHECK(midpack::wellFormedUtf16(want.data(), want.size()) == wellFormed, "well-formed units (%zu)", want.size());
    // UTF-8 of the units, eight ASCII at a time or one by one: the same bytes as a unit at a time.
    std::vector<uint8_t> fast(3 * want.size() + 1), slow;
    fast.resize(midpack::utf8Of(want.data(), 0, want.size(), fast.data()));
    for (size_t i = 0; i < want.size(); i++) {
      uint8_t b[8];
      const size_t pair = want[i] >= 0xD800 && want[i] <= 0xDBFF && i + 1 < want.size() && want[i + 1] >= 0xDC00 && want[i + 1] <= 0xDFFF ? 2 : 1;
      slow.insert(slow.end(), b, b + midpack::utf8Of(want.data(), i, i + pair, b));
      i += pair - 1;
    }
    CHECK(fast == slow, "utf8Of of %zu units", want.size());
  }
}

// The count table's loops against a std::map: random keys (few distinct low halves, so probes
// collide and wrap), counted in calls that stop where the table must grow, grown by moveEntries,
// listed by keyOrderRecords in key order with every count.
static void testCountTable(std::mt19937_64& rng, size_t iterations) {
  for (size_t it = 0; it < iterations; it++) {
    const size_t n = 1 + rng() % 400, stride = 4;
    std::vector<uint32_t> found(n * stride);
    for (size_t i = 0; i < found.size(); i += stride) {
      found[i] = uint32_t(rng() % 7);
      found[i + 1] = uint32_t(rng() % 64) * 16 + 15;  // the same home slot in small tables
    }
    std::vector<uint32_t> words(4 * 16, 0), candidates;
    midpack::CountTable table{words.data(), 15, 1, 0};
    std::map<uint64_t, uint32_t> want;
    for (size_t i = 0; i < found.size();) {
      const midpack::CountKeys keys{found.data(), i, found.size(), stride, (table.mask + 1) / 2, 1};
      const size_t stopped = midpack::countKeys(table, keys, candidates);
      // The candidates: every key whose count became a power of two, in order, at its slot.
      size_t c = 0;
      for (size_t k = i; k < stopped; k += stride) {
        const uint32_t v = ++want[uint64_t(found[k]) << 32 | found[k + 1]];
        if ((v & (v - 1)) != 0) continue;
        const bool listed = c + 1 < candidates.size() && candidates[c] == k;
        CHECK(listed && words[4 * candidates[c + 1] + 2] == found[k] && words[4 * candidates[c + 1] + 1] == found[k + 1], "key %zu (count %u) is a candidate at its slot", k, v);
        c += 2;
      }
      CHECK(c == candidates.size(), "%zu candidates, %zu listed", c / 2, candidates.size() / 2);
      CHECK(table.size == want.size(), "size %u, %zu keys", table.size, want.size());
      i = stopped;
      if (i == found.size()) break;
      std::vector<uint32_t> larger(8 * (table.mask + 1), 0);
      midpack::CountTable grown{larger.data(), 2 * table.mask + 1, 1, 0};
      midpack::moveEntries(table, grown);
      CHECK(grown.size == table.size, "moved %u of %u", grown.size, table.size);
      words.swap(larger);
      table = {words.data(), grown.mask, 1, grown.size};
    }
    std::vector<uint32_t> records;
    midpack::keyOrderRecords(table, records);
    CHECK(records.size() == 3 * want.size(), "%zu records of %zu keys", records.size() / 3, want.size());
    size_t k = 0;
    for (const auto& [key, count] : want) {
      if (3 * k + 2 >= records.size()) break;
      CHECK((uint64_t(records[3 * k + 1]) << 32 | records[3 * k]) == key && records[3 * k + 2] == count, "record %zu", k);
      k++;
    }
  }
}

// A large table's own memory (Linux): 2 MB-aligned, zeroed, its words kept across a fork (the
// child, which never reads them, exits); no mapping for a size that is not whole 2 MB pages.
static void testTableMemory() {
  const size_t hugePage = size_t(2) << 20;
  CHECK(midpack::mapTableWords(hugePage + 4096) == nullptr && midpack::mapTableWords(0) == nullptr, "only whole 2 MB pages");
#if defined(__linux__)
  for (const size_t bytes : {hugePage, 3 * hugePage}) {
    uint32_t* words = midpack::mapTableWords(bytes);
    CHECK(words != nullptr, "a mapping of %zu bytes", bytes);
    if (!words) continue;
    const size_t n = bytes / sizeof(uint32_t);
    const auto wordAt = [](size_t i) { return uint32_t(i * 2654435761u); };
    CHECK(reinterpret_cast<uintptr_t>(words) % hugePage == 0, "2 MB-aligned");
    CHECK(std::all_of(words, words + n, [](uint32_t w) { return w == 0; }), "zeroed");
    for (size_t i = 0; i < n; i++) words[i] = wordAt(i);
    const pid_t child = fork();
    if (child == 0) _exit(0);
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0, "a forked child runs");
    for (size_t i = 0; i < n; i += 1021) words[i]++;
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += words[i] != wordAt(i) + (i % 1021 == 0 ? 1 : 0);
    CHECK(wrong == 0, "%zu words differ from those written before the fork and after", wrong);
    midpack::unmapTableWords(words, bytes);
  }
#endif
}

int main(int argc, char** argv) {
  size_t iterations = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 500;
  uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 12345;
  std::mt19937_64 rng(seed);
  testXxh64();
  testUtf8();
  testTrimSet();
  testByHand();
  testJsonStringUnits();
  fuzz(rng, iterations);
  fuzzOnePass(rng, 2 * iterations);
  testCountTable(rng, iterations / 10 + 1);
  testTableMemory();
  if (failures) return 1;
  std::printf("test_segments: ok (%zu random texts)\n", iterations);
  return 0;
}
