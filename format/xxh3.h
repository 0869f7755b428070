// xxHash, compiled into simdex (XXH_INLINE_ALL): the checksums of spec/FORMAT.md, the key ids of
// spec/KEYS.md and the features of spec/FINGERPRINT.md are XXH3-64 whatever xxHash the program
// links (libsimdex.so calling libxxhash's XXH3_64bits would call a program's own copy of it, an
// older or patched one, in its place), and a short input pays no call into a shared library.
#pragma once

#define XXH_INLINE_ALL
#include <xxhash.h>
