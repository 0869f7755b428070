#include "format/checksum.h"

#include <new>

#include "format/xxh3.h"

namespace simdex::format {

uint64_t checksum64(const void* data, std::size_t size) { return XXH3_64bits(data, size); }

Checksum64::Checksum64() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  reset();
}
Checksum64::~Checksum64() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void Checksum64::reset() { XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_)); }
void Checksum64::update(const void* data, std::size_t size) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data, size);
}
uint64_t Checksum64::digest() const { return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_)); }

}  // namespace simdex::format
