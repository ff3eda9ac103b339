#include "count_table.hpp"

#include <algorithm>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace midpack {
namespace {

constexpr size_t GEN = 0, LO = 1, HI = 2, VAL = 3;
// Keys ahead whose home slot is prefetched: enough misses in flight to cover a memory latency.
constexpr size_t PREFETCH_AHEAD = 16;

inline uint32_t* slotAt(const CountTable& t, uint32_t slot) { return t.words + (size_t(slot) << 2); }

// The key's slot, claimed at value 0 when new (size counted).
inline uint32_t findOrClaim(CountTable& t, uint32_t hi, uint32_t lo) {
  for (uint32_t i = lo & t.mask;; i = (i + 1) & t.mask) {
    uint32_t* w = slotAt(t, i);
    if (w[GEN] != t.generation) {
      w[GEN] = t.generation;
      w[HI] = hi;
      w[LO] = lo;
      w[VAL] = 0;
      t.size++;
      return i;
    }
    if (w[LO] == lo && w[HI] == hi) return i;
  }
}

}  // namespace

size_t countKeys(CountTable& table, const CountKeys& keys, std::vector<uint32_t>& candidates) {
  candidates.clear();
  const uint32_t* found = keys.found;
  const size_t ahead = PREFETCH_AHEAD * keys.stride;
  for (size_t i = keys.from; i < keys.from + ahead && i < keys.to; i += keys.stride) {
    __builtin_prefetch(slotAt(table, found[i + 1] & table.mask), 1);
  }
  for (size_t i = keys.from; i < keys.to; i += keys.stride) {
    if (table.size >= keys.stopSize) return i;
    if (i + ahead < keys.to) __builtin_prefetch(slotAt(table, found[i + ahead + 1] & table.mask), 1);
    const uint32_t slot = findOrClaim(table, found[i], found[i + 1]);
    uint32_t& value = slotAt(table, slot)[VAL];
    if (value != UINT32_MAX) value++;
    if ((value & (value - 1)) == 0 && value >= keys.candidateFloor) {
      candidates.push_back(uint32_t(i));
      candidates.push_back(slot);
    }
  }
  return keys.to;
}

void moveEntries(const CountTable& from, CountTable& to) {
  to.generation = 1;
  to.size = 0;
  const size_t slots = size_t(from.mask) + 1;
  for (size_t s = 0; s < slots; s++) {
    const uint32_t* w = slotAt(from, uint32_t(s));
    if (w[GEN] != from.generation) continue;
    // Every key is distinct: the first free slot from its home, no key compared.
    uint32_t i = w[LO] & to.mask;
    while (slotAt(to, i)[GEN] == 1) i = (i + 1) & to.mask;
    uint32_t* d = slotAt(to, i);
    d[GEN] = 1;
    d[LO] = w[LO];
    d[HI] = w[HI];
    d[VAL] = w[VAL];
    to.size++;
  }
}

namespace {

// The occupied slots' keys (high half, then low half, as one number) in order, each beside
// `second(slot)`. Keys are distinct, so the order is total.
template <typename Second>
std::vector<std::pair<uint64_t, uint32_t>> keysInOrder(const CountTable& table, Second second) {
  std::vector<std::pair<uint64_t, uint32_t>> keyed;
  keyed.reserve(table.size);
  const size_t slots = size_t(table.mask) + 1;
  for (size_t s = 0; s < slots; s++) {
    const uint32_t* w = slotAt(table, uint32_t(s));
    if (w[GEN] == table.generation) keyed.emplace_back(uint64_t(w[HI]) << 32 | w[LO], second(uint32_t(s), w));
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return keyed;
}

}  // namespace

void sortedSlots(const CountTable& table, std::vector<uint32_t>& out) {
  const auto keyed = keysInOrder(table, [](uint32_t slot, const uint32_t*) { return slot; });
  out.resize(keyed.size());
  for (size_t k = 0; k < keyed.size(); k++) out[k] = keyed[k].second;
}

void keyOrderRecords(const CountTable& table, std::vector<uint32_t>& out) {
  // Each value sorted beside its key: the table (far larger than the cache) is not read again slot by slot.
  const auto keyed = keysInOrder(table, [](uint32_t, const uint32_t* w) { return w[VAL]; });
  out.resize(3 * keyed.size());
  for (size_t k = 0; k < keyed.size(); k++) {
    out[3 * k] = uint32_t(keyed[k].first);
    out[3 * k + 1] = uint32_t(keyed[k].first >> 32);
    out[3 * k + 2] = keyed[k].second;
  }
}

#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MADV_DONTFORK)
constexpr size_t HUGE_PAGE = size_t(2) << 20;

uint32_t* mapTableWords(size_t bytes) {
  if (bytes == 0 || bytes % HUGE_PAGE != 0) return nullptr;
  // A huge page must start at a multiple of 2 MB: a mapping 2 MB longer, trimmed to the aligned part.
  void* raw = mmap(nullptr, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t at = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t start = (at + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  if (start > at) munmap(raw, start - at);
  if (at + HUGE_PAGE > start) munmap(reinterpret_cast<void*>(start + bytes), at + HUGE_PAGE - start);
  void* words = reinterpret_cast<void*>(start);
  // Advice: where the kernel refuses it, the table works as in any memory.
  madvise(words, bytes, MADV_HUGEPAGE);
  madvise(words, bytes, MADV_DONTFORK);
  return static_cast<uint32_t*>(words);
}

void unmapTableWords(uint32_t* words, size_t bytes) {
  if (words) munmap(words, bytes);
}
#else
uint32_t* mapTableWords(size_t) { return nullptr; }
void unmapTableWords(uint32_t*, size_t) {}
#endif

}  // namespace midpack
