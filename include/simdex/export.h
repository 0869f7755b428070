// SIMDEX_EXPORT marks the public API. The shared library is built with hidden visibility
// (-fvisibility=hidden -fvisibility-inlines-hidden), so only what carries this mark is exported;
// internals stay private and may change without breaking programs linked to libsimdex.so.
#pragma once

// Every public header includes this one: a build at an older standard gets this one line, not pages
// of errors about std::span and designated initializers.
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L
#error "simdex's headers need C++20 (-std=c++20 or later)"
#endif

#if defined(_WIN32)
#define SIMDEX_EXPORT
#elif defined(__GNUC__) || defined(__clang__)
#define SIMDEX_EXPORT __attribute__((visibility("default")))
#else
#define SIMDEX_EXPORT
#endif
