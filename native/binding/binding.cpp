// The thin node-addon-api layer over midpack::Packer: typed arrays in, typed arrays out,
// one call per batch of documents (never one per document).
#include <napi.h>

#include <cstring>
#include <memory>
#include <stdexcept>

#include "packer.hpp"

namespace {

// Copies a result vector into a new typed array; the vector keeps its capacity for the next call.
Napi::Uint32Array copyOut(Napi::Env env, const std::vector<uint32_t>& v) {
  auto out = Napi::Uint32Array::New(env, v.size());
  if (!v.empty()) std::memcpy(out.Data(), v.data(), v.size() * sizeof(uint32_t));
  return out;
}

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

  Napi::Value Drain(Napi::Env env) {
    midpack::ClosedBins& c = packer_->closed();
    Napi::Object out = Napi::Object::New(env);
    out.Set("binCount", Napi::Number::New(env, double(c.binCount())));
    out.Set("binUnitStart", copyOut(env, c.binUnitStart));
    out.Set("unitDoc", copyOut(env, c.unitDoc));
    out.Set("unitStart", copyOut(env, c.unitStart));
    out.Set("unitEnd", copyOut(env, c.unitEnd));
    out.Set("unitHeader", copyOut(env, c.unitHeader));
    c.clear();
    return out;
  }

  Napi::Value Stats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const midpack::PackerStats& s = packer_->stats();
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

  std::unique_ptr<midpack::Packer> packer_;
};

Napi::Value Version(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), midpack::version()); }

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("version", Napi::Function::New(env, Version));
  exports.Set("NativePacker", NativePacker::Define(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(midpack_native, Init)
