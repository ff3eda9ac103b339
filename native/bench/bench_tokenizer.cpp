// The tokenizer core alone, no JavaScript: bench_tokenizer DIR [PASSES] [cold]. DIR holds the core's
// constructor arguments and length-prefixed UTF-16 texts `code` and `prose`, as
// scripts/bench-tokenizer-core.ts writes them. Each set is repeated to 8 MB and encoded PASSES
// times after a warm-up pass, an ASCII text as bytes (as the binding hands it over), any other as
// UTF-16. Prints per set the median MB (UTF-8) per CPU-second of this thread, and a checksum of
// every id and range (from the warm-up pass), which two builds of the core must share.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>
#include "bpe_tokenizer.hpp"
using namespace midpack;
static std::string slurp(const std::string& p) { std::ifstream f(p, std::ios::binary); std::stringstream s; s << f.rdbuf(); return s.str(); }
template <typename T> static std::vector<T> arr(const std::string& p) { std::string s = slurp(p); std::vector<T> v(s.size() / sizeof(T)); std::memcpy(v.data(), s.data(), v.size() * sizeof(T)); return v; }
static double cpu() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char** argv) {
  std::string dir = argv[1];
  int passes = argc > 2 ? atoi(argv[2]) : 5;
  BpeConfig c;
  c.byteIds = arr<int32_t>(dir + "/byteIds");
  c.merges = arr<int32_t>(dir + "/merges");
  c.classes = arr<uint8_t>(dir + "/classes");
  c.tokenLengths = arr<int32_t>(dir + "/tokenLengths");
  c.tokenBytes = slurp(dir + "/tokenBytes");
  // The vocabulary check's outcome, when the backend passed it (a prepared entry's list).
  if (std::ifstream(dir + "/unmergedTokens")) { c.unmergedKnown = true; c.unmergedTokens = arr<int32_t>(dir + "/unmergedTokens"); }
  int md, im, pat; size_t ce;
  sscanf(slurp(dir + "/meta").c_str(), "%d %d %zu %d", &md, &im, &ce, &pat);
  c.maxDigits = md; c.ignoreMerges = im; c.cacheEntries = ce; c.pattern = static_cast<SplitPattern>(pat);
  // "cold": every pass on a core built afresh, so each piece's first sight (its merges) is timed,
  // as in a pack's first pass over new text; otherwise the passes reuse one core's tables.
  bool cold = argc > 3 && std::string(argv[3]) == "cold";
  std::unique_ptr<BpeTokenizer> core(new BpeTokenizer(c));
  for (const char* name : {"code", "prose"}) {
    std::string raw = slurp(dir + "/" + name);
    std::vector<std::u16string> texts;
    for (size_t at = 0; at + 4 <= raw.size();) { uint32_t n; std::memcpy(&n, raw.data() + at, 4); at += 4; std::u16string s(n, u'\0'); std::memcpy(&s[0], raw.data() + at, 2 * n); at += 2 * n; texts.push_back(s); }
    size_t bytes = 0; std::vector<std::u16string> grown;
    while (bytes < 8000000) for (auto& s : texts) { grown.push_back(s); for (char16_t u : s) bytes += u < 0x80 ? 1 : u < 0x800 ? 2 : (u >= 0xD800 && u < 0xE000) ? 2 : 3; }
    std::vector<double> rates; uint64_t sum = 0; Encoding out;
    std::vector<std::vector<uint8_t>> asc(grown.size());
    for (size_t g = 0; g < grown.size(); g++) { bool a = true; for (char16_t u : grown[g]) a &= u < 0x80; if (a) { asc[g].assign(grown[g].begin(), grown[g].end()); asc[g].resize(grown[g].size() + 16, 0); } }
    for (int p = -1; p < passes; p++) {
      if (cold && p >= 0) core.reset(new BpeTokenizer(c));
      BpeTokenizer& t = *core;
      double t0 = cpu();
      for (size_t g = 0; g < grown.size(); g++) {
        const std::u16string& s = grown[g];
        out.clear();
        // as the binding does: an ASCII text as bytes (16 zero bytes after it), else UTF-16
        if (!asc[g].empty()) t.encodeAscii(asc[g].data(), s.size(), out);
        else t.encode(s.data(), s.size(), out);
        if (p < 0) for (size_t k = 0; k < out.ids.size(); k++) sum = sum * 1000003 + static_cast<uint32_t>(out.ids[k]) * 31 + out.starts[k] * 7 + out.ends[k];
      }
      double dt = cpu() - t0;
      if (p >= 0) rates.push_back(bytes / 1e6 / dt);
    }
    std::sort(rates.begin(), rates.end());
    printf("%s %.1f MB/s (min %.1f max %.1f) sum %016llx\n", name, rates[rates.size() / 2], rates.front(), rates.back(), (unsigned long long)sum);
  }
}
