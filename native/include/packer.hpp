#pragma once
#include <cstdint>
namespace midpack {
inline const char* version() { return "0.1.0"; }
}
