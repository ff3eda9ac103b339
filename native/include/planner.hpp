#pragma once
// Whole-corpus bin planning over the streaming best-fit core: the result does not depend on
// the order the documents arrive in. Plain C++17, tested on its own (native/test/test_planner.cpp).
//
// The caller streams the corpus's lengths several times:
//   1. count(...) over every batch: cuts the documents, counts units and the cut's figures;
//   2. for each pass p in [0, passes()): beginPass(p), feed(...) over every batch, endPass().
// A unit's key is a seeded hash of its identity (the document's key and the unit's place in
// the document). Pass p keeps the units whose key is p modulo passes(), orders them by key
// and hands them to the best-fit packer, whose windows of `windowUnits` units are therefore
// fair samples of the whole corpus whatever the input order. Open bins carry across windows
// and passes. Memory: about 24 bytes per unit of one pass (at most `passUnits`), plus the packer's.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "packer.hpp"

namespace midpack {

struct PlannerOptions {
  PackerOptions packer;
  uint64_t seed = 0;
  uint32_t passUnits = 1u << 22;  // units held by one planning pass at most
};

/** splitmix64: the mixing step of the unit keys. */
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class Planner {
 public:
  explicit Planner(const PlannerOptions& opts);

  /** Counting pass: batches in corpus order, boundaries as for Packer::push. */
  void count(const uint32_t* lengths, size_t n, const uint32_t* boundaryCounts = nullptr,
             const uint32_t* boundaryOffsets = nullptr, const uint32_t* headerLens = nullptr);
  /** Passes needed so that none holds more than passUnits units (at least 1); fixed by count(). */
  uint32_t passes() const;

  void beginPass(uint32_t pass);
  /**
   * The same batches as count(), in the same order. `docKeys` (one per document, may be null:
   * then the document's index is its identity) is what makes the plan independent of order.
   */
  void feed(const uint32_t* lengths, size_t n, const uint32_t* boundaryCounts, const uint32_t* boundaryOffsets,
            const uint32_t* headerLens, const uint32_t* docKeys);
  /** Places the pass's units, by key; closed bins are in closed(). */
  void endPass();
  /** Places what is left and closes every open bin. */
  void finish();

  ClosedBins& closed() { return packer_.closed(); }
  /** The cut's figures from count(), bins and padding from the packer. */
  PackerStats stats() const;

 private:
  struct Keyed {
    uint64_t key;
    uint32_t at;  // position in pending_
  };
  PlannerOptions opts_;
  Packer packer_;
  PackerStats cutStats_;
  bool counted_ = false;
  uint32_t passes_ = 1;
  uint32_t pass_ = 0;
  uint32_t nextDoc_ = 0;
  uint32_t nextUnit_ = 0;
  std::vector<Unit> cut_, pending_, ordered_;
  std::vector<Keyed> keys_;
};

}  // namespace midpack
