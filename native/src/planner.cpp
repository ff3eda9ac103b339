#include "planner.hpp"

#include <algorithm>
#include <stdexcept>

namespace midpack {

Planner::Planner(const PlannerOptions& opts) : opts_(opts), packer_(opts.packer) {
  if (opts_.passUnits == 0) throw std::invalid_argument("passUnits must be at least 1");
  opts_.packer = packer_.options();  // the validated options (slide stride filled in)
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
}

void Planner::feed(const uint32_t* lengths, size_t n, const uint32_t* boundaryCounts, const uint32_t* boundaryOffsets,
                   const uint32_t* headerLens, const uint32_t* docKeys) {
  const uint32_t* boundaries = boundaryOffsets;
  PackerStats ignored;  // the cut's figures were counted once, by count()
  for (size_t i = 0; i < n; i++) {
    const uint32_t doc = nextDoc_++;
    const uint32_t c = boundaryCounts ? boundaryCounts[i] : 0;
    cut_.clear();
    cutDocument(opts_.packer, doc, lengths[i], boundaries, c, headerLens ? headerLens[i] : 0, ignored, cut_);
    if (boundaries) boundaries += c;
    const uint64_t identity = mix64(opts_.seed ^ mix64(docKeys ? (uint64_t(docKeys[i]) << 1 | 1) : uint64_t(doc) << 1));
    for (Unit& u : cut_) {
      const uint64_t key = mix64(identity + u.id);  // u.id is the unit's place in its document
      u.id = nextUnit_++;
      if (key % passes_ != pass_) continue;
      keys_.push_back(Keyed{key, uint32_t(pending_.size())});
      pending_.push_back(u);
    }
  }
}

void Planner::endPass() {
  // Ties (equal keys: duplicate document keys) fall back to the unit id, so the order is total.
  std::sort(keys_.begin(), keys_.end(), [&](const Keyed& a, const Keyed& b) {
    return a.key != b.key ? a.key < b.key : pending_[a.at].id < pending_[b.at].id;
  });
  ordered_.resize(keys_.size());
  for (size_t i = 0; i < keys_.size(); i++) ordered_[i] = pending_[keys_[i].at];
  packer_.placeUnits(ordered_.data(), ordered_.size());
  pending_.clear();
  keys_.clear();
  ordered_.clear();
}

void Planner::finish() {
  packer_.finish();
  std::vector<Unit>().swap(pending_);
  std::vector<Unit>().swap(ordered_);
  std::vector<Keyed>().swap(keys_);
}

PackerStats Planner::stats() const {
  PackerStats s = cutStats_;
  s.bins = packer_.stats().bins;
  s.paddingTokens = packer_.stats().paddingTokens;
  return s;
}

}  // namespace midpack
