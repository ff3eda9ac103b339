#include "planner.hpp"

#include <algorithm>
#include <stdexcept>

namespace midpack {

// ---- PassPacker: best-fit decreasing over a whole pass ------------------------------------------

PassPacker::PassPacker(uint32_t capacity, uint32_t maxCarriedBins, uint32_t maxCarriedUnits)
    : capacity_(capacity), maxCarriedBins_(maxCarriedBins), maxCarriedUnits_(maxCarriedUnits),
      index_(capacity), bucketHead_(size_t(capacity) + 1, -1) {}

// The open bin with the least room >= len (the most recent to get that room), else a new bin.
int32_t PassPacker::takeBin(uint32_t len) {
  const int64_t room = index_.successor(len);
  if (room < 0) {
    room_.push_back(capacity_);
    count_.push_back(0);
    next_.push_back(-1);
    return int32_t(room_.size() - 1);
  }
  const int32_t bin = bucketHead_[size_t(room)];
  bucketHead_[size_t(room)] = next_[size_t(bin)];
  if (bucketHead_[size_t(room)] < 0) index_.erase(uint32_t(room));
  return bin;
}

void PassPacker::pushRoom(int32_t bin) {
  int32_t& head = bucketHead_[room_[size_t(bin)]];
  if (head < 0) index_.insert(room_[size_t(bin)]);
  next_[size_t(bin)] = head;
  head = bin;
}

void PassPacker::place(const Unit* units, size_t n) {
  binOf_.resize(n);
  for (size_t i = 0; i < n; i++) {
    const uint32_t len = units[i].length();
    const int32_t bin = takeBin(len);
    room_[size_t(bin)] -= len;
    count_[size_t(bin)]++;
    binOf_[i] = uint32_t(bin);
    if (room_[size_t(bin)] > 0) pushRoom(bin);  // a full bin leaves the index for good
  }
}

// The bins that stay open: the most room first (walking the room buckets down from L), at most
// maxCarriedBins of them holding at most maxCarriedUnits units. None after the last pass.
void PassPacker::chooseCarried(bool last, std::vector<uint8_t>& keep) const {
  keep.assign(room_.size(), 0);
  if (last) return;
  uint32_t bins = 0;
  uint64_t units = 0;
  for (uint32_t room = capacity_; room > 0 && bins < maxCarriedBins_; room--) {
    for (int32_t b = bucketHead_[room]; b >= 0 && bins < maxCarriedBins_; b = next_[size_t(b)]) {
      if (units + count_[size_t(b)] > maxCarriedUnits_) continue;
      keep[size_t(b)] = 1;
      bins++;
      units += count_[size_t(b)];
    }
  }
}

void PassPacker::close(const Unit* units, size_t n, bool last, ClosedBins& out) {
  std::vector<uint8_t> keep;
  chooseCarried(last, keep);
  const size_t nb = room_.size();
  // Each bin's first slot: emitted bins in out's arrays, kept bins in the new carried list.
  std::vector<uint32_t> cursor(nb);
  std::vector<uint32_t> keptCount;
  const size_t base = out.unitDoc.size();
  size_t emitted = 0, kept = 0;
  for (size_t b = 0; b < nb; b++) {
    if (keep[b]) {
      cursor[b] = uint32_t(kept);
      kept += count_[b];
      keptCount.push_back(count_[b]);
    } else {
      cursor[b] = uint32_t(base + emitted);
      emitted += count_[b];
      out.binUnitStart.push_back(uint32_t(base + emitted));
      bins_++;
      padding_ += room_[b];
    }
  }
  out.unitDoc.resize(base + emitted);
  out.unitStart.resize(base + emitted);
  out.unitEnd.resize(base + emitted);
  out.unitHeader.resize(base + emitted);
  out.unitId.resize(base + emitted);
  std::vector<Unit> carried(kept);
  auto put = [&](uint32_t bin, const Unit& u) {
    const uint32_t at = cursor[bin]++;
    if (keep[bin]) {
      carried[at] = u;
      return;
    }
    out.unitDoc[at] = u.doc;
    out.unitStart[at] = u.start;
    out.unitEnd[at] = u.end;
    out.unitHeader[at] = u.header;
    out.unitId[at] = u.id;
  };
  // Within a bin: the units it carried in, then this pass's in placement order.
  size_t c = 0;
  for (uint32_t b = 0; b < carriedCount_.size(); b++) {
    for (uint32_t k = 0; k < carriedCount_[b]; k++) put(b, carried_[c++]);
  }
  for (size_t i = 0; i < n; i++) put(binOf_[i], units[i]);
  // The kept bins become bins 0 .. kept - 1 of the next pass, in creation order.
  for (size_t b = 0; b < nb; b++) {
    if (room_[b] > 0 && bucketHead_[room_[b]] >= 0) {
      bucketHead_[room_[b]] = -1;
      index_.erase(room_[b]);
    }
  }
  std::vector<uint32_t> rooms;
  for (size_t b = 0; b < nb; b++) {
    if (keep[b]) rooms.push_back(room_[b]);
  }
  carried_.swap(carried);
  carriedCount_.swap(keptCount);
  room_.swap(rooms);
  count_ = carriedCount_;
  next_.assign(room_.size(), -1);
  for (size_t b = 0; b < room_.size(); b++) pushRoom(int32_t(b));
  if (last) {
    std::vector<uint32_t>().swap(binOf_);
    std::vector<Unit>().swap(carried_);
  }
}

// ---- Planner -------------------------------------------------------------------------------------

static PackerOptions forPacker(PackerOptions o) {
  if (o.windowUnits == 0) o.windowUnits = 1;  // whole-pass placement: the streaming packer stays unused
  return o;
}

Planner::Planner(const PlannerOptions& opts)
    : opts_(opts), packer_(forPacker(opts.packer)),
      passPacker_(packer_.options().capacity, packer_.options().maxOpenBins, packer_.options().maxHeldUnits) {
  if (opts_.passUnits == 0) throw std::invalid_argument("passUnits must be at least 1");
  const uint32_t window = opts_.packer.windowUnits;
  opts_.packer = packer_.options();  // the validated options (slide stride filled in)
  opts_.packer.windowUnits = window;
}

void Planner::count(const uint32_t* lengths, size_t n, const uint32_t* boundaryCounts,
                    const uint32_t* boundaryOffsets, const uint32_t* headerLens) {
  if (pass_ != 0 || !pending_.empty()) throw std::logic_error("count() comes before the passes");
  const uint32_t* boundaries = boundaryOffsets;
  for (size_t i = 0; i < n; i++) {
    const uint32_t c = boundaryCounts ? boundaryCounts[i] : 0;
    cut_.clear();
    cutDocument(opts_.packer, nextDoc_++, lengths[i], boundaries, c, headerLens ? headerLens[i] : 0, cutStats_, cut_);
    if (boundaries) boundaries += c;
  }
  counted_ = true;
}

uint32_t Planner::passes() const {
  const uint64_t p = (cutStats_.units + opts_.passUnits - 1) / opts_.passUnits;
  return uint32_t(std::max<uint64_t>(1, p));
}

void Planner::beginPass(uint32_t pass) {
  passes_ = passes();
  if (pass >= passes_) throw std::out_of_range("pass out of range");
  pass_ = pass;
  nextDoc_ = 0;
  nextUnit_ = 0;
  pending_.clear();
  keys_.clear();
  // A pass keeps about units / passes of them (a hash's share): reserved with a little slack, so
  // the buffers do not grow by doubling (copies, and up to twice the memory).
  const uint64_t expected = cutStats_.units / passes_;
  const size_t reserve = size_t(std::min<uint64_t>(cutStats_.units, expected + expected / 64 + 1024));
  pending_.reserve(reserve);
  keys_.reserve(reserve);
}

// The pass of a key: its place in [0, passes) by a multiply-high (uniform, and no division).
static uint32_t passOf(uint64_t key, uint32_t passes) {
  return uint32_t((static_cast<unsigned __int128>(key) * passes) >> 64);
}

void Planner::feed(const uint32_t* lengths, size_t n, const uint32_t* boundaryCounts, const uint32_t* boundaryOffsets,
                   const uint32_t* headerLens, const uint32_t* docKeys) {
  const uint32_t* boundaries = boundaryOffsets;
  const uint32_t L = opts_.packer.capacity;
  PackerStats ignored;  // the cut's figures were counted once, by count()
  for (size_t i = 0; i < n; i++) {
    const uint32_t doc = nextDoc_++;
    const uint32_t c = boundaryCounts ? boundaryCounts[i] : 0;
    const uint64_t identity = docIdentity(opts_.seed, docKeys != nullptr, docKeys ? docKeys[i] : 0, doc);
    if (lengths[i] <= L) {
      // Most documents: one unit, whatever the policy (what cutDocument would make, without the cut).
      const uint64_t key = mix64(identity);
      const uint32_t id = nextUnit_++;
      if (boundaries) boundaries += c;
      if (passOf(key, passes_) != pass_) continue;
      keys_.push_back(Keyed{key, uint32_t(pending_.size())});
      pending_.push_back(Unit{doc, 0, lengths[i], 0, id});
      continue;
    }
    cut_.clear();
    cutDocument(opts_.packer, doc, lengths[i], boundaries, c, headerLens ? headerLens[i] : 0, ignored, cut_);
    if (boundaries) boundaries += c;
    for (Unit& u : cut_) {
      const uint64_t key = mix64(identity + u.id);  // u.id: its place in the document
      u.id = nextUnit_++;
      if (passOf(key, passes_) != pass_) continue;
      keys_.push_back(Keyed{key, uint32_t(pending_.size())});
      pending_.push_back(u);
    }
  }
}

// Key order; equal keys (duplicate document keys) by position, which is cut order: a total order.
void Planner::sortByKey() {
  std::sort(keys_.begin(), keys_.end(), [](const Keyed& a, const Keyed& b) { return a.key != b.key ? a.key < b.key : a.at < b.at; });
}

// Placement order: longest first, equal lengths by key (then position). A counting sort by
// length (stable, so each length's units stay in pending order), then each run of one length
// sorted by key: the runs are short but for the many equal-length chunks of long documents.
void Planner::orderLongestFirst() {
  const uint32_t L = opts_.packer.capacity;
  const size_t n = pending_.size();
  std::vector<uint32_t> start(size_t(L) + 2, 0);
  for (const Unit& u : pending_) start[L - u.length() + 1]++;
  for (size_t r = 1; r < start.size(); r++) start[r] += start[r - 1];
  scratch_.resize(n);
  for (const Keyed& k : keys_) scratch_[start[L - pending_[k.at].length()]++] = k;
  keys_.swap(scratch_);
  size_t from = 0;
  for (size_t r = 0; r <= L; r++) {
    const size_t to = start[r];  // after the scatter, start[r] is the end of run r
    if (to - from > 1) std::sort(keys_.begin() + from, keys_.begin() + to, [](const Keyed& a, const Keyed& b) { return a.key != b.key ? a.key < b.key : a.at < b.at; });
    from = to;
  }
  // Gathered into placement order: placing then reads the units in sequence.
  ordered_.resize(n);
  for (size_t i = 0; i < n; i++) ordered_[i] = pending_[keys_[i].at];
}

void Planner::endPass() {
  if (windowed()) {
    sortByKey();
    ordered_.resize(keys_.size());
    for (size_t i = 0; i < keys_.size(); i++) ordered_[i] = pending_[keys_[i].at];
    packer_.placeUnits(ordered_.data(), ordered_.size());
    ordered_.clear();
  } else {
    orderLongestFirst();
    std::vector<Keyed>().swap(keys_);  // the sort's 32 bytes a unit go before the bins are built
    std::vector<Keyed>().swap(scratch_);
    pending_.swap(ordered_);
    std::vector<Unit>().swap(ordered_);
    passPacker_.place(pending_.data(), pending_.size());
    passPacker_.close(pending_.data(), pending_.size(), pass_ + 1 == passes_, closed_);
  }
  pending_.clear();
  keys_.clear();
}

void Planner::finish() {
  if (windowed()) packer_.finish();
  else passPacker_.close(nullptr, 0, true, closed_);
  std::vector<Unit>().swap(pending_);
  std::vector<Unit>().swap(ordered_);
  std::vector<Keyed>().swap(keys_);
  std::vector<Keyed>().swap(scratch_);
}

PackerStats Planner::stats() const {
  PackerStats s = cutStats_;
  s.bins = windowed() ? packer_.stats().bins : passPacker_.bins();
  s.paddingTokens = windowed() ? packer_.stats().paddingTokens : passPacker_.paddingTokens();
  return s;
}

}  // namespace midpack
