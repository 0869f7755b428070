// SIMDEX_EXPORT marks the public API. The shared library is built with hidden visibility
// (-fvisibility=hidden -fvisibility-inlines-hidden), so only what carries this mark is exported;
// internals stay private and may change without breaking programs linked to libsimdex.so.
#pragma once

#if defined(_WIN32)
#define SIMDEX_EXPORT
#elif defined(__GNUC__) || defined(__clang__)
#define SIMDEX_EXPORT __attribute__((visibility("default")))
#else
#define SIMDEX_EXPORT
#endif
