// Checksums of the format: XXH3-64 with seed 0 everywhere (spec/FORMAT.md §1, "XXH3-64").
#pragma once

#include <cstddef>
#include <cstdint>

namespace simdex::format {

uint64_t checksum64(const void* data, std::size_t size);

// Block checksums are the low 32 bits of the same hash.
inline uint32_t checksum32(const void* data, std::size_t size) {
  return static_cast<uint32_t>(checksum64(data, size));
}

// Streaming form, for sections written piece by piece and for the header region (which skips the
// checksum field itself).
class Checksum64 {
 public:
  Checksum64();
  ~Checksum64();
  Checksum64(const Checksum64&) = delete;
  Checksum64& operator=(const Checksum64&) = delete;
  void update(const void* data, std::size_t size);
  uint64_t digest() const;
  void reset();

 private:
  void* state_;  // XXH3_state_t, kept out of this header
};

}  // namespace simdex::format
