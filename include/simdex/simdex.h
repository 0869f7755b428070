// simdex: near-duplicate detection over 64-bit simhash fingerprints (Manku, Jain, Das Sarma 2007).
#pragma once

#include "simdex/builder.h"
#include "simdex/error.h"
#include "simdex/index.h"
#include "simdex/scheme.h"
#include "simdex/set.h"
#include "simdex/version.h"
