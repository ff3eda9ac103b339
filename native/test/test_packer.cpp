// The packing core's own tests and randomized driver: built with -fsanitize=address,undefined
// by native/scripts/test.sh, apart from Node. Usage: test_packer [iterations] [seed]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "packer.hpp"
#include "check.hpp"

using namespace midpack;


struct Input {
  std::vector<uint32_t> lengths, counts, offsets, headers;
};

struct Output {
  std::vector<uint32_t> binStart{0}, doc, start, end, header;
  PackerStats stats;
  bool operator==(const Output& o) const {
    return binStart == o.binStart && doc == o.doc && start == o.start && end == o.end && header == o.header;
  }
};

static void drain(Packer& p, Output& out) {
  ClosedBins& c = p.closed();
  uint32_t base = uint32_t(out.doc.size());
  for (size_t b = 1; b < c.binUnitStart.size(); b++) out.binStart.push_back(base + c.binUnitStart[b]);
  out.doc.insert(out.doc.end(), c.unitDoc.begin(), c.unitDoc.end());
  out.start.insert(out.start.end(), c.unitStart.begin(), c.unitStart.end());
  out.end.insert(out.end.end(), c.unitEnd.begin(), c.unitEnd.end());
  out.header.insert(out.header.end(), c.unitHeader.begin(), c.unitHeader.end());
  c.clear();
}

// Packs the input pushed in random batches (the split must not change anything).
static Output run(const PackerOptions& o, const Input& in, std::mt19937_64& rng) {
  Packer p(o);
  Output out;
  size_t i = 0, off = 0;
  bool withBoundaries = !in.counts.empty();
  while (i < in.lengths.size()) {
    size_t n = std::min<size_t>(in.lengths.size() - i, 1 + rng() % 50);
    p.push(in.lengths.data() + i, n, withBoundaries ? in.counts.data() + i : nullptr,
           withBoundaries ? in.offsets.data() + off : nullptr, withBoundaries ? in.headers.data() + i : nullptr);
    for (size_t k = 0; withBoundaries && k < n; k++) off += in.counts[i + k];
    i += n;
    drain(p, out);
  }
  p.finish();
  drain(p, out);
  out.stats = p.stats();
  return out;
}

// ---- an independent, slow reference of the same best-fit rule --------------------------------
// Open bins scanned linearly: least remaining room that holds the unit; ties go to the bin whose
// room changed last (the core keeps each room's bins as a stack).
static Output reference(const PackerOptions& o, const Input& in) {
  struct U { uint32_t doc, start, end, header; uint32_t len() const { return header + end - start; } };
  struct B { uint32_t remaining; uint64_t stamp, seq; std::vector<U> units; };
  const uint32_t L = o.capacity, stride = o.slideStride ? o.slideStride : std::max<uint32_t>(1, L / 2);
  std::vector<U> units;
  size_t off = 0;
  for (uint32_t d = 0; d < in.lengths.size(); d++) {
    uint32_t len = in.lengths[d];
    uint32_t count = in.counts.empty() ? 0 : in.counts[d];
    const uint32_t* bs = in.offsets.data() + off;
    off += count;
    if (len <= L) { units.push_back({d, 0, len, 0}); continue; }
    Overlong pol = o.overlong;
    if (pol == Overlong::Boundary && count == 0) pol = Overlong::Split;
    if (pol == Overlong::Drop) continue;
    if (pol == Overlong::Truncate) { units.push_back({d, 0, L, 0}); continue; }
    if (pol == Overlong::Split) { for (uint32_t s = 0; s < len; s += L) units.push_back({d, s, std::min(len, s + L), 0}); continue; }
    if (pol == Overlong::Slide) {
      uint64_t s = 0;
      for (; s + L < len; s += stride) units.push_back({d, uint32_t(s), uint32_t(s + L), 0});
      units.push_back({d, len - L, len, 0});
      continue;
    }
    uint32_t header = in.headers[d] < L ? in.headers[d] : 0, s = 0;
    while (true) {
      uint32_t room = s == 0 ? L : L - header, h = s == 0 ? 0 : header;
      if (len - s <= room) { units.push_back({d, s, len, h}); break; }
      uint32_t cut = 0;
      for (uint32_t k = 0; k < count; k++)
        if (bs[k] > s && bs[k] > header && bs[k] <= s + room) cut = std::max(cut, bs[k]);
      if (cut == 0) cut = s + room;
      units.push_back({d, s, cut, h});
      s = cut;
    }
  }
  Output out;
  std::vector<B> open;
  uint64_t stamp = 0, seq = 0;
  size_t held = 0;
  auto emit = [&](size_t k) {
    for (const U& u : open[k].units) {
      out.doc.push_back(u.doc); out.start.push_back(u.start); out.end.push_back(u.end); out.header.push_back(u.header);
    }
    out.binStart.push_back(uint32_t(out.doc.size()));
    held -= open[k].units.size();
    open.erase(open.begin() + long(k));
  };
  auto fullest = [&](uint32_t need) {
    long best = -1;
    for (size_t k = 0; k < open.size(); k++) {
      if (open[k].remaining < need) continue;
      if (best < 0 || open[k].remaining < open[size_t(best)].remaining ||
          (open[k].remaining == open[size_t(best)].remaining && open[k].stamp > open[size_t(best)].stamp))
        best = long(k);
    }
    return best;
  };
  for (size_t w = 0; w < units.size(); w += o.windowUnits) {
    std::vector<U> win(units.begin() + long(w), units.begin() + long(std::min(units.size(), w + o.windowUnits)));
    std::stable_sort(win.begin(), win.end(), [](const U& a, const U& b) { return a.len() > b.len(); });
    for (const U& u : win) {
      long k = fullest(u.len());
      if (k < 0) { open.push_back({L, 0, seq++, {}}); k = long(open.size() - 1); }
      open[size_t(k)].units.push_back(u);
      open[size_t(k)].remaining -= u.len();
      open[size_t(k)].stamp = stamp++;
      held++;
      if (open[size_t(k)].remaining == 0) emit(size_t(k));
      while (open.size() > o.maxOpenBins || held > o.maxHeldUnits) emit(size_t(fullest(0)));
    }
  }
  std::stable_sort(open.begin(), open.end(), [](const B& a, const B& b) { return a.seq < b.seq; });
  while (!open.empty()) emit(0);
  return out;
}

// ---- invariants -----------------------------------------------------------------------------

static void checkInvariants(const PackerOptions& o, const Input& in, const Output& out, const char* what) {
  const uint32_t L = o.capacity;
  const PackerStats& s = out.stats;
  CHECK(s.docs == in.lengths.size(), "%s: docs", what);
  CHECK(s.bins == out.binStart.size() - 1, "%s: bins", what);
  CHECK(s.units == out.doc.size(), "%s: units %llu vs %zu", what, (unsigned long long)s.units, out.doc.size());
  uint64_t padding = 0, placed = 0;
  for (size_t b = 0; b + 1 < out.binStart.size(); b++) {
    uint64_t fill = 0;
    for (uint32_t u = out.binStart[b]; u < out.binStart[b + 1]; u++) fill += out.header[u] + out.end[u] - out.start[u];
    CHECK(fill <= L, "%s: bin %zu holds %llu > %u", what, b, (unsigned long long)fill, L);
    padding += L - fill;
    placed += fill;
  }
  CHECK(padding == s.paddingTokens, "%s: padding", what);
  CHECK(placed == s.tokens - s.droppedTokens + s.duplicatedTokens, "%s: placed tokens", what);
  // Per document: its units, in order of start, cover it as the policy says.
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> byDoc;
  for (size_t u = 0; u < out.doc.size(); u++) byDoc[out.doc[u]].push_back({out.start[u], out.end[u]});
  for (uint32_t d = 0; d < in.lengths.size(); d++) {
    uint32_t len = in.lengths[d];
    auto it = byDoc.find(d);
    if (it == byDoc.end()) {
      CHECK(len > L && o.overlong == Overlong::Drop, "%s: doc %u (len %u) missing", what, d, len);
      continue;
    }
    auto& v = it->second;
    std::sort(v.begin(), v.end());
    CHECK(v.front().first == 0, "%s: doc %u does not start at 0", what, d);
    if (o.overlong == Overlong::Truncate && len > L) {
      CHECK(v.size() == 1 && v[0].second == L, "%s: truncate", what);
      continue;
    }
    CHECK(v.back().second == len, "%s: doc %u does not end at its length", what, d);
    for (size_t k = 1; k < v.size(); k++) {
      if (o.overlong == Overlong::Slide) CHECK(v[k].first <= v[k - 1].second && v[k].first > v[k - 1].first, "%s: slide gap", what);
      else CHECK(v[k].first == v[k - 1].second, "%s: doc %u chunks do not tile", what, d);
    }
    if (o.overlong == Overlong::Split && len > L) {
      for (size_t k = 0; k + 1 < v.size(); k++) CHECK(v[k].second - v[k].first == L, "%s: split chunk not L", what);
    }
  }
}

static void testCapacityIndex(std::mt19937_64& rng) {
  for (uint32_t n : {0u, 1u, 63u, 64u, 65u, 4095u, 4096u, 262144u}) {
    CapacityIndex idx(n);
    std::set<uint32_t> ref;
    for (int step = 0; step < 3000; step++) {
      uint32_t x = uint32_t(rng() % (uint64_t(n) + 1));
      if (rng() % 3 == 0) { idx.erase(x); ref.erase(x); }
      else { idx.insert(x); ref.insert(x); }
      uint32_t q = uint32_t(rng() % (uint64_t(n) + 1));
      auto it = ref.lower_bound(q);
      int64_t want = it == ref.end() ? -1 : int64_t(*it);
      CHECK(idx.successor(q) == want, "successor(%u) in [0,%u]", q, n);
    }
  }
}

static void testExamples() {
  std::mt19937_64 rng(1);
  PackerOptions o;
  o.capacity = 10;
  Input in{{6, 4, 5, 5, 3}, {}, {}, {}};
  Output out = run(o, in, rng);
  // Window sorted 6,5,5,4,3: 6 opens A, 5 opens B, 5 fills B (emitted first), 4 fills A, 3 opens C.
  CHECK((out.binStart == std::vector<uint32_t>{0, 2, 4, 5}), "example bins");
  CHECK((out.doc == std::vector<uint32_t>{2, 3, 0, 1, 4}), "example docs");
  CHECK(out.stats.paddingTokens == 7, "example padding");
  // split of 25 at L=10: 10, 10, 5
  in = Input{{25}, {}, {}, {}};
  out = run(o, in, rng);
  CHECK((out.start == std::vector<uint32_t>{0, 10, 20}) && (out.end == std::vector<uint32_t>{10, 20, 25}), "split");
  // slide of 25, stride 5: [0,10) [5,15) [10,20) [15,25); dup = 40 - 25
  o.overlong = Overlong::Slide;
  o.slideStride = 5;
  out = run(o, in, rng);
  CHECK(out.stats.units == 4 && out.stats.duplicatedTokens == 15, "slide units %llu dup %llu",
        (unsigned long long)out.stats.units, (unsigned long long)out.stats.duplicatedTokens);
  // boundary: header 2, boundaries at 2, 7, 12, 19; len 25 -> [0,7) [7,12)+2 [12,19)+2 [19,25)+2
  o.overlong = Overlong::Boundary;
  in = Input{{25}, {4}, {2, 7, 12, 19}, {2}};
  out = run(o, in, rng);
  std::vector<std::pair<uint32_t, uint32_t>> chunks;
  for (size_t u = 0; u < out.doc.size(); u++) chunks.push_back({out.start[u], out.end[u]});
  std::sort(chunks.begin(), chunks.end());
  CHECK((chunks == std::vector<std::pair<uint32_t, uint32_t>>{{0, 7}, {7, 12}, {12, 19}, {19, 25}}), "boundary chunks");
  CHECK(out.stats.duplicatedTokens == 6, "boundary header repeats");
}

static void fuzzOnce(std::mt19937_64& rng, size_t iter) {
  PackerOptions o;
  o.capacity = uint32_t(1 + rng() % (rng() % 4 == 0 ? 5 : 300));
  o.overlong = Overlong(rng() % 5);
  o.slideStride = uint32_t(rng() % (o.capacity + 1));
  o.windowUnits = uint32_t(1 + rng() % 64);
  o.maxOpenBins = uint32_t(1 + rng() % 16);
  o.maxHeldUnits = uint32_t(1 + rng() % 200);
  const uint32_t L = o.capacity;
  Input in;
  size_t n = rng() % 200;
  for (size_t i = 0; i < n; i++) {
    uint32_t special[] = {0, 1, L - 1, L, L + 1, 10 * L};
    uint32_t len = rng() % 3 == 0 ? special[rng() % 6] : uint32_t(rng() % (3 * uint64_t(L) + 1));
    in.lengths.push_back(len);
    uint32_t count = len > 1 ? uint32_t(rng() % std::min<uint32_t>(6, len - 1)) : 0;
    std::set<uint32_t> bs;
    while (bs.size() < count) bs.insert(uint32_t(1 + rng() % (len - 1)));
    in.counts.push_back(count);
    in.offsets.insert(in.offsets.end(), bs.begin(), bs.end());
    in.headers.push_back(bs.empty() ? 0 : std::min(*bs.begin(), uint32_t(rng() % (L + 2))));
  }
  char what[128];
  std::snprintf(what, sizeof what, "iteration %zu (L=%u policy=%u)", iter, L, unsigned(o.overlong));
  Output a = run(o, in, rng);
  Output b = run(o, in, rng);
  CHECK(a == b, "%s: batch splits changed the result", what);
  checkInvariants(o, in, a, what);
  CHECK(a == reference(o, in), "%s: differs from the reference best fit", what);
}

int main(int argc, char** argv) {
  size_t iterations = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 500;
  uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 12345;
  std::mt19937_64 rng(seed);
  testCapacityIndex(rng);
  testExamples();
  for (size_t i = 0; i < iterations; i++) fuzzOnce(rng, i);
  bool threw = false;
  try {
    PackerOptions bad;
    bad.capacity = 0;
    Packer p(bad);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK(threw, "capacity 0 is rejected");
  if (failures) {
    std::fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  std::printf("native packer tests passed: %zu randomized cases (seed %llu)\n", iterations, (unsigned long long)seed);
  return 0;
}
