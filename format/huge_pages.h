// The big arrays of builds and batch jobs (sort buffers, encoded tables, stores of fingerprints):
// from 4 MiB on, each is a mapping of its own, asked to be backed by transparent huge pages
// (madvise MADV_HUGEPAGE, which the kernel's default "madvise" mode waits for), and grown by
// mremap, which moves pages instead of copying them. Every fresh 4 KiB page costs a page fault;
// under a hypervisor one costs microseconds: touching 160 MiB of fresh memory took 450 ms on the
// machine of bench/RESULTS.md against 17-20 ms with 2 MiB pages. Where the kernel has no huge pages
// the mapping works as plain memory.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace simdex::format {

namespace huge_pages {
constexpr std::size_t kPage = std::size_t{2} << 20;       // a transparent huge page on x86-64 and arm64
constexpr std::size_t kThreshold = std::size_t{4} << 20;  // smaller arrays come from malloc

inline std::size_t mapped_bytes(std::size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

inline void advise(void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  ::madvise(p, mapped_bytes(bytes), MADV_HUGEPAGE);  // a hint: without huge pages, plain pages
#endif
}

// A mapping of mapped_bytes(bytes) aligned to kPage (so that every 2 MiB of it can be one huge
// page): a larger mapping is made and its unaligned head and tail given back.
inline void* map(std::size_t bytes) {
  const std::size_t want = mapped_bytes(bytes);
  if (want < bytes || want + kPage < want) throw std::bad_alloc();
  void* raw = ::mmap(nullptr, want + kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + kPage - 1) / kPage * kPage;
  if (aligned > base) ::munmap(raw, aligned - base);
  if (const std::size_t tail = base + want + kPage - (aligned + want); tail > 0)
    ::munmap(reinterpret_cast<void*>(aligned + want), tail);
  void* p = reinterpret_cast<void*>(aligned);
  advise(p, want);
  return p;
}
inline void unmap(void* p, std::size_t bytes) { ::munmap(p, mapped_bytes(bytes)); }
}  // namespace huge_pages

// A growable array of a trivially copyable type whose new elements are left uninitialized (a
// sort's scratch or a buffer about to be filled: zeroing would cost a pass over it). Below
// huge_pages::kThreshold bytes it lives in malloc's memory, from there in a mapping of its own.
template <typename T>
class HugeBuffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  HugeBuffer() = default;
  explicit HugeBuffer(std::size_t n) { resize(n); }  // n values, uninitialized
  HugeBuffer(HugeBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  HugeBuffer& operator=(HugeBuffer&& o) noexcept {
    HugeBuffer(std::move(o)).swap(*this);
    return *this;
  }
  ~HugeBuffer() { release(data_, capacity_); }
  void swap(HugeBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

  void reserve(std::size_t n) {
    if (n > capacity_) reallocate(n);
  }
  void resize(std::size_t n) {  // new values uninitialized
    reserve(n);
    size_ = n;
  }
  void clear() { size_ = 0; }
  void push_back(const T& x) {
    if (size_ == capacity_) reallocate(std::max<std::size_t>(2 * capacity_, 1024));
    data_[size_++] = x;
  }
  void append(const T* values, std::size_t count) {
    if (count == 0) return;  // data_ may be null: memcpy must not see it
    if (count > capacity_ - size_) reallocate(std::max(size_ + count, 2 * capacity_));
    std::memcpy(data_ + size_, values, count * sizeof(T));
    size_ += count;
  }

 private:
  static bool mapped(std::size_t n) { return n * sizeof(T) >= huge_pages::kThreshold; }
  static void release(T* p, std::size_t n) {
    if (!p) return;
    if (mapped(n))
      huge_pages::unmap(p, n * sizeof(T));
    else
      std::free(p);
  }
  void reallocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T), old_bytes = capacity_ * sizeof(T);
    void* p = nullptr;
    if (!mapped(n)) {
      p = std::realloc(data_, bytes);
      if (!p) throw std::bad_alloc();
    } else if (data_ && mapped(capacity_)) {
      // The pages move to the larger mapping; none is copied or cleared again.
      p = ::mremap(data_, huge_pages::mapped_bytes(old_bytes), huge_pages::mapped_bytes(bytes),
                   MREMAP_MAYMOVE);
      if (p == MAP_FAILED) throw std::bad_alloc();
      huge_pages::advise(p, bytes);
    } else {
      p = huge_pages::map(bytes);
      if (size_ > 0) std::memcpy(p, data_, size_ * sizeof(T));
      release(data_, capacity_);
    }
    data_ = static_cast<T*>(p);
    capacity_ = n;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace simdex::format
