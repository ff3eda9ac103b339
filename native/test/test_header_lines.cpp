// Linguist's `.h` answer in the plain core: headers by hand (each alternative, and where a line
// start, white space or a word boundary decides), then random texts of the characters the
// patterns turn on, every length around the 8-unit blocks, read exactly to their ends (the
// sanitizers stop a read past them). The answers on real headers are held to the expressions
// in test/stages/repos/languages.test.ts.
#include <random>
#include <string>
#include <vector>

#include "check.hpp"
#include "header_lines.hpp"

using midpack::HeaderLanguage;

static HeaderLanguage of(const std::u16string& s) {
  // An exact-size copy: a read past the end is the sanitizers' to catch.
  std::vector<uint16_t> text(s.begin(), s.end());
  return midpack::headerLanguage(text.data(), text.size());
}

static void testByHand() {
  const struct {
    std::u16string text;
    HeaderLanguage want;
  } cases[] = {
      {u"", HeaderLanguage::C},
      {u"int x;\n", HeaderLanguage::C},
      {u"#include <stdio.h>\n", HeaderLanguage::C},
      {u"  @interface A\n", HeaderLanguage::ObjectiveC},
      {u"x @interface A\n", HeaderLanguage::C},
      {u"@endx\n", HeaderLanguage::C},
      {u"@end", HeaderLanguage::ObjectiveC},
      {u"#import \"a.h\"", HeaderLanguage::ObjectiveC},
      {u"#import\n\"a.h\"", HeaderLanguage::ObjectiveC},
      {u"#import \n.h\"", HeaderLanguage::C},
      {u"#import a.h\n\"", HeaderLanguage::C},
      {u"#  include <vector>\n", HeaderLanguage::Cpp},
      {u"#include <vectors>\n", HeaderLanguage::C},
      {u"\ttemplate\n<class T>", HeaderLanguage::Cpp},
      {u"\ftry {", HeaderLanguage::C},
      {u" try {", HeaderLanguage::Cpp},
      {u"x\n using \t namespace std;", HeaderLanguage::Cpp},
      {u"class\n\nA", HeaderLanguage::Cpp},
      {u"public:\r\n", HeaderLanguage::Cpp},
      {u"public: \n", HeaderLanguage::C},
      {u"x\u2028protected:", HeaderLanguage::Cpp},
      {u"a std::x", HeaderLanguage::Cpp},
      {u"a std::", HeaderLanguage::C},
      {u"#if __cplusplus >= 201103L", HeaderLanguage::Cpp},
      {u"#if __cplusplus>=201103L", HeaderLanguage::C},
      {u"template <class T>\n@end\n", HeaderLanguage::ObjectiveC},
      {u"\ufeff@interface X", HeaderLanguage::ObjectiveC},
  };
  for (const auto& c : cases) CHECK(of(c.text) == c.want, "case of %zu units: got %d", c.text.size(), static_cast<int>(of(c.text)));
}

// Random texts of the characters the patterns read; each answer is checked to be one of the three.
static void fuzz(std::mt19937_64& rng, size_t iterations) {
  const std::u16string alphabet = u"@#_:s \t\n\r\u2028\u00a0<>\"hiencludtrypaso.";
  for (size_t i = 0; i < iterations; ++i) {
    std::u16string s(rng() % 40, u' ');
    for (auto& c : s) c = alphabet[rng() % alphabet.size()];
    const int got = static_cast<int>(of(s));
    CHECK(got >= 0 && got <= 2, "answer %d", got);
  }
}

int main(int argc, char** argv) {
  size_t iterations = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 500;
  uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 12345;
  std::mt19937_64 rng(seed);
  testByHand();
  fuzz(rng, iterations);
  if (failures) return 1;
  std::printf("test_header_lines: ok (%zu random texts)\n", iterations);
  return 0;
}
