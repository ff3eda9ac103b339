// The thin node-addon-api layer over midpack::Packer: typed arrays in, typed arrays out,
// one call per batch of documents (never one per document).
#include <napi.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>
#include <stdexcept>
#include <string>
#include <thread>

#include "bpe_tokenizer.hpp"
#include "count_table.hpp"
#include "header_lines.hpp"
#include "json_string.hpp"
#include "json_text.hpp"
#include "packer.hpp"
#include "planner.hpp"
#include "segments.hpp"
#include "shared_core.hpp"
#include "spawn_process.hpp"

namespace {

// Copies a result vector into a new typed array; the vector keeps its capacity for the next call.
Napi::Uint32Array copyOut(Napi::Env env, const std::vector<uint32_t>& v) {
  auto out = Napi::Uint32Array::New(env, v.size());
  if (!v.empty()) std::memcpy(out.Data(), v.data(), v.size() * sizeof(uint32_t));
  return out;
}

// A tokenizer core's configuration from (byteIds: Int32Array, merges: Int32Array, classes:
// Uint8Array, maxDigits, ignoreMerges, cacheEntries, tokenLengths: Int32Array, tokenBytes:
// Uint8Array, pattern[, unmerged: Int32Array]): false, a TypeError thrown, when the arguments are
// not that. `unmerged`: an earlier build's unmergedTokens() for the same tables (BpeConfig).
bool configOf(const Napi::CallbackInfo& info, const char* what, midpack::BpeConfig& config) {
  const bool known = info.Length() == 10 && !info[9].IsUndefined();
  if ((info.Length() != 9 && info.Length() != 10) || (known && !info[9].IsTypedArray()) || !info[0].IsTypedArray() || !info[1].IsTypedArray() || !info[2].IsTypedArray() || !info[6].IsTypedArray() || !info[7].IsTypedArray()) {
    Napi::TypeError::New(info.Env(), std::string(what) + " expects (Int32Array, Int32Array, Uint8Array, maxDigits, ignoreMerges, cacheEntries, Int32Array, Uint8Array, pattern[, Int32Array])").ThrowAsJavaScriptException();
    return false;
  }
  auto byteIds = info[0].As<Napi::Int32Array>();
  auto merges = info[1].As<Napi::Int32Array>();
  auto classes = info[2].As<Napi::Uint8Array>();
  config.byteIds.assign(byteIds.Data(), byteIds.Data() + byteIds.ElementLength());
  config.merges.assign(merges.Data(), merges.Data() + merges.ElementLength());
  config.classes.assign(classes.Data(), classes.Data() + classes.ElementLength());
  config.maxDigits = info[3].As<Napi::Number>().Int32Value();
  config.ignoreMerges = info[4].As<Napi::Boolean>().Value();
  config.cacheEntries = static_cast<size_t>(info[5].As<Napi::Number>().Int64Value());
  auto tokenLengths = info[6].As<Napi::Int32Array>();
  auto tokenBytes = info[7].As<Napi::Uint8Array>();
  config.tokenLengths.assign(tokenLengths.Data(), tokenLengths.Data() + tokenLengths.ElementLength());
  config.tokenBytes.assign(reinterpret_cast<const char*>(tokenBytes.Data()), tokenBytes.ElementLength());
  config.pattern = static_cast<midpack::SplitPattern>(info[8].As<Napi::Number>().Int32Value());
  if (known) {
    auto unmerged = info[9].As<Napi::Int32Array>();
    config.unmergedKnown = true;
    config.unmergedTokens.assign(unmerged.Data(), unmerged.Data() + unmerged.ElementLength());
  }
  return true;
}

// Builds a shared core (shared_core.hpp) on a thread of libuv's pool, off the JavaScript thread.
class CoreBuild : public Napi::AsyncWorker {
 public:
  CoreBuild(Napi::Env env, std::shared_ptr<midpack::SharedCores::Entry> entry, midpack::BpeConfig config)
      : Napi::AsyncWorker(env, "midpack:CoreBuild"), entry_(std::move(entry)), config_(std::move(config)) {}
  void Execute() override { midpack::SharedCores::build(*entry_, std::move(config_)); }
  void OnOK() override {}
  void OnError(const Napi::Error&) override {}

 private:
  std::shared_ptr<midpack::SharedCores::Entry> entry_;
  midpack::BpeConfig config_;
};

// An optional Uint32Array of special spans, [start, end) pairs: its data and pair count.
static std::pair<const uint32_t*, size_t> specialPairs(const Napi::Value& value) {
  if (value.IsUndefined()) return {nullptr, 0};
  auto a = value.As<Napi::Uint32Array>();
  return {a.Data(), a.ElementLength() / 2};
}

// A core is some hundred thousand small allocations: freed (the shared one, once every thread has
// its copy), they stay in malloc's arenas as resident pages, tens of MB a thread, unless handed
// back to the kernel here.
static void releaseFreedPages() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

// new NativeCoreSeed(...NativeTokenizer's arguments): the main thread starts building the core
// its tokenizer workers will ask for, in the background while they start, and holds it until
// release() (the workers have their copies), so no worker builds one.
class NativeCoreSeed : public Napi::ObjectWrap<NativeCoreSeed> {
 public:
  static Napi::Function Define(Napi::Env env) { return DefineClass(env, "NativeCoreSeed", {InstanceMethod("release", &NativeCoreSeed::Release)}); }

  explicit NativeCoreSeed(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeCoreSeed>(info) {
    midpack::BpeConfig config;
    if (!configOf(info, "NativeCoreSeed", config)) return;
    bool builder = false;
    entry_ = midpack::SharedCores::acquire(midpack::SharedCores::keyOf(config), builder);
    if (builder) (new CoreBuild(info.Env(), entry_, std::move(config)))->Queue();
  }

 private:
  Napi::Value Release(const Napi::CallbackInfo& info) {
    entry_.reset();
    releaseFreedPages();
    return info.Env().Undefined();
  }

  std::shared_ptr<midpack::SharedCores::Entry> entry_;
};

// new NativeTokenizer(byteIds: Int32Array, merges: Int32Array, classes: Uint8Array, maxDigits, ignoreMerges, cacheEntries,
//                     tokenLengths: Int32Array, tokenBytes: Uint8Array, pattern: number)
// encodeInto(text, ids, starts, ends, at, base) -> n: one call per text, the tokens written
// straight into the caller's arrays (a worker's batch buffer) at `at`, each range plus `base`.
// When they do not fit it returns -n and writes nothing; copyLast(ids, starts, ends, at, base)
// then writes the same tokens into arrays grown by the caller. encodeAsciiInto(text, ...) is
// encodeInto for a text that is all ASCII, and null (nothing done) for any other: the caller
// skips its well-formedness and NFC checks for ASCII text, which neither can change. No typed array is made per call:
// three fresh ones a text (and their first-touch page faults, and their finalizers) cost the
// worker more than the copies did.
class NativeTokenizer : public Napi::ObjectWrap<NativeTokenizer> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativeTokenizer",
                       {InstanceMethod("encodeInto", &NativeTokenizer::EncodeInto), InstanceMethod("encodeAsciiInto", &NativeTokenizer::EncodeAsciiInto),
                        InstanceMethod("encodeJsonAsciiInto", &NativeTokenizer::EncodeJsonAsciiInto),
                        InstanceMethod("copyLast", &NativeTokenizer::CopyLast),
                        InstanceMethod("cacheSize", &NativeTokenizer::CacheSize),
                        InstanceMethod("unmergedTokens", &NativeTokenizer::UnmergedTokens)});
  }

  explicit NativeTokenizer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeTokenizer>(info) {
    midpack::BpeConfig config;
    if (!configOf(info, "NativeTokenizer", config)) return;
    // Built once per process and configuration (shared_core.hpp): this thread takes a copy.
    try {
      bool builder = false;
      auto entry = midpack::SharedCores::acquire(midpack::SharedCores::keyOf(config), builder);
      if (builder) midpack::SharedCores::build(*entry, std::move(config));
      core_ = midpack::SharedCores::copyOf(*entry);
      entry.reset();
      releaseFreedPages();
    } catch (const std::exception& e) {
      Napi::Error::New(info.Env(), e.what()).ThrowAsJavaScriptException();
    }
  }

 private:
  // The three Int32Arrays and (at, base) of encodeInto/copyLast from info[from..from+5); false
  // (a TypeError thrown) when they are not that.
  static bool outputArgs(const Napi::CallbackInfo& info, size_t from, int32_t* arrays[3], size_t& capacity, size_t& at, int32_t& base) {
    bool ok = info.Length() == from + 5 && info[from + 3].IsNumber() && info[from + 4].IsNumber();
    capacity = SIZE_MAX;
    for (size_t k = 0; ok && k < 3; k++) {
      const Napi::Value v = info[from + k];
      ok = v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array;
      if (!ok) break;
      auto a = v.As<Napi::Int32Array>();
      arrays[k] = a.Data();
      capacity = std::min(capacity, a.ElementLength());
    }
    if (!ok) {
      Napi::TypeError::New(info.Env(), "NativeTokenizer: expects (ids, starts, ends: Int32Array, at, base)").ThrowAsJavaScriptException();
      return false;
    }
    const double atValue = info[from + 3].As<Napi::Number>().DoubleValue();
    at = atValue > 0 ? static_cast<size_t>(atValue) : 0;
    base = info[from + 4].As<Napi::Number>().Int32Value();
    return true;
  }

  // out_ into the arrays at `at` (ranges plus base) when it fits: its length, else -length.
  Napi::Value WriteOut(Napi::Env env, int32_t* arrays[3], size_t capacity, size_t at, int32_t base) {
    const size_t n = out_.ids.size();
    if (at > capacity || capacity - at < n) return Napi::Number::New(env, -static_cast<double>(n));
    if (n) std::memcpy(arrays[0] + at, out_.ids.data(), n * sizeof(int32_t));
    int32_t* starts = arrays[1] + at;
    int32_t* ends = arrays[2] + at;
    for (size_t i = 0; i < n; i++) {
      starts[i] = out_.starts[i] + base;
      ends[i] = out_.ends[i] + base;
    }
    if (out_.ids.capacity() > (1u << 24)) out_ = midpack::Encoding();  // a huge text's scratch goes back
    return Napi::Number::New(env, static_cast<double>(n));
  }

  Napi::Value EncodeInto(const Napi::CallbackInfo& info) { return encodeCall(info, false); }
  Napi::Value EncodeAsciiInto(const Napi::CallbackInfo& info) { return encodeCall(info, true); }

  Napi::Value encodeCall(const Napi::CallbackInfo& info, bool asciiOnly) {
    Napi::Env env = info.Env();
    int32_t* arrays[3];
    size_t capacity = 0, at = 0;
    int32_t base = 0;
    if (!core_ || info.Length() < 1 || !info[0].IsString()) {
      Napi::TypeError::New(env, "NativeTokenizer.encodeInto expects a string").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (!outputArgs(info, 1, arrays, capacity, at, base)) return env.Undefined();
    out_.clear();
    bool encoded = false;
    try {
      encoded = encodeString(env, info[0], asciiOnly);
    } catch (const std::exception& e) {
      out_ = midpack::Encoding();
      Napi::Error::New(env, e.what()).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (text_.size() > (1u << 24)) std::vector<char16_t>().swap(text_);
    if (ascii_.size() > (1u << 24)) std::vector<char>().swap(ascii_);
    if (!encoded) return env.Null();
    return WriteOut(env, arrays, capacity, at, base);
  }

  // encodeJsonAsciiInto(content: Uint8Array, ids, starts, ends, at, base): encodeInto for the
  // text a JSON string's content stands for (the bytes between its quotes, which jsonAsciiText
  // accepted: valid, all ASCII; not checked again), unescaped into the buffer an ASCII string is
  // copied to. Content it did not accept comes out wrong, never out of bounds.
  Napi::Value EncodeJsonAsciiInto(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    int32_t* arrays[3];
    size_t capacity = 0, at = 0;
    int32_t base = 0;
    if (!core_ || info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
      Napi::TypeError::New(env, "NativeTokenizer.encodeJsonAsciiInto expects a Uint8Array").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (!outputArgs(info, 1, arrays, capacity, at, base)) return env.Undefined();
    auto content = info[0].As<Napi::Uint8Array>();
    const size_t n = content.ElementLength();
    if (ascii_.size() < n + 17) ascii_.resize(n + 17);
    const size_t length = midpack::unescapeJsonAscii(content.Data(), n, ascii_.data());
    std::memset(ascii_.data() + length, 0, 16);
    out_.clear();
    try {
      core_->encodeAscii(reinterpret_cast<const uint8_t*>(ascii_.data()), length, out_);
    } catch (const std::exception& e) {
      out_ = midpack::Encoding();
      Napi::Error::New(env, e.what()).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (ascii_.size() > (1u << 24)) std::vector<char>().swap(ascii_);
    return WriteOut(env, arrays, capacity, at, base);
  }

  // The string's tokens into out_, read from buffers kept between calls. An ASCII string is
  // read as Latin-1 (V8 keeps it one byte a character: a copy), rather than widened to UTF-16
  // for the core to narrow again, or encoded as UTF-8 (V8's encoder was a few percent of the
  // time). A string is ASCII exactly when its UTF-8 is as long as its UTF-16 (every other unit
  // takes two bytes or more), which V8 counts faster than it encodes. A string whose first 256
  // units are not all ASCII goes straight to UTF-16. With asciiOnly, a string that is not ASCII
  // is not encoded: false.
  bool encodeString(napi_env env, napi_value value, bool asciiOnly) {
    size_t length = 0;
    napi_get_value_string_utf16(env, value, nullptr, 0, &length);
    char16_t head[257];
    size_t headLength = 0;
    napi_get_value_string_utf16(env, value, head, sizeof(head) / sizeof(head[0]), &headLength);
    char16_t headBits = 0;
    for (size_t k = 0; k < headLength; k++) headBits |= head[k];
    size_t utf8Length = 0;
    if (headBits < 0x80 && napi_get_value_string_utf8(env, value, nullptr, 0, &utf8Length) == napi_ok && utf8Length == length) {
      if (ascii_.size() < length + 17) ascii_.resize(length + 17);
      size_t copied = 0;
      napi_get_value_string_latin1(env, value, ascii_.data(), length + 1, &copied);
      std::memset(ascii_.data() + length, 0, 16);
      core_->encodeAscii(reinterpret_cast<const uint8_t*>(ascii_.data()), length, out_);
      return true;
    }
    if (asciiOnly) return false;
    if (text_.size() < length + 1) text_.resize(length + 1);
    napi_get_value_string_utf16(env, value, text_.data(), length + 1, &length);
    core_->encode(text_.data(), length, out_);
    return true;
  }

  Napi::Value CopyLast(const Napi::CallbackInfo& info) {
    int32_t* arrays[3];
    size_t capacity = 0, at = 0;
    int32_t base = 0;
    if (!outputArgs(info, 0, arrays, capacity, at, base)) return info.Env().Undefined();
    return WriteOut(info.Env(), arrays, capacity, at, base);
  }

  Napi::Value CacheSize(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(core_ ? core_->cacheSize() : 0)); }

  // The vocabulary's ids the build's check left out (BpeTokenizer::unmergedTokens), to be kept
  // with the prepared tables and given to later builds.
  Napi::Value UnmergedTokens(const Napi::CallbackInfo& info) {
    const std::vector<int32_t> none;
    const std::vector<int32_t>& ids = core_ ? core_->unmergedTokens() : none;
    auto out = Napi::Int32Array::New(info.Env(), ids.size());
    if (!ids.empty()) std::memcpy(out.Data(), ids.data(), ids.size() * sizeof(int32_t));
    return out;
  }

  std::unique_ptr<midpack::BpeTokenizer> core_;
  midpack::Encoding out_;
  std::vector<char16_t> text_;
  std::vector<char> ascii_;
};

class NativePacker : public Napi::ObjectWrap<NativePacker> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativePacker",
                       {InstanceMethod("push", &NativePacker::Push), InstanceMethod("finish", &NativePacker::Finish),
                        InstanceMethod("stats", &NativePacker::Stats)});
  }

  // new NativePacker(capacity, policy, slideStride, windowUnits, maxOpenBins, maxHeldUnits)
  explicit NativePacker(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativePacker>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 6) {
      Napi::TypeError::New(env, "NativePacker expects 6 numeric arguments").ThrowAsJavaScriptException();
      return;
    }
    uint32_t v[6];
    for (size_t i = 0; i < 6; i++) {
      if (!info[i].IsNumber()) {
        Napi::TypeError::New(env, "NativePacker expects 6 numeric arguments").ThrowAsJavaScriptException();
        return;
      }
      v[i] = info[i].As<Napi::Number>().Uint32Value();
    }
    midpack::PackerOptions o;
    o.capacity = v[0];
    o.overlong = midpack::Overlong(v[1]);
    o.slideStride = v[2];
    o.windowUnits = v[3];
    o.maxOpenBins = v[4];
    o.maxHeldUnits = v[5];
    try {
      packer_ = std::make_unique<midpack::Packer>(o);
    } catch (const std::exception& e) {
      Napi::RangeError::New(env, e.what()).ThrowAsJavaScriptException();
    }
  }

 private:
  // push(lengths, boundaryCounts?, boundaryOffsets?, headerLens?) -> closed bins
  Napi::Value Push(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsTypedArray() ||
        info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
      Napi::TypeError::New(env, "push expects a Uint32Array of lengths").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    auto lengths = info[0].As<Napi::Uint32Array>();
    const uint32_t* optional[3] = {nullptr, nullptr, nullptr};
    size_t optionalLen[3] = {0, 0, 0};
    for (size_t i = 1; i < 4 && i < info.Length(); i++) {
      if (info[i].IsUndefined() || info[i].IsNull()) continue;
      if (!info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
        Napi::TypeError::New(env, "push expects Uint32Array boundary arrays").ThrowAsJavaScriptException();
        return env.Undefined();
      }
      auto a = info[i].As<Napi::Uint32Array>();
      optional[i - 1] = a.Data();
      optionalLen[i - 1] = a.ElementLength();
    }
    const size_t n = lengths.ElementLength();
    if ((optional[0] && optionalLen[0] != n) || (optional[2] && optionalLen[2] != n)) {
      Napi::RangeError::New(env, "boundaryCounts and headerLens need one entry per document").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    uint64_t total = 0;
    for (size_t i = 0; optional[0] && i < n; i++) total += optional[0][i];
    if (total != (optional[1] ? optionalLen[1] : 0)) {
      Napi::RangeError::New(env, "boundaryOffsets must hold sum(boundaryCounts) offsets").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    packer_->push(lengths.Data(), n, optional[0], optional[1], optional[2]);
    return Drain(env);
  }

  Napi::Value Finish(const Napi::CallbackInfo& info) {
    packer_->finish();
    return Drain(info.Env());
  }

  Napi::Value Drain(Napi::Env env) { return DrainBins(env, packer_->closed()); }

 public:
  static Napi::Value DrainBins(Napi::Env env, midpack::ClosedBins& c) {
    Napi::Object out = Napi::Object::New(env);
    out.Set("binCount", Napi::Number::New(env, double(c.binCount())));
    out.Set("binUnitStart", copyOut(env, c.binUnitStart));
    out.Set("unitDoc", copyOut(env, c.unitDoc));
    out.Set("unitStart", copyOut(env, c.unitStart));
    out.Set("unitEnd", copyOut(env, c.unitEnd));
    out.Set("unitHeader", copyOut(env, c.unitHeader));
    out.Set("unitId", copyOut(env, c.unitId));
    c.clear();
    return out;
  }

  static Napi::Value StatsObject(Napi::Env env, const midpack::PackerStats& s) {
    Napi::Object out = Napi::Object::New(env);
    out.Set("docs", double(s.docs));
    out.Set("units", double(s.units));
    out.Set("overlongDocs", double(s.overlongDocs));
    out.Set("droppedDocs", double(s.droppedDocs));
    out.Set("droppedTokens", double(s.droppedTokens));
    out.Set("duplicatedTokens", double(s.duplicatedTokens));
    out.Set("bins", double(s.bins));
    out.Set("paddingTokens", double(s.paddingTokens));
    out.Set("tokens", double(s.tokens));
    return out;
  }

 private:
  Napi::Value Stats(const Napi::CallbackInfo& info) { return StatsObject(info.Env(), packer_->stats()); }

  std::unique_ptr<midpack::Packer> packer_;
};

// Reads the optional Uint32Array arguments info[from..from+count) (undefined/null: absent).
bool optionalArrays(const Napi::CallbackInfo& info, size_t from, size_t count, const uint32_t** data, size_t* len) {
  for (size_t k = 0; k < count; k++) {
    data[k] = nullptr;
    len[k] = 0;
    const size_t i = from + k;
    if (i >= info.Length() || info[i].IsUndefined() || info[i].IsNull()) continue;
    if (!info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) return false;
    auto a = info[i].As<Napi::Uint32Array>();
    data[k] = a.Data();
    len[k] = a.ElementLength();
  }
  return true;
}

// The whole-corpus planner (planner.hpp): count(batch...), beginPass(p), feed(batch..., keys), endPass(), finish().
class NativePlanner : public Napi::ObjectWrap<NativePlanner> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativePlanner",
                       {InstanceMethod("count", &NativePlanner::Count), InstanceMethod("passes", &NativePlanner::Passes),
                        InstanceMethod("beginPass", &NativePlanner::BeginPass), InstanceMethod("feed", &NativePlanner::Feed),
                        InstanceMethod("endPass", &NativePlanner::EndPass), InstanceMethod("finish", &NativePlanner::Finish),
                        InstanceMethod("stats", &NativePlanner::Stats)});
  }

  // new NativePlanner(capacity, policy, slideStride, windowUnits, maxOpenBins, maxHeldUnits, passUnits, seedHigh, seedLow)
  explicit NativePlanner(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativePlanner>(info) {
    Napi::Env env = info.Env();
    uint32_t v[9];
    for (size_t i = 0; i < 9; i++) {
      if (info.Length() != 9 || !info[i].IsNumber()) {
        Napi::TypeError::New(env, "NativePlanner expects 9 numeric arguments").ThrowAsJavaScriptException();
        return;
      }
      v[i] = info[i].As<Napi::Number>().Uint32Value();
    }
    midpack::PlannerOptions o;
    o.packer.capacity = v[0];
    o.packer.overlong = midpack::Overlong(v[1]);
    o.packer.slideStride = v[2];
    o.packer.windowUnits = v[3];
    o.packer.maxOpenBins = v[4];
    o.packer.maxHeldUnits = v[5];
    o.passUnits = v[6];
    o.seed = (uint64_t(v[7]) << 32) | v[8];
    try {
      planner_ = std::make_unique<midpack::Planner>(o);
    } catch (const std::exception& e) {
      Napi::RangeError::New(env, e.what()).ThrowAsJavaScriptException();
    }
  }

 private:
  // Validates (lengths, boundaryCounts?, boundaryOffsets?, headerLens?, docKeys?) and calls f.
  template <typename F>
  Napi::Value WithBatch(const Napi::CallbackInfo& info, size_t optionalCount, F f) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
      Napi::TypeError::New(env, "expects a Uint32Array of lengths").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    auto lengths = info[0].As<Napi::Uint32Array>();
    const size_t n = lengths.ElementLength();
    const uint32_t* a[4];
    size_t len[4];
    if (!optionalArrays(info, 1, optionalCount, a, len)) {
      Napi::TypeError::New(env, "boundary and key arrays must be Uint32Arrays").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    uint64_t total = 0;
    for (size_t i = 0; a[0] && i < n; i++) total += a[0][i];
    if ((a[0] && len[0] != n) || (a[2] && len[2] != n) || (optionalCount > 3 && a[3] && len[3] != n) || total != (a[1] ? len[1] : 0)) {
      Napi::RangeError::New(env, "boundaryCounts, headerLens and docKeys need one entry per document; boundaryOffsets sum(boundaryCounts)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    try {
      f(lengths.Data(), n, a);
    } catch (const std::exception& e) {
      Napi::Error::New(env, e.what()).ThrowAsJavaScriptException();
    }
    return env.Undefined();
  }

  Napi::Value Count(const Napi::CallbackInfo& info) {
    return WithBatch(info, 3, [&](const uint32_t* l, size_t n, const uint32_t** a) { planner_->count(l, n, a[0], a[1], a[2]); });
  }
  Napi::Value Feed(const Napi::CallbackInfo& info) {
    return WithBatch(info, 4, [&](const uint32_t* l, size_t n, const uint32_t** a) { planner_->feed(l, n, a[0], a[1], a[2], a[3]); });
  }
  Napi::Value Passes(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), planner_->passes()); }
  Napi::Value BeginPass(const Napi::CallbackInfo& info) {
    try {
      planner_->beginPass(info[0].As<Napi::Number>().Uint32Value());
    } catch (const std::exception& e) {
      Napi::RangeError::New(info.Env(), e.what()).ThrowAsJavaScriptException();
    }
    return info.Env().Undefined();
  }
  Napi::Value EndPass(const Napi::CallbackInfo& info) {
    planner_->endPass();
    return NativePacker::DrainBins(info.Env(), planner_->closed());
  }
  Napi::Value Finish(const Napi::CallbackInfo& info) {
    planner_->finish();
    return NativePacker::DrainBins(info.Env(), planner_->closed());
  }
  Napi::Value Stats(const Napi::CallbackInfo& info) { return NativePacker::StatsObject(info.Env(), planner_->stats()); }

  std::unique_ptr<midpack::Planner> planner_;
};

// cutUnits(capacity, policy, slideStride, lengths) -> { unitLength, unitDoc, stats }: the overlong
// policy alone, for the sequential baselines of `compare` (no boundaries: boundary acts as split).
Napi::Value CutUnits(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 4 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsNumber() || !info[3].IsTypedArray() ||
      info[3].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
    Napi::TypeError::New(env, "cutUnits(capacity, policy, slideStride, lengths: Uint32Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  midpack::PackerOptions o;
  o.capacity = info[0].As<Napi::Number>().Uint32Value();
  o.overlong = midpack::Overlong(info[1].As<Napi::Number>().Uint32Value());
  o.slideStride = info[2].As<Napi::Number>().Uint32Value();
  if (o.slideStride == 0) o.slideStride = std::max<uint32_t>(1, o.capacity / 2);
  auto lengths = info[3].As<Napi::Uint32Array>();
  midpack::PackerStats stats;
  std::vector<midpack::Unit> units;
  for (size_t i = 0; i < lengths.ElementLength(); i++) midpack::cutDocument(o, uint32_t(i), lengths[i], nullptr, 0, 0, stats, units);
  std::vector<uint32_t> unitLength(units.size()), unitDoc(units.size());
  for (size_t k = 0; k < units.size(); k++) {
    unitLength[k] = units[k].length();
    unitDoc[k] = units[k].doc;
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("unitLength", copyOut(env, unitLength));
  out.Set("unitDoc", copyOut(env, unitDoc));
  out.Set("stats", NativePacker::StatsObject(env, stats));
  return out;
}

// lineSegments(text, specials: Uint32Array | undefined, minChars, distinct) -> Uint32Array of
// (hash high, hash low, line start, line end) per segment (segments.hpp). One call a document;
// the scratch buffers are per thread (prepare and tokenizer workers call it too).
Napi::Value LineSegments(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool specialsOk = info.Length() == 4 && (info[1].IsUndefined() || (info[1].IsTypedArray() && info[1].As<Napi::TypedArray>().TypedArrayType() == napi_uint32_array));
  if (!specialsOk || !info[0].IsString() || !info[2].IsNumber() || !info[3].IsBoolean()) {
    Napi::TypeError::New(env, "lineSegments(text: string, specials: Uint32Array | undefined, minChars: number, distinct: boolean)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  thread_local std::vector<char16_t> text;
  thread_local std::vector<uint32_t> out;
  thread_local midpack::LineSegmenter segmenter;
  size_t length = 0;
  napi_get_value_string_utf16(env, info[0], nullptr, 0, &length);
  text.resize(length + 1);
  napi_get_value_string_utf16(env, info[0], text.data(), text.size(), &length);
  const auto [specials, pairs] = specialPairs(info[1]);
  segmenter.segment(reinterpret_cast<const uint16_t*>(text.data()), length, specials, pairs, info[2].As<Napi::Number>().Uint32Value(), info[3].As<Napi::Boolean>().Value(), out);
  return copyOut(env, out);
}

// jsonStringInto(text, out, at): writes a well-formed text as a JSON string literal in UTF-8 at
// out[at]; returns the bytes written, or minus the bytes needed when out has not that much room
// from `at` (nothing written then). Its UTF-8 comes from V8's own encoder, into a buffer the thread keeps.
Napi::Value JsonStringInto(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsString() || !info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array || !info[2].IsNumber()) {
    Napi::TypeError::New(env, "jsonStringInto(text: string, out: Uint8Array, at: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  thread_local std::vector<char> utf8;
  size_t units = 0;
  napi_get_value_string_utf16(env, info[0], nullptr, 0, &units);
  if (utf8.size() < 3 * units + 1) utf8.resize(3 * units + 1);
  size_t bytes = 0;
  napi_get_value_string_utf8(env, info[0], utf8.data(), utf8.size(), &bytes);
  const auto* in = reinterpret_cast<const uint8_t*>(utf8.data());
  auto out = info[1].As<Napi::Uint8Array>();
  const size_t at = info[2].As<Napi::Number>().Uint32Value();
  const size_t need = midpack::jsonStringLength(in, bytes);
  if (at > out.ElementLength() || out.ElementLength() - at < need) return Napi::Number::New(env, -static_cast<double>(need));
  return Napi::Number::New(env, static_cast<double>(midpack::jsonStringOfUtf8(in, bytes, out.Data() + at)));
}

// jsonAsciiText(line: Uint8Array, key: string, at: Float64Array): the text of the JSON record
// line's top-level string field `key` when it is all ASCII (native/include/json_text.hpp): its
// length in characters, with its literal's bounds (quotes included) in at[0] and at[1]; -1 when
// the line is to be read as before (no such field, one that is not ASCII, anything unusual).
Napi::Value JsonAsciiText(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array || !info[1].IsString() || !info[2].IsTypedArray() ||
      info[2].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array || info[2].As<Napi::TypedArray>().ElementLength() < 2) {
    Napi::TypeError::New(env, "jsonAsciiText(line: Uint8Array, key: string, at: Float64Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto line = info[0].As<Napi::Uint8Array>();
  const std::string key = info[1].As<Napi::String>().Utf8Value();
  size_t from = 0, to = 0;
  if (!midpack::jsonStringField(line.Data(), line.ElementLength(), key, from, to)) return Napi::Number::New(env, -1);
  const long length = midpack::jsonAsciiLength(line.Data() + from + 1, to - from - 2);
  auto at = info[2].As<Napi::Float64Array>();
  at[0] = static_cast<double>(from);
  at[1] = static_cast<double>(to);
  return Napi::Number::New(env, static_cast<double>(length));
}

// headerLanguage(text): Linguist's `.h` answer for a header's text, 0 Objective-C, 1 C++, 2 C
// (native/include/header_lines.hpp), read from a UTF-16 copy the thread keeps.
Napi::Value HeaderLanguage(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "headerLanguage(text: string)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  thread_local std::vector<char16_t> text;
  size_t length = 0;
  napi_get_value_string_utf16(env, info[0], nullptr, 0, &length);
  if (text.size() < length + 1) text.resize(length + 1);
  napi_get_value_string_utf16(env, info[0], text.data(), text.size(), &length);
  return Napi::Number::New(env, static_cast<int32_t>(midpack::headerLanguage(reinterpret_cast<const uint16_t*>(text.data()), length)));
}

// jsonTextSlice(line: Uint8Array, key: string, start, end, cursor: Float64Array): the UTF-16
// units [start, end) of the JSON record line's top-level string field `key` (segments.hpp
// jsonStringUnits), as text.slice(start, end) of the parsed record gives them, without parsing
// the line; undefined when the line is to be parsed instead (no such field, anything unusual, a
// text too short). `cursor` is the line's own, four numbers: the literal's bounds (quotes
// included; -1 before the first call) and where the last walk stopped (a byte of the line, the
// unit it stands for), so a line's slices in order walk it once.
Napi::Value JsonTextSlice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 5 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array || !info[1].IsString() || !info[2].IsNumber() || !info[3].IsNumber() ||
      !info[4].IsTypedArray() || info[4].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array || info[4].As<Napi::TypedArray>().ElementLength() < 4) {
    Napi::TypeError::New(env, "jsonTextSlice(line: Uint8Array, key: string, start: number, end: number, cursor: Float64Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto line = info[0].As<Napi::Uint8Array>();
  auto cursor = info[4].As<Napi::Float64Array>();
  const double start = info[2].As<Napi::Number>().DoubleValue(), end = info[3].As<Napi::Number>().DoubleValue();
  if (!(start >= 0 && end >= start)) return env.Undefined();
  if (cursor[0] < 0) {
    size_t from = 0, to = 0;
    if (!midpack::jsonStringField(line.Data(), line.ElementLength(), info[1].As<Napi::String>().Utf8Value(), from, to)) return env.Undefined();
    cursor[0] = double(from);
    cursor[1] = double(to);
    cursor[2] = double(from + 1);
    cursor[3] = 0;
  }
  const size_t from = size_t(cursor[0]), to = size_t(cursor[1]);
  if (to > line.ElementLength() || to < from + 2) return env.Undefined();
  // A slice before where the last walk stopped walks from the literal's start.
  size_t at = size_t(cursor[2]) - (from + 1), unit = size_t(cursor[3]);
  if (unit > size_t(start)) at = unit = 0;
  thread_local std::vector<uint16_t> units;
  if (!midpack::jsonStringUnits(line.Data() + from + 1, to - from - 2, at, unit, size_t(start), size_t(end), units)) return env.Undefined();
  cursor[2] = double(from + 1 + at);
  cursor[3] = double(unit);
  return Napi::String::New(env, reinterpret_cast<const char16_t*>(units.data()), units.size());
}

// jsonTextSegments(line: Uint8Array, from, to, specials: Uint32Array | undefined, minChars, info:
// Float64Array) -> Uint32Array: lineSegments (every occurrence) of the text the JSON string literal
// line[from, to) stands for (quotes included: jsonAsciiText's bounds), unescaped here into a
// UTF-16 copy the thread keeps, so the text is never a JS string; info[0] gets its length in
// UTF-16 units, info[1] 1 when it is well-formed (no lone surrogate), else 0. Undefined when the
// literal is not one jsonStringUnits reads: the caller parses the line then.
// jsonTextString(line, from, to): the text the JSON string literal line[from, to) (quotes
// included, as jsonAsciiText bounds it) stands for, as JSON.parse of the line decoded by a fatal
// UTF-8 decoder gives it; undefined when that would fail or the literal is not one this reads
// (the caller parses the line then). A tokenizer worker reads a document's text so without
// decoding the whole line to a string and parsing it.
Napi::Value JsonTextString(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array || !info[1].IsNumber() || !info[2].IsNumber()) {
    Napi::TypeError::New(env, "jsonTextString(line: Uint8Array, from: number, to: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto line = info[0].As<Napi::Uint8Array>();
  const double from = info[1].As<Napi::Number>().DoubleValue(), to = info[2].As<Napi::Number>().DoubleValue();
  if (!(from >= 0 && to >= from + 2 && to <= double(line.ElementLength()))) return env.Undefined();
  const uint8_t* literal = line.Data() + size_t(from) + 1;
  const size_t n = size_t(to - from) - 2;
  thread_local std::vector<uint16_t> text;
  thread_local std::vector<char> narrow;
  if (text.size() < n) text.resize(n);
  size_t units = 0;
  if (midpack::jsonStringAllUnits(literal, n, text.data(), units, true) != n) return env.Undefined();
  // A text of Latin-1 units is made a one-byte string, as V8 makes one (half the memory, its faster paths).
  const uint16_t* u = text.data();
  if (!midpack::allLatin1(u, units)) return Napi::String::New(env, reinterpret_cast<const char16_t*>(u), units);
  if (narrow.size() < units) narrow.resize(units);
  char* b = narrow.data();
  for (size_t i = 0; i < units; i++) b[i] = char(u[i]);
  napi_value out;
  if (napi_create_string_latin1(env, b, units, &out) != napi_ok) return env.Undefined();
  return Napi::Value(env, out);
}

Napi::Value JsonTextSegments(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const bool specialsOk = info.Length() == 6 && (info[3].IsUndefined() || (info[3].IsTypedArray() && info[3].As<Napi::TypedArray>().TypedArrayType() == napi_uint32_array));
  if (!specialsOk || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array || !info[1].IsNumber() || !info[2].IsNumber() || !info[4].IsNumber() ||
      !info[5].IsTypedArray() || info[5].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array || info[5].As<Napi::TypedArray>().ElementLength() < 2) {
    Napi::TypeError::New(env, "jsonTextSegments(line: Uint8Array, from: number, to: number, specials: Uint32Array | undefined, minChars: number, info: Float64Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto line = info[0].As<Napi::Uint8Array>();
  const double from = info[1].As<Napi::Number>().DoubleValue(), to = info[2].As<Napi::Number>().DoubleValue();
  if (!(from >= 0 && to >= from + 2 && to <= double(line.ElementLength()))) return env.Undefined();
  thread_local std::vector<uint16_t> text;
  thread_local std::vector<uint32_t> out;
  thread_local midpack::LineSegmenter segmenter;
  const uint8_t* literal = line.Data() + size_t(from) + 1;
  const size_t n = size_t(to - from) - 2;
  if (text.size() < n) text.resize(n);  // grown, never shrunk: no zeroing a call
  size_t units = 0;
  if (midpack::jsonStringAllUnits(literal, n, text.data(), units) != n) return env.Undefined();
  const bool wellFormed = midpack::wellFormedUtf16(text.data(), units);
  const auto [specials, pairs] = specialPairs(info[3]);
  segmenter.segment(text.data(), units, specials, pairs, info[4].As<Napi::Number>().Uint32Value(), false, out);
  auto result = info[5].As<Napi::Float64Array>();
  result[0] = double(units);
  result[1] = wellFormed ? 1 : 0;
  return copyOut(env, out);
}

// A count table's words (a Uint32Array of 4 words a slot, a power of two of slots) at `generation`:
// false, a TypeError thrown, when `value` is not one.
static bool countTableOf(Napi::Env env, const Napi::Value& value, uint32_t generation, uint32_t size, midpack::CountTable& table) {
  const bool ok = value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == napi_uint32_array;
  const size_t slots = ok ? value.As<Napi::Uint32Array>().ElementLength() / 4 : 0;
  if (!ok || slots == 0 || (slots & (slots - 1)) != 0 || slots > (size_t(1) << 31)) {
    Napi::TypeError::New(env, "a count table's words: a Uint32Array of 4 words a slot, a power of two of slots").ThrowAsJavaScriptException();
    return false;
  }
  table = {value.As<Napi::Uint32Array>().Data(), uint32_t(slots - 1), generation, size};
  return true;
}

static bool isUint32Array(const Napi::Value& v) { return v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_uint32_array; }

// countTableKeys(words, state: Uint32Array [generation, size, stopSize, candidateFloor, stoppedAt],
// found: Uint32Array, from, to, stride) -> Uint32Array of (i, slot) sample candidates: countKeys
// (count_table.hpp) on the JavaScript table's own memory; state[1] gets the new size and state[4]
// the i it stopped at (src/stages/mask/hash-table.ts: HashTable.countKeys).
Napi::Value CountTableKeys(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 6 || !isUint32Array(info[1]) || info[1].As<Napi::Uint32Array>().ElementLength() < 5 || !isUint32Array(info[2]) || !info[3].IsNumber() || !info[4].IsNumber() || !info[5].IsNumber()) {
    Napi::TypeError::New(env, "countTableKeys(words: Uint32Array, state: Uint32Array, found: Uint32Array, from: number, to: number, stride: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto state = info[1].As<Napi::Uint32Array>();
  midpack::CountTable table;
  if (!countTableOf(env, info[0], state[0], state[1], table)) return env.Undefined();
  auto found = info[2].As<Napi::Uint32Array>();
  const size_t stride = info[5].As<Napi::Number>().Uint32Value();
  // A key's low half is at i + 1: no i at or past the last word.
  const size_t requestedTo = info[4].As<Napi::Number>().Uint32Value();
  const size_t to = std::min<size_t>(requestedTo, found.ElementLength() - std::min<size_t>(found.ElementLength(), 1));
  if (stride < 2) {
    Napi::RangeError::New(env, "countTableKeys: a stride of at least 2 (a key's two halves)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  thread_local std::vector<uint32_t> candidates;
  const midpack::CountKeys keys{found.Data(), info[3].As<Napi::Number>().Uint32Value(), to, stride, state[2], state[3]};
  const size_t stopped = midpack::countKeys(table, keys, candidates);
  state[1] = table.size;
  state[4] = uint32_t(stopped >= to ? requestedTo : stopped);
  return copyOut(env, candidates);
}

// countTableMove(from: Uint32Array, fromGeneration, to: Uint32Array) -> entries moved: moveEntries
// into the empty table `to`, whose generation is then 1.
Napi::Value CountTableMove(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[1].IsNumber()) {
    Napi::TypeError::New(env, "countTableMove(from: Uint32Array, fromGeneration: number, to: Uint32Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  midpack::CountTable from, to;
  if (!countTableOf(env, info[0], info[1].As<Napi::Number>().Uint32Value(), 0, from) || !countTableOf(env, info[2], 1, 0, to)) return env.Undefined();
  midpack::moveEntries(from, to);
  return Napi::Number::New(env, to.size);
}

// countTableSorted(words: Uint32Array, generation, size) -> Uint32Array: the occupied slots in key
// order; countTableRecords(...the same) -> Uint32Array: keyOrderRecords (count_table.hpp).
template <void (*List)(const midpack::CountTable&, std::vector<uint32_t>&)>
Napi::Value CountTableInKeyOrder(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[1].IsNumber() || !info[2].IsNumber()) {
    Napi::TypeError::New(env, "countTableSorted / countTableRecords(words: Uint32Array, generation: number, size: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  midpack::CountTable table;
  if (!countTableOf(env, info[0], info[1].As<Napi::Number>().Uint32Value(), info[2].As<Napi::Number>().Uint32Value(), table)) return env.Undefined();
  std::vector<uint32_t> out;  // a table's worth: not kept between calls
  List(table, out);
  return copyOut(env, out);
}

// countTableWords(slots) -> Uint32Array of 4 * slots zero words in memory of its own
// (mapTableWords, count_table.hpp), unmapped when the array is collected; undefined where there is
// none (a table under 2 MB, another system, a runtime without external buffers).
Napi::Value CountTableWords(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "countTableWords(slots: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const double slots = info[0].As<Napi::Number>().DoubleValue();
  if (!(slots >= 1 && slots <= double(size_t(1) << 31))) return env.Undefined();
  const size_t bytes = size_t(slots) * 4 * sizeof(uint32_t);
  uint32_t* words = midpack::mapTableWords(bytes);
  if (!words) return env.Undefined();
  auto buffer = Napi::ArrayBuffer::New(env, words, bytes, [bytes](Napi::Env env, void* data) {
    midpack::unmapTableWords(static_cast<uint32_t*>(data), bytes);
    Napi::MemoryManagement::AdjustExternalMemory(env, -int64_t(bytes));
  });
  if (env.IsExceptionPending()) {
    env.GetAndClearPendingException();
    midpack::unmapTableWords(words, bytes);
    return env.Undefined();
  }
  // Counted as the runtime's own buffers are, so a table let go of (grown, or counting done) is collected as soon.
  Napi::MemoryManagement::AdjustExternalMemory(env, int64_t(bytes));
  return Napi::Uint32Array::New(env, bytes / sizeof(uint32_t), buffer, 0);
}

static std::vector<std::string> stringsOf(const Napi::Array& a) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < a.Length(); ++i) out.push_back(a.Get(i).As<Napi::String>().Utf8Value());
  return out;
}

// The child's end reported on the JavaScript thread that started it (a worker's too): a thread
// per child waits for it to end (libuv's SIGCHLD handler reaps only its own children) and hands
// over by a thread-safe function, which keeps the event loop alive until then, as a running child
// of child_process does. The child is reaped on the JavaScript thread, as the exit is reported:
// until then its pid is a zombie of ours, so a kill() from that thread never reaches a process
// that was given the pid after it.
//
// A worker may be terminated while its children run. Its environment's teardown frees the
// thread-safe function even though the waiter still holds it (Node 20: the waiter's next call
// then locked a destroyed mutex and the process aborted), so the waiter touches it only while
// the environment is known to live: a cleanup hook, run at teardown before the thread-safe
// function's own (hooks run last added first), clears `envAlive` under the lock the waiter holds
// while it calls. A child whose thread is gone is reaped by its waiter.
struct ChildWait {
  std::mutex lock;
  bool envAlive = true;
  Napi::ThreadSafeFunction tsfn;
};

// The cleanup hook's argument: the environment's reference to the shared state.
using ChildWaitRef = std::shared_ptr<ChildWait>;

static void onEnvTeardown(void* arg) {
  auto* ref = static_cast<ChildWaitRef*>(arg);
  {
    std::lock_guard<std::mutex> hold((*ref)->lock);
    (*ref)->envAlive = false;
  }
  delete ref;
}

static void reportExit(napi_env env, napi_value onExit, pid_t pid, ChildWaitRef* ref);

static void waitInThread(Napi::Env env, pid_t pid, Napi::Function onExit) {
  auto wait = std::make_shared<ChildWait>();
  wait->tsfn = Napi::ThreadSafeFunction::New(env, onExit, "midpack:spawnWait", 0, 1);
  auto* ref = new ChildWaitRef(wait);
  if (napi_add_env_cleanup_hook(env, onEnvTeardown, ref) != napi_ok) {
    delete ref;  // unwatched (it does not happen in practice): the exit is still reported
    ref = nullptr;
  }
  std::thread([wait, ref, pid]() {
    midpack::waitUntilEnded(pid);
    std::lock_guard<std::mutex> hold(wait->lock);
    if (wait->envAlive) {
      const napi_status queued = wait->tsfn.BlockingCall([ref, pid](Napi::Env env, Napi::Function fn) { reportExit(env, fn, pid, ref); });
      wait->tsfn.Release();
      if (queued == napi_ok) return;
    }
    midpack::waitForExit(pid);  // nothing will report this exit: reaped here, not left a zombie
  }).detach();
}

// On the thread that started the child: reaps it, forgets the cleanup hook, then calls
// onExit(code | null, signal). Plain N-API calls whose failures are let be: on a worker being
// terminated no JavaScript can run, and node-addon-api's Function::Call would then build an
// Error object, which fails there too, a fatal error. An exception thrown by onExit stays
// pending and is reported as uncaught.
static void reportExit(napi_env env, napi_value onExit, pid_t pid, ChildWaitRef* ref) {
  const midpack::ExitStatus status = midpack::waitForExit(pid);
  if (ref) {
    napi_remove_env_cleanup_hook(env, onEnvTeardown, ref);
    delete ref;
  }
  napi_value args[2], receiver, result;
  const napi_status code = status.signal ? napi_get_null(env, &args[0]) : napi_create_int32(env, status.code, &args[0]);
  if (code != napi_ok || napi_create_int32(env, status.signal, &args[1]) != napi_ok || napi_get_undefined(env, &receiver) != napi_ok) return;
  napi_call_function(env, receiver, onExit, 2, args, &result);
}

// spawnProcess(file, argv: string[], cwd: string ('' for the parent's), env: string[] | undefined,
// stdio: number[3] (0 pipe, 1 /dev/null, 2 inherit), onExit(code | null, signal)):
// { error: errno (0 when started), pid, fds: the parent's pipe ends (-1 where not a pipe) }.
Napi::Value SpawnProcess(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 6 || !info[0].IsString() || !info[1].IsArray() || !info[2].IsString() || !info[4].IsArray() || !info[5].IsFunction()) {
    Napi::TypeError::New(env, "spawnProcess expects (file, argv[], cwd, env[] | undefined, stdio[3], onExit)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  midpack::SpawnRequest request;
  request.file = info[0].As<Napi::String>().Utf8Value();
  request.argv = stringsOf(info[1].As<Napi::Array>());
  request.cwd = info[2].As<Napi::String>().Utf8Value();
  request.hasEnv = info[3].IsArray();
  if (request.hasEnv) request.env = stringsOf(info[3].As<Napi::Array>());
  auto stdio = info[4].As<Napi::Array>();
  for (uint32_t i = 0; i < 3; ++i) request.stdio[i] = static_cast<midpack::StdioMode>(stdio.Get(i).As<Napi::Number>().Int32Value());
  midpack::SpawnResult result = midpack::spawnProcess(request);
  if (result.error == 0) waitInThread(env, result.pid, info[5].As<Napi::Function>());
  auto out = Napi::Object::New(env);
  out.Set("error", result.error);
  out.Set("pid", static_cast<double>(result.pid));
  auto fds = Napi::Array::New(env, 3);
  for (uint32_t i = 0; i < 3; ++i) fds.Set(i, result.fds[i]);
  out.Set("fds", fds);
  return out;
}

Napi::Value Version(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), midpack::version()); }

// xxh64(bytes: Uint8Array): XXH64 (seed 0) of the bytes as 16 hex digits, the check of a prepared
// tokenizer's tables (src/tokenize/prepared.ts): megabytes checked in about a millisecond, where
// sha256 took the main thread tens of them before every job's first token.
Napi::Value Xxh64(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    Napi::TypeError::New(env, "xxh64(bytes: Uint8Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto bytes = info[0].As<Napi::Uint8Array>();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(midpack::xxh64(bytes.Data(), bytes.ElementLength())));
  return Napi::String::New(env, hex, 16);
}

// glibc gives each thread that allocates its own arena, up to 8 per core, and memory freed in one
// stays resident there: a run's prepare, tokenize and mask threads each kept tens of MB that way.
// Two arenas for every thread that starts after the addon is loaded (jobs load it before they
// start their threads: src/core/allocator.ts) cut a run's peak RSS by about 100 MB at the same CPU
// time. A user's own MALLOC_ARENA_MAX or glibc.malloc.arena_max tunable is left as it is.
static void limitMallocArenas() {
#if defined(__GLIBC__)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (std::getenv("MALLOC_ARENA_MAX") || (tunables && std::strstr(tunables, "arena_max"))) return;
  mallopt(M_ARENA_MAX, 2);
#endif
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  limitMallocArenas();
  exports.Set("version", Napi::Function::New(env, Version));
  exports.Set("xxh64", Napi::Function::New(env, Xxh64));
  exports.Set("NativePacker", NativePacker::Define(env));
  exports.Set("NativeTokenizer", NativeTokenizer::Define(env));
  exports.Set("NativeCoreSeed", NativeCoreSeed::Define(env));
  exports.Set("NativePlanner", NativePlanner::Define(env));
  exports.Set("cutUnits", Napi::Function::New(env, CutUnits));
  exports.Set("lineSegments", Napi::Function::New(env, LineSegments));
  exports.Set("jsonStringInto", Napi::Function::New(env, JsonStringInto));
  exports.Set("jsonAsciiText", Napi::Function::New(env, JsonAsciiText));
  exports.Set("headerLanguage", Napi::Function::New(env, HeaderLanguage));
  exports.Set("jsonTextSlice", Napi::Function::New(env, JsonTextSlice));
  exports.Set("jsonTextSegments", Napi::Function::New(env, JsonTextSegments));
  exports.Set("jsonTextString", Napi::Function::New(env, JsonTextString));
  exports.Set("countTableKeys", Napi::Function::New(env, CountTableKeys));
  exports.Set("countTableMove", Napi::Function::New(env, CountTableMove));
  exports.Set("countTableSorted", Napi::Function::New(env, CountTableInKeyOrder<midpack::sortedSlots>));
  exports.Set("countTableRecords", Napi::Function::New(env, CountTableInKeyOrder<midpack::keyOrderRecords>));
  exports.Set("countTableWords", Napi::Function::New(env, CountTableWords));
  exports.Set("spawnProcess", Napi::Function::New(env, SpawnProcess));
  return exports;
}

}  // namespace

NODE_API_MODULE(midpack_native, Init)
