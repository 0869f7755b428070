// simdex::dedup against brute force on small inputs.
#include "simdex/dedup.h"

#include <doctest/doctest.h>
TEST_CASE("placeholder") { CHECK(simdex::keep_policy("first") == simdex::KeepPolicy::first); }
