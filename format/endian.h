// Little-endian loads and stores for on-disk integers, and the big-endian load the MSB-first bit
// stream uses. memcpy keeps them free of alignment and aliasing assumptions; compilers emit one mov.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace simdex::format {

static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big);

template <typename T>
inline T byteswap_if_big(T v) {
  if constexpr (std::endian::native == std::endian::big) {
    if constexpr (sizeof(T) == 2) return static_cast<T>(__builtin_bswap16(v));
    if constexpr (sizeof(T) == 4) return static_cast<T>(__builtin_bswap32(v));
    if constexpr (sizeof(T) == 8) return static_cast<T>(__builtin_bswap64(v));
  }
  return v;
}

template <typename T>
inline T load_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return byteswap_if_big(v);
}
inline uint16_t load_le16(const uint8_t* p) { return load_le<uint16_t>(p); }
inline uint32_t load_le32(const uint8_t* p) { return load_le<uint32_t>(p); }
inline uint64_t load_le64(const uint8_t* p) { return load_le<uint64_t>(p); }

template <typename T>
inline void store_le(uint8_t* p, T v) {
  v = byteswap_if_big(v);
  std::memcpy(p, &v, sizeof v);
}
inline void store_le16(uint8_t* p, uint16_t v) { store_le(p, v); }
inline void store_le32(uint8_t* p, uint32_t v) { store_le(p, v); }
inline void store_le64(uint8_t* p, uint64_t v) { store_le(p, v); }
// `count` values as consecutive u64 from `p` on (an array section: keys, ranks, ids).
inline void store_le64s(uint8_t* p, const uint64_t* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) store_le64(p + 8 * i, values[i]);
}

inline uint64_t load_be64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}

inline void store_be64(uint8_t* p, uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  std::memcpy(p, &v, sizeof v);
}

}  // namespace simdex::format
