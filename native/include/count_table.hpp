#pragma once
// The hot loops of masking's count table (src/stages/mask/hash-table.ts), on the table's own
// memory (a JavaScript Uint32Array, four words a slot: generation, key low, key high, value):
// adding a document's segments, moving the entries to a larger table, and listing the occupied
// slots in key order. The same slots and values as the JavaScript loops give, so the counts file
// is the same bytes; here the home slots of the keys ahead are prefetched, so a table far larger
// than the cache has many misses in flight instead of one at a time.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace midpack {

struct CountTable {
  uint32_t* words;      // 4 * (mask + 1) words
  uint32_t mask;        // slots - 1 (slots a power of two)
  uint32_t generation;  // a slot is occupied when its first word is this
  uint32_t size;        // occupied slots
};

// A counting call's bounds: the keys at found[i] (high half) and found[i + 1] (low half) for
// i = from, from + stride, ... below to; it stops before the add that would find `size` at
// `stopSize` or more (the caller then grows or spills the table and goes on from there).
struct CountKeys {
  const uint32_t* found;
  size_t from, to, stride;
  uint32_t stopSize;
  // A key whose new value is a power of two of at least this gets its (i, slot) in `candidates`.
  uint32_t candidateFloor;
};

// Adds 1 to each key's value (saturating; a new key starts at 0) in order; appends the sample
// candidates' (i, slot) pairs to `candidates` (cleared first). Returns the i it stopped at (`to`
// when every key was added).
size_t countKeys(CountTable& table, const CountKeys& keys, std::vector<uint32_t>& candidates);

// Moves the occupied slots of `from` into the empty table `to` (generation 1, size set), each
// key to the first free slot from its home, in the order of `from`'s slots.
void moveEntries(const CountTable& from, CountTable& to);

// The occupied slots in key order (high half, then low half, as unsigned numbers).
void sortedSlots(const CountTable& table, std::vector<uint32_t>& out);

// The entries in key order as three words each: key low half, key high half, value (on a
// little-endian host, the counts file's 12-byte records: src/stages/mask/counts-file.ts).
void keyOrderRecords(const CountTable& table, std::vector<uint32_t>& out);

}  // namespace midpack
