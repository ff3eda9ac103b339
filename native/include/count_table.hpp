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

// Memory of its own for a large count table's `bytes` (a multiple of 2 MB), zeroed: an anonymous
// mapping in 2 MB pages where the kernel gives them (MADV_HUGEPAGE), left out of forked children
// (MADV_DONTFORK). The table is probed at random, so in 4 KB pages each page of a fresh table
// took a page fault (two: read, then written) and nearly each probe a TLB miss; and after every
// fork of the process (a worker's git) each page written took a write fault again, as the fork
// had made it copy-on-write. A child never reads the table: it runs git. nullptr where the
// system has no such mapping (the caller allocates as before). Freed with unmapTableWords.
uint32_t* mapTableWords(size_t bytes);
void unmapTableWords(uint32_t* words, size_t bytes);

// The entries in key order as three words each: key low half, key high half, value (on a
// little-endian host, the counts file's 12-byte records: src/stages/mask/counts-file.ts).
void keyOrderRecords(const CountTable& table, std::vector<uint32_t>& out);

}  // namespace midpack
