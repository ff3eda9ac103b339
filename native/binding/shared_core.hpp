// Tokenizer cores built once per process and configuration, for every thread to copy.
//
// Building a BpeTokenizer (its merge table, the vocabulary checked against the merges, the
// piece table's first level) took each worker thread 0.16-0.2 s of CPU at start, for tables
// that are a function of the tokenizer's inputs alone. The addon is loaded once per process, so
// the first thread to ask for a configuration builds it here (or the main thread, ahead of its
// workers: NativeCoreSeed), and every thread that asks for the same one takes a copy of it: a
// few copies of memory (about 25 MB for Qwen3), a tenth of the build. The built core is never
// used to encode, only copied (concurrent copies only read it): each thread's copy has its own
// table of pieces and scratch, so nothing mutable is shared between threads.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bpe_tokenizer.hpp"

namespace midpack {

class SharedCores {
 public:
  // One configuration's core: built once, then read only.
  struct Entry {
    std::mutex mutex;
    std::condition_variable built;
    bool done = false;
    std::shared_ptr<const BpeTokenizer> core;
    std::string error;
  };

  // The entry of this configuration (`key`: keyOf its config), shared while anyone holds it;
  // `builder` is true when the caller made it and must build() it.
  static std::shared_ptr<Entry> acquire(uint64_t key, bool& builder) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (auto it = r.entries.begin(); it != r.entries.end();) it = it->second.expired() ? r.entries.erase(it) : std::next(it);
    auto& slot = r.entries[key];
    if (auto entry = slot.lock()) {
      builder = false;
      return entry;
    }
    auto entry = std::make_shared<Entry>();
    slot = entry;
    builder = true;
    return entry;
  }

  // Builds the entry's core from `config` (its failure kept as the entry's error) and wakes the
  // threads waiting for it. Never throws.
  static void build(Entry& entry, BpeConfig config) {
    std::shared_ptr<const BpeTokenizer> core;
    std::string error;
    try {
      core = std::make_shared<const BpeTokenizer>(std::move(config));
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "BpeTokenizer: build failed";
    }
    {
      std::lock_guard<std::mutex> lock(entry.mutex);
      entry.core = std::move(core);
      entry.error = std::move(error);
      entry.done = true;
    }
    entry.built.notify_all();
  }

  // A thread's own copy of the entry's core, once built (waits for it); its build's error, thrown.
  static std::unique_ptr<BpeTokenizer> copyOf(Entry& entry) {
    std::unique_lock<std::mutex> lock(entry.mutex);
    entry.built.wait(lock, [&] { return entry.done; });
    if (!entry.core) throw std::runtime_error(entry.error);
    std::shared_ptr<const BpeTokenizer> core = entry.core;
    lock.unlock();
    return std::make_unique<BpeTokenizer>(*core);
  }

  // What identifies a configuration: a hash of every input of the build.
  static uint64_t keyOf(const BpeConfig& c) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    const auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001B3ull + (h >> 29); };
    const auto bytes = [&mix](const void* data, size_t n) {
      mix(n);
      mix(std::hash<std::string_view>()(std::string_view(static_cast<const char*>(data), n)));
    };
    bytes(c.byteIds.data(), c.byteIds.size() * sizeof(int32_t));
    bytes(c.merges.data(), c.merges.size() * sizeof(int32_t));
    bytes(c.classes.data(), c.classes.size());
    bytes(c.tokenLengths.data(), c.tokenLengths.size() * sizeof(int32_t));
    bytes(c.tokenBytes.data(), c.tokenBytes.size());
    bytes(c.unmergedTokens.data(), c.unmergedTokens.size() * sizeof(int32_t));
    for (uint64_t v : {static_cast<uint64_t>(c.pattern), static_cast<uint64_t>(c.maxDigits), static_cast<uint64_t>(c.ignoreMerges), static_cast<uint64_t>(c.unmergedKnown), static_cast<uint64_t>(c.cacheEntries),
                       static_cast<uint64_t>(c.cacheMaxBytes), static_cast<uint64_t>(c.maxPieceBytes)})
      mix(v);
    return h;
  }

 private:
  struct Registry {
    std::mutex mutex;
    std::unordered_map<uint64_t, std::weak_ptr<Entry>> entries;
  };
  // Never destroyed: a build may still run on another thread while the process exits.
  static Registry& registry() {
    static Registry* r = new Registry();
    return *r;
  }
};

}  // namespace midpack
