#include <napi.h>
#include "packer.hpp"

static Napi::Value Version(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), midpack::version());
}

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("version", Napi::Function::New(env, Version));
  return exports;
}
NODE_API_MODULE(midpack_native, Init)
