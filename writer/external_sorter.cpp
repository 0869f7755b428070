#include "writer/external_sorter.h"

namespace simdex::writer {

SortPlan SortPlan::for_memory(uint64_t memory_bytes, std::size_t record_bytes) {
  SortPlan plan;
  // The buffer takes half the bound: a radix sort's scratch takes the other half, and a buffer that
  // grows by doubling never holds more than 3/4 of the bound while it moves.
  plan.buffer_records = std::max<uint64_t>(256, memory_bytes / (2 * record_bytes));
  // Merging: fan_in read buffers within a quarter of the bound, each 4 KiB to 4 MiB.
  plan.fan_in = static_cast<std::size_t>(std::clamp<uint64_t>(memory_bytes / (256 << 10), 2, 64));
  const uint64_t read_bytes = std::clamp<uint64_t>(memory_bytes / (4 * plan.fan_in), 4096, 4 << 20);
  plan.read_buffer_records = static_cast<std::size_t>(std::max<uint64_t>(1, read_bytes / record_bytes));
  return plan;
}

}  // namespace simdex::writer
