#include "io/line_blocks.h"

#include <algorithm>
#include <cstring>

namespace simdex::io {

namespace {
// Past the line that holds `p` (or `end`).
const char* next_line_start(const char* p, const char* end) {
  const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
  return nl != nullptr ? nl + 1 : end;
}
}  // namespace

LineBlockReader::LineBlockReader(InputStream& in, std::size_t block_bytes, std::size_t max_line_bytes,
                                 std::size_t padding, unsigned read_threads)
    : in_(in),
      block_bytes_(std::max<std::size_t>(block_bytes, 1)),
      max_line_bytes_(max_line_bytes),
      padding_(padding),
      read_threads_(std::max(read_threads, 1u)) {}

void LineBlockReader::read(LineBlock& b, const LineBlock* last, std::size_t ranges,
                           std::size_t least_range_bytes) {
  const std::size_t held = last ? last->filled_ - last->cut_ : 0;
  std::size_t capacity = std::max(block_bytes_, held + 1);
  if (b.bytes_.size() < capacity + padding_) b.bytes_.resize(capacity + padding_);
  if (held > 0) std::memcpy(b.bytes_.data(), last->bytes_.data() + last->cut_, held);
  b.at_end_ = b.line_too_long_ = false;
  b.filled_ = held;
  b.cut_ = 0;
  for (;;) {
    const std::size_t want = capacity - b.filled_;
    const std::size_t got = in_.read_parallel(b.bytes_.data() + b.filled_, want, read_threads_);
    const std::size_t scanned = b.filled_;  // the held line has no '\n': only new bytes are searched
    b.filled_ += got;
    b.at_end_ = got < want;
    if (b.at_end_) {
      b.cut_ = b.filled_;
      break;
    }
    if (const void* nl = memrchr(b.bytes_.data() + scanned, '\n', b.filled_ - scanned)) {
      b.cut_ = static_cast<std::size_t>(static_cast<const char*>(nl) - b.bytes_.data()) + 1;
      break;
    }
    // No line ends in the block: its one line grows it, up to max_line_bytes + 1 bytes.
    if (b.filled_ > max_line_bytes_) {
      b.line_too_long_ = b.at_end_ = true;
      break;
    }
    capacity = std::min(capacity * 2, max_line_bytes_ + 1);
    if (b.bytes_.size() < capacity + padding_) b.bytes_.resize(capacity + padding_);
  }
  // Ranges cut at the first line end at or past an even split of the block's whole lines.
  b.ranges_.clear();
  const char* const begin = b.bytes_.data();
  const char* const end = begin + b.cut_;
  const std::size_t count = std::clamp<std::size_t>(b.cut_ / std::max<std::size_t>(least_range_bytes, 1), 1,
                                                    std::max<std::size_t>(ranges, 1));
  const char* start = begin;
  for (std::size_t i = 0; i < count && start < end; ++i) {
    const char* split = begin + b.cut_ * (i + 1) / count;
    const char* stop = i + 1 == count ? end : split <= start ? start : next_line_start(split - 1, end);
    if (stop == start) continue;
    b.ranges_.emplace_back(start, static_cast<std::size_t>(stop - start));
    start = stop;
  }
}

}  // namespace simdex::io
