#include "packer.hpp"

#include <algorithm>
#include <stdexcept>

namespace midpack {

void ClosedBins::clear() {
  binUnitStart.assign(1, 0);
  unitDoc.clear();
  unitStart.clear();
  unitEnd.clear();
  unitHeader.clear();
  unitId.clear();
}

// ---- CapacityIndex ----------------------------------------------------------------------------

CapacityIndex::CapacityIndex(uint32_t maxValue) {
  uint64_t size = uint64_t(maxValue) + 1;
  do {
    size_t words = size_t((size + 63) / 64);
    levels_.emplace_back(words, 0);
    size = words;
  } while (size > 1);
}

void CapacityIndex::insert(uint32_t x) {
  uint64_t i = x;
  for (auto& level : levels_) {
    uint64_t& word = level[i >> 6];
    bool wasEmpty = word == 0;
    word |= uint64_t(1) << (i & 63);
    if (!wasEmpty) break;  // the parents already know this word is non-empty
    i >>= 6;
  }
}

void CapacityIndex::erase(uint32_t x) {
  uint64_t i = x;
  for (auto& level : levels_) {
    uint64_t& word = level[i >> 6];
    word &= ~(uint64_t(1) << (i & 63));
    if (word != 0) break;  // still non-empty: the parents stay set
    i >>= 6;
  }
}

int64_t CapacityIndex::successor(uint32_t x) const {
  uint64_t i = x;
  size_t depth = 0;
  // Climb until some word holds a member at or after position i.
  for (;; depth++) {
    if (depth == levels_.size()) return -1;
    const auto& level = levels_[depth];
    uint64_t w = i >> 6;
    if (w >= level.size()) return -1;
    uint64_t bits = level[w] & (~uint64_t(0) << (i & 63));
    if (bits) {
      i = (w << 6) | uint64_t(__builtin_ctzll(bits));
      break;
    }
    i = w + 1;  // the next word at this level is the next position one level up
  }
  // Descend along the lowest set bits.
  while (depth > 0) {
    depth--;
    i = (i << 6) | uint64_t(__builtin_ctzll(levels_[depth][i]));
  }
  return int64_t(i);
}

// ---- Packer -----------------------------------------------------------------------------------

static PackerOptions validated(PackerOptions o) {
  if (o.capacity == 0) throw std::invalid_argument("capacity must be at least 1");
  if (o.slideStride == 0) o.slideStride = std::max<uint32_t>(1, o.capacity / 2);
  if (o.slideStride > o.capacity) throw std::invalid_argument("slide stride must be at most the capacity");
  if (o.windowUnits == 0) throw std::invalid_argument("windowUnits must be at least 1");
  if (o.maxOpenBins == 0) throw std::invalid_argument("maxOpenBins must be at least 1");
  if (o.maxHeldUnits == 0) throw std::invalid_argument("maxHeldUnits must be at least 1");
  if (uint32_t(o.overlong) > uint32_t(Overlong::Truncate)) throw std::invalid_argument("unknown overlong policy");
  return o;
}

Packer::Packer(const PackerOptions& opts)
    : opts_(validated(opts)), index_(opts_.capacity), bucketHead_(size_t(opts_.capacity) + 1, -1) {
  window_.reserve(opts_.windowUnits);
  order_.reserve(opts_.windowUnits);
  scratch_.reserve(opts_.windowUnits);
}

void Packer::push(const uint32_t* lengths, size_t n, const uint32_t* boundaryCounts,
                  const uint32_t* boundaryOffsets, const uint32_t* headerLens) {
  const uint32_t* boundaries = boundaryOffsets;
  for (size_t i = 0; i < n; i++) {
    uint32_t count = boundaryCounts ? boundaryCounts[i] : 0;
    cut_.clear();
    cutDocument(opts_, nextDoc_++, lengths[i], boundaries, count, headerLens ? headerLens[i] : 0, stats_, cut_);
    for (Unit& u : cut_) {
      u.id = nextUnit_++;
      addUnit(u);
    }
    if (boundaries) boundaries += count;
  }
}

void Packer::placeUnits(const Unit* units, size_t n) {
  for (size_t i = 0; i < n; i++) addUnit(units[i]);
}

// Cuts an overlong document into units by the policy; each unit has at most `capacity` tokens.
void cutDocument(const PackerOptions& opts, uint32_t doc, uint32_t len, const uint32_t* boundaries,
                 uint32_t boundaryCount, uint32_t headerLen, PackerStats& stats, std::vector<Unit>& out) {
  const uint32_t L = opts.capacity;
  const size_t before = out.size();
  uint32_t id = 0;
  auto emit = [&](uint32_t s, uint32_t e, uint32_t h) { out.push_back(Unit{doc, s, e, h, id++}); };
  stats.docs++;
  stats.tokens += len;
  if (len <= L) {
    emit(0, len, 0);
    stats.units++;
    return;
  }
  stats.overlongDocs++;
  Overlong policy = opts.overlong;
  if (policy == Overlong::Boundary && boundaryCount == 0) policy = Overlong::Split;
  switch (policy) {
    case Overlong::Drop:
      stats.droppedDocs++;
      stats.droppedTokens += len;
      break;
    case Overlong::Truncate:
      stats.droppedTokens += len - L;
      emit(0, L, 0);
      break;
    case Overlong::Split:
      for (uint32_t s = 0; s < len; s += std::min(L, len - s)) emit(s, s + std::min(L, len - s), 0);
      break;
    case Overlong::Slide: {
      const uint64_t stride = opts.slideStride ? opts.slideStride : std::max<uint32_t>(1, L / 2);  // 0: the default
      uint64_t s = 0;
      for (; s + L < len; s += stride) emit(uint32_t(s), uint32_t(s + L), 0);
      emit(len - L, len, 0);  // the last window extended back to a full L
      stats.duplicatedTokens += (s / stride + 1) * uint64_t(L) - len;
      break;
    }
    case Overlong::Boundary: {
      // Greedy: each chunk ends at the last boundary that keeps it within room; a header
      // too long to repeat is not repeated; with no usable boundary the cut falls at room.
      const uint32_t header = headerLen < L ? headerLen : 0;
      uint32_t s = 0, b = 0;
      while (true) {
        const uint32_t room = s == 0 ? L : L - header;
        const uint32_t h = s == 0 ? 0 : header;
        stats.duplicatedTokens += h;
        if (len - s <= room) {
          emit(s, len, h);
          break;
        }
        const uint64_t limit = uint64_t(s) + room;
        uint32_t cut = 0;
        for (; b < boundaryCount && boundaries[b] <= limit; b++) {
          if (boundaries[b] > s && boundaries[b] > header) cut = boundaries[b];
        }
        if (cut == 0) cut = uint32_t(limit);
        emit(s, cut, h);
        s = cut;
      }
      break;
    }
  }
  stats.units += out.size() - before;
}

void Packer::addUnit(const Unit& u) {
  window_.push_back(u);
  if (window_.size() >= opts_.windowUnits) placeWindow();
}

// Best-fit decreasing over the window: longest first, ties in arrival order. The keys
// (capacity - length) << 32 | position are put in order by a stable LSD radix sort on the
// high half (11 bits a pass), the same order std::sort would give, in O(window).
void Packer::placeWindow() {
  const uint64_t L = opts_.capacity;
  const size_t n = window_.size();
  order_.resize(n);
  scratch_.resize(n);
  for (size_t i = 0; i < n; i++) order_[i] = ((L - window_[i].length()) << 32) | i;
  for (unsigned shift = 32; shift < 64 && (L >> (shift - 32)) != 0; shift += 11) {
    uint32_t counts[2048] = {0};
    for (uint64_t key : order_) counts[(key >> shift) & 2047]++;
    if (counts[(order_[0] >> shift) & 2047] == n) continue;  // one digit value: already in order
    uint32_t sum = 0;
    for (uint32_t& c : counts) {
      uint32_t k = c;
      c = sum;
      sum += k;
    }
    for (uint64_t key : order_) scratch_[counts[(key >> shift) & 2047]++] = key;
    order_.swap(scratch_);
  }
  // Gather first: independent loads overlap, then placement reads the units in sequence.
  sorted_.resize(n);
  for (size_t j = 0; j < n; j++) sorted_[j] = window_[order_[j] & 0xffffffffu];
  for (const Unit& u : sorted_) place(u);
  window_.clear();
}

void Packer::place(const Unit& u) {
  const uint32_t len = u.length();
  int64_t room = index_.successor(len);
  int32_t slot;
  if (room >= 0) {
    slot = bucketHead_[size_t(room)];
    bucketErase(slot);
  } else {
    slot = newBin();
  }
  appendUnit(slot, u);
  bins_[size_t(slot)].remaining -= len;
  if (bins_[size_t(slot)].remaining == 0) {
    closeBin(slot);  // nothing more fits: emit it now
  } else {
    bucketInsert(slot);
  }
  while (openBins_ > opts_.maxOpenBins || heldCount_ > opts_.maxHeldUnits) closeFullest();
}

int32_t Packer::newBin() {
  int32_t slot;
  if (!freeBins_.empty()) {
    slot = freeBins_.back();
    freeBins_.pop_back();
  } else {
    slot = int32_t(bins_.size());
    bins_.emplace_back();
  }
  Bin& bin = bins_[size_t(slot)];  // its unit buffer is empty and kept for reuse
  bin.remaining = opts_.capacity;
  bin.prev = bin.next = -1;
  bin.seq = nextBinSeq_++;
  openBins_++;
  return slot;
}

void Packer::bucketInsert(int32_t slot) {
  Bin& bin = bins_[size_t(slot)];
  int32_t& head = bucketHead_[bin.remaining];
  bin.prev = -1;
  bin.next = head;
  if (head >= 0) bins_[size_t(head)].prev = slot;
  else index_.insert(bin.remaining);
  head = slot;
}

void Packer::bucketErase(int32_t slot) {
  Bin& bin = bins_[size_t(slot)];
  if (bin.prev >= 0) bins_[size_t(bin.prev)].next = bin.next;
  else bucketHead_[bin.remaining] = bin.next;
  if (bin.next >= 0) bins_[size_t(bin.next)].prev = bin.prev;
  if (bucketHead_[bin.remaining] < 0) index_.erase(bin.remaining);
  bin.prev = bin.next = -1;
}

void Packer::appendUnit(int32_t slot, const Unit& u) {
  bins_[size_t(slot)].units.push_back(u);
  heldCount_++;
}

// A freed bin keeps its unit buffer for reuse, up to this many units, so that the buffers
// stay bounded by maxOpenBins times this, besides the units actually held.
static constexpr size_t kKeptUnitCapacity = 1024;

// Emits a bin (already out of its bucket) and frees its slot.
void Packer::closeBin(int32_t slot) {
  Bin& bin = bins_[size_t(slot)];
  const size_t at = closed_.unitDoc.size(), n = bin.units.size();
  closed_.unitDoc.resize(at + n);
  closed_.unitStart.resize(at + n);
  closed_.unitEnd.resize(at + n);
  closed_.unitHeader.resize(at + n);
  closed_.unitId.resize(at + n);
  uint32_t* unitId = closed_.unitId.data() + at;
  uint32_t* doc = closed_.unitDoc.data() + at;
  uint32_t* start = closed_.unitStart.data() + at;
  uint32_t* end = closed_.unitEnd.data() + at;
  uint32_t* header = closed_.unitHeader.data() + at;
  for (size_t k = 0; k < n; k++) {
    const Unit& u = bin.units[k];
    doc[k] = u.doc;
    start[k] = u.start;
    end[k] = u.end;
    header[k] = u.header;
    unitId[k] = u.id;
  }
  heldCount_ -= uint32_t(n);
  if (bin.units.capacity() > kKeptUnitCapacity) std::vector<Unit>().swap(bin.units);
  else bin.units.clear();
  closed_.binUnitStart.push_back(uint32_t(at + n));
  stats_.bins++;
  stats_.paddingTokens += bin.remaining;
  openBins_--;
  freeBins_.push_back(slot);
}

void Packer::closeFullest() {
  int64_t room = index_.successor(0);
  int32_t slot = bucketHead_[size_t(room)];
  bucketErase(slot);
  closeBin(slot);
}

void Packer::finish() {
  if (!window_.empty()) placeWindow();
  std::vector<int32_t> open;
  for (int64_t room = index_.successor(0); room >= 0; room = index_.successor(uint32_t(room) + 1)) {
    for (int32_t slot = bucketHead_[size_t(room)]; slot >= 0; slot = bins_[size_t(slot)].next) open.push_back(slot);
    if (uint64_t(room) == opts_.capacity) break;
  }
  std::sort(open.begin(), open.end(), [&](int32_t a, int32_t b) { return bins_[size_t(a)].seq < bins_[size_t(b)].seq; });
  for (int32_t slot : open) {
    bucketErase(slot);
    closeBin(slot);
  }
}

}  // namespace midpack
