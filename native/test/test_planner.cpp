// The whole-corpus planner's own tests (randomized), whole-pass and windowed: every unit of the
// cut in exactly one bin, no bin over capacity, the same bins for any batch split, and for any
// input order when the documents carry their keys; in one pass, whole-pass placement gives
// exactly the bins of a plain best-fit-decreasing reference (a linear scan over open bins).
// Built with the sanitizers by native/scripts/test.sh.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "planner.hpp"
#include "check.hpp"

using namespace midpack;


using Placed = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;  // key, start, end, header
using Bins = std::vector<std::vector<Placed>>;

struct Corpus {
  std::vector<uint32_t> lengths, keys;
};

// Plans the corpus fed in batches of `split` documents (0: one batch).
static Bins plan(const PlannerOptions& o, const Corpus& c, size_t split, PackerStats* stats) {
  Planner p(o);
  const size_t n = c.lengths.size();
  const size_t step = split == 0 ? std::max<size_t>(1, n) : split;
  for (size_t i = 0; i < n; i += step) p.count(c.lengths.data() + i, std::min(step, n - i));
  Bins bins;
  auto drain = [&]() {
    ClosedBins& cb = p.closed();
    for (size_t b = 0; b < cb.binCount(); b++) {
      std::vector<Placed> bin;
      for (uint32_t u = cb.binUnitStart[b]; u < cb.binUnitStart[b + 1]; u++) {
        bin.emplace_back(c.keys[cb.unitDoc[u]], cb.unitStart[u], cb.unitEnd[u], cb.unitHeader[u]);
      }
      std::sort(bin.begin(), bin.end());
      bins.push_back(bin);
    }
    cb.clear();
  };
  for (uint32_t pass = 0; pass < p.passes(); pass++) {
    p.beginPass(pass);
    for (size_t i = 0; i < n; i += step) p.feed(c.lengths.data() + i, std::min(step, n - i), nullptr, nullptr, nullptr, c.keys.data() + i);
    p.endPass();
    drain();
  }
  p.finish();
  drain();
  *stats = p.stats();
  return bins;
}

// Best-fit decreasing over all units at once, by a linear scan: longest first (ties by key,
// then cut order), each into the open bin with the least room that holds it (of those, the
// one that got its room last), else a new bin. The planner's whole-pass rule, written plainly.
static Bins referenceBfd(const PlannerOptions& o, const Corpus& c) {
  struct Keyed {
    uint32_t len;
    uint64_t key;
    uint32_t id;
    Unit u;
  };
  std::vector<Keyed> all;
  PackerStats ignored;
  uint32_t id = 0;
  for (size_t i = 0; i < c.lengths.size(); i++) {
    std::vector<Unit> units;
    cutDocument(o.packer, uint32_t(i), c.lengths[i], nullptr, 0, 0, ignored, units);
    for (const Unit& u : units) all.push_back(Keyed{u.length(), unitKey(o.seed, true, c.keys[i], uint32_t(i), u.id), id++, u});
  }
  std::sort(all.begin(), all.end(), [](const Keyed& a, const Keyed& b) {
    return a.len != b.len ? a.len > b.len : a.key != b.key ? a.key < b.key : a.id < b.id;
  });
  std::vector<uint64_t> room, stamp;
  Bins bins;
  uint64_t clock = 0;
  for (const Keyed& k : all) {
    size_t best = room.size();
    for (size_t b = 0; b < room.size(); b++) {
      if (room[b] == 0 || room[b] < k.len) continue;
      if (best == room.size() || room[b] < room[best] || (room[b] == room[best] && stamp[b] > stamp[best])) best = b;
    }
    if (best == room.size()) {
      room.push_back(o.packer.capacity);
      stamp.push_back(0);
      bins.emplace_back();
    }
    room[best] -= k.len;
    stamp[best] = ++clock;
    bins[best].emplace_back(c.keys[k.u.doc], k.u.start, k.u.end, k.u.header);
  }
  for (auto& bin : bins) std::sort(bin.begin(), bin.end());
  return bins;
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::mt19937_64 rng(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1);
  auto below = [&](uint64_t n) { return uint32_t(rng() % n); };
  for (int it = 0; it < iters; it++) {
    PlannerOptions o;
    o.packer.capacity = 1 + below(200);
    o.packer.overlong = Overlong(below(5));
    o.packer.slideStride = std::max<uint32_t>(1, o.packer.capacity / 2);
    const bool whole = below(2) == 0;
    o.packer.windowUnits = whole ? 0 : 1 + below(40);
    o.packer.maxOpenBins = 1 + below(10);
    o.packer.maxHeldUnits = 1 + below(200);
    o.passUnits = below(3) == 0 ? 1000 : 1 + below(100);
    o.seed = rng();
    Corpus c;
    const size_t n = below(300);
    for (size_t i = 0; i < n; i++) {
      c.lengths.push_back(below(4) == 0 ? o.packer.capacity * (1 + below(4)) + below(3) : below(2 * o.packer.capacity));
      c.keys.push_back(uint32_t(i * 2654435761u));  // distinct keys
    }
    PackerStats stats;
    const Bins ref = plan(o, c, 0, &stats);
    // each unit of the cut exactly once, no bin over capacity
    std::vector<Placed> want, got;
    PackerStats ignored;
    std::vector<Unit> units;
    for (size_t i = 0; i < n; i++) cutDocument(o.packer, uint32_t(i), c.lengths[i], nullptr, 0, 0, ignored, units);
    for (const Unit& u : units) want.emplace_back(c.keys[u.doc], u.start, u.end, u.header);
    uint64_t padding = 0;
    for (const auto& bin : ref) {
      uint64_t fill = 0;
      for (const auto& x : bin) {
        got.push_back(x);
        fill += std::get<3>(x) + std::get<2>(x) - std::get<1>(x);
      }
      CHECK(fill <= o.packer.capacity, "case %d: a bin holds %llu > %u", it, (unsigned long long)fill, o.packer.capacity);
      padding += o.packer.capacity - fill;
    }
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    CHECK(got == want, "case %d: the bins do not hold the cut's units exactly once", it);
    CHECK(stats.bins == ref.size() && stats.paddingTokens == padding, "case %d: stats disagree with the bins", it);
    // batch splits and input order do not change the bins
    for (size_t split : {1, 7}) {
      PackerStats s2;
      CHECK(plan(o, c, split, &s2) == ref, "case %d: split %zu changes the bins", it, split);
    }
    Corpus reversed{std::vector<uint32_t>(c.lengths.rbegin(), c.lengths.rend()), std::vector<uint32_t>(c.keys.rbegin(), c.keys.rend())};
    PackerStats s3;
    Bins rev = plan(o, reversed, 3, &s3);
    auto canon = [](Bins b) {
      std::sort(b.begin(), b.end());
      return b;
    };
    CHECK(canon(rev) == canon(ref), "case %d: reversed input changes the bins", it);
    if (whole && units.size() <= o.passUnits) CHECK(canon(ref) == canon(referenceBfd(o, c)), "case %d: one pass differs from best-fit decreasing", it);
  }
  if (failures) {
    std::fprintf(stderr, "%d planner failures\n", failures);
    return 1;
  }
  std::printf("native planner tests passed: %d randomized cases\n", iters);
  return 0;
}
