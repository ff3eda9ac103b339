// The native tests' one assertion: counts a failure, prints where and why, stops after 20.
#pragma once
#include <cstdio>
#include <cstdlib>

static int failures = 0;
#define CHECK(cond, ...)                                                    \
  do {                                                                      \
    if (!(cond)) {                                                          \
      failures++;                                                           \
      std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                    \
      std::fprintf(stderr, "\n");                                           \
      if (failures > 20) std::exit(1);                                      \
    }                                                                       \
  } while (0)
