#pragma once
// midpack's packing core: streaming best-fit-decreasing bin packing with overlong policies.
// Plain C++17, no Node headers, so it is tested, fuzzed and sanitized on its own
// (native/test/test_packer.cpp, native/scripts/test.sh). The node binding only copies typed arrays.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace midpack {

inline const char* version() { return "0.1.0"; }

enum class Overlong : uint32_t { Split = 0, Slide = 1, Drop = 2, Boundary = 3, Truncate = 4 };

struct PackerOptions {
  uint32_t capacity = 262144;      // L: tokens per bin
  Overlong overlong = Overlong::Split;
  uint32_t slideStride = 0;        // 0 means capacity / 2
  uint32_t windowUnits = 262144;   // units buffered, then placed longest first
  uint32_t maxOpenBins = 8192;     // more open bins than this: the fullest one is closed
  uint32_t maxHeldUnits = 1u << 21;  // units held in open bins: the fullest bins close past it
};

/** Bins closed since the last drain, in emission order, as CSR arrays. */
struct ClosedBins {
  std::vector<uint32_t> binUnitStart{0};  // bin b holds units [binUnitStart[b], binUnitStart[b+1])
  std::vector<uint32_t> unitDoc, unitStart, unitEnd, unitHeader;
  std::vector<uint32_t> unitId;  // the unit's ordinal in cut order: how fragmentation is measured
  size_t binCount() const { return binUnitStart.size() - 1; }
  void clear();
};

struct PackerStats {
  uint64_t docs = 0, units = 0, overlongDocs = 0, droppedDocs = 0;
  uint64_t droppedTokens = 0, duplicatedTokens = 0, bins = 0, paddingTokens = 0, tokens = 0;
};

/** One packing unit: tokens [start, end) of document `doc`, after its first `header` tokens repeated. */
struct Unit {
  uint32_t doc, start, end, header;
  uint32_t id;  // ordinal of the unit in cut order (documents in order, units of a document in order)
  uint32_t length() const { return header + (end - start); }
};

/**
 * Cuts document `doc` of `len` tokens into units by the overlong policy (each at most
 * `capacity` tokens), appending them to `out` with ids from `nextId`; counts the cut's
 * figures (docs, tokens, units, overlong, dropped, duplicated) into `stats`.
 */
void cutDocument(const PackerOptions& opts, uint32_t doc, uint32_t len, const uint32_t* boundaries,
                 uint32_t boundaryCount, uint32_t headerLen, PackerStats& stats, std::vector<Unit>& out);

/** A set of integers in [0, n] with successor queries in O(log64 n): a 64-ary bitset tree. */
class CapacityIndex {
 public:
  explicit CapacityIndex(uint32_t maxValue);
  void insert(uint32_t x);
  void erase(uint32_t x);
  /** Smallest member >= x, or -1 when there is none. */
  int64_t successor(uint32_t x) const;

 private:
  std::vector<std::vector<uint64_t>> levels_;  // levels_[0] has one bit per value
};

class Packer {
 public:
  explicit Packer(const PackerOptions& opts);

  /**
   * Pushes documents (global indices continue from the previous push). For Boundary,
   * `boundaryCounts`/`headerLens` may be null; when given they have `n` entries and
   * `boundaryOffsets` holds sum(boundaryCounts) offsets.
   */
  void push(const uint32_t* lengths, size_t n, const uint32_t* boundaryCounts = nullptr,
            const uint32_t* boundaryOffsets = nullptr, const uint32_t* headerLens = nullptr);
  /**
   * Adds units already cut (by cutDocument) to the window, in the given order; the window is
   * placed each time it fills. Their figures were counted by the cut, not here.
   */
  void placeUnits(const Unit* units, size_t n);
  /** Places the buffered window and closes every open bin, oldest first. */
  void finish();

  ClosedBins& closed() { return closed_; }
  const PackerStats& stats() const { return stats_; }
  const PackerOptions& options() const { return opts_; }

 private:
  struct Bin {
    uint32_t remaining = 0;
    int32_t prev = -1, next = -1;  // neighbours in the bucket of bins with the same remaining room
    uint64_t seq = 0;              // creation order, for the final flush
    std::vector<Unit> units;       // contiguous, so closing a bin is one sequential copy
  };

  void addUnit(const Unit& u);
  void placeWindow();
  void place(const Unit& u);
  int32_t newBin();
  void bucketInsert(int32_t slot);
  void bucketErase(int32_t slot);
  void appendUnit(int32_t slot, const Unit& u);
  void closeBin(int32_t slot);
  void closeFullest();

  PackerOptions opts_;
  PackerStats stats_;
  uint32_t nextDoc_ = 0;
  uint32_t nextUnit_ = 0;
  uint64_t nextBinSeq_ = 0;

  std::vector<Unit> cut_;          // one push's units, before they enter the window
  std::vector<Unit> window_;
  std::vector<uint64_t> order_;    // sort keys: (capacity - length) << 32 | position in window
  std::vector<uint64_t> scratch_;  // the radix sort's other buffer
  std::vector<Unit> sorted_;       // the window in placement order

  CapacityIndex index_;
  std::vector<int32_t> bucketHead_;  // per remaining room: the most recently inserted open bin
  std::vector<Bin> bins_;
  std::vector<int32_t> freeBins_;
  uint32_t openBins_ = 0;

  uint32_t heldCount_ = 0;  // units in open bins

  ClosedBins closed_;
};

}  // namespace midpack
