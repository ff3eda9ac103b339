#pragma once
// Whole-corpus bin planning: the result does not depend on the order the documents arrive in.
// Plain C++17, tested on its own (native/test/test_planner.cpp).
//
// The caller streams the corpus's lengths several times:
//   1. count(...) over every batch: cuts the documents, counts units and the cut's figures;
//   2. for each pass p in [0, passes()): beginPass(p), feed(...) over every batch, endPass().
// A unit's key is a seeded hash of its identity (the document's key and the unit's place in
// the document). Pass p keeps the units whose key falls in the p-th of passes() equal ranges of
// the 64-bit keys: a fair sample of the whole corpus whatever the input order.
//
// Placement (windowUnits == 0, the default): best-fit decreasing over the whole pass. Every
// unit of the pass, longest first (ties by key), goes to the open bin with the least room that
// still holds it (a 64-ary bitset tree over the rooms, O(log64 L) a unit), else to a new bin;
// no window and no bound on the bins open within a pass. When a pass ends, its bins with the
// most room, at most maxOpenBins of them holding at most maxHeldUnits units, stay open for the
// next pass; the others close. The last pass closes every bin.
// Memory: about 60 bytes per unit of one pass (at most passUnits units), plus the bins carried
// (20 bytes a unit, at most maxHeldUnits), plus (L + 1) x 4 bytes of room buckets.
//
// Windowed placement (windowUnits > 0, kept to compare against): each pass's units go in key
// order to the streaming packer (packer.hpp), placed window by window, open bins bounded by
// maxOpenBins/maxHeldUnits at every step.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "packer.hpp"

namespace midpack {

struct PlannerOptions {
  PackerOptions packer;           // packer.windowUnits == 0: whole-pass best fit
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

/** A document's identity: its key when it has one (else its index), seeded. */
inline uint64_t docIdentity(uint64_t seed, bool keyed, uint32_t docKey, uint32_t docIndex) {
  return mix64(seed ^ mix64(keyed ? (uint64_t(docKey) << 1 | 1) : uint64_t(docIndex) << 1));
}

/** The key of unit `place` (its place in its document) of a document with identity `docKey`. */
inline uint64_t unitKey(uint64_t seed, bool keyed, uint32_t docKey, uint32_t docIndex, uint32_t place) {
  return mix64(docIdentity(seed, keyed, docKey, docIndex) + place);
}

/**
 * Best-fit decreasing over a whole pass, with partly filled bins carried between passes.
 * place() takes the pass's units already in placement order; close() emits the bins.
 */
class PassPacker {
 public:
  PassPacker(uint32_t capacity, uint32_t maxCarriedBins, uint32_t maxCarriedUnits);
  /** Places `units`, in the order given (longest first), into the carried bins and new ones. */
  void place(const Unit* units, size_t n);
  /** Emits every bin but those carried (all of them when `last`), in creation order; `units` as placed. */
  void close(const Unit* units, size_t n, bool last, ClosedBins& out);
  uint64_t bins() const { return bins_; }
  uint64_t paddingTokens() const { return padding_; }
  size_t carriedUnits() const { return carried_.size(); }

 private:
  int32_t takeBin(uint32_t len);
  void pushRoom(int32_t bin);
  void chooseCarried(bool last, std::vector<uint8_t>& keep) const;

  uint32_t capacity_, maxCarriedBins_, maxCarriedUnits_;
  CapacityIndex index_;
  std::vector<int32_t> bucketHead_;  // per room: the bin that most recently got that room
  std::vector<int32_t> next_;        // per bin: the next bin in its room's stack
  std::vector<uint32_t> room_, count_;
  std::vector<uint32_t> binOf_;      // per unit of the pass, in placement order
  std::vector<Unit> carried_;        // the carried bins' units, bin after bin
  std::vector<uint32_t> carriedCount_;  // units per carried bin (bins 0 .. carried - 1)
  uint64_t bins_ = 0, padding_ = 0;
};

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
  /** Places the pass's units; closed bins are in closed(). */
  void endPass();
  /** Closes every bin still open. */
  void finish();

  ClosedBins& closed() { return windowed() ? packer_.closed() : closed_; }
  /** The cut's figures from count(), bins and padding from the placement. */
  PackerStats stats() const;

 private:
  struct Keyed {
    uint64_t key;
    uint32_t at;  // position in pending_
  };
  bool windowed() const { return opts_.packer.windowUnits != 0; }
  void sortByKey();
  void orderLongestFirst();

  PlannerOptions opts_;
  Packer packer_;          // windowed placement only
  PassPacker passPacker_;  // whole-pass placement
  PackerStats cutStats_;
  bool counted_ = false;
  uint32_t passes_ = 1;
  uint32_t pass_ = 0;
  uint32_t nextDoc_ = 0;
  uint32_t nextUnit_ = 0;
  std::vector<Unit> cut_, pending_, ordered_;
  std::vector<Keyed> keys_, scratch_;
  ClosedBins closed_;
};

}  // namespace midpack
