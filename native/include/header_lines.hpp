#pragma once
// GitHub Linguist's `.h` heuristics (lib/linguist/heuristics.yml; src/stages/repos/heuristics.ts
// holds them as JavaScript regular expressions): Objective-C where a line begins (after white
// space) with an Objective-C keyword or `#import "x.h"`, else C++ where a line begins with a C++
// construct or the text holds `__has_cpp_attribute`, `__cplusplus >` or `std::x`, else C. One
// pass over the UTF-16 text, each line's first word compared with the alternatives exactly as the
// expressions define them (JavaScript's \s, \w, \b, `.` and line terminators). Plain C++17,
// tested against trying the expressions in turn on every installed header
// (test/stages/repos/languages.test.ts).
#include <cstddef>
#include <cstdint>

namespace midpack {

enum class HeaderLanguage : int32_t { ObjectiveC = 0, Cpp = 1, C = 2 };

HeaderLanguage headerLanguage(const uint16_t* text, size_t length);

}  // namespace midpack
