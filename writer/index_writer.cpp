#include "writer/index_writer.h"

#include <algorithm>
#include <future>
#include <numeric>
#include <thread>

#include "format/checksum.h"
#include "format/endian.h"
#include "format/layout.h"
#include "format/permutation.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"
#include "writer/table_encoder.h"

namespace simdex::writer {

namespace {

using format::SectionEntry;
using format::SectionKind;

// Writes sections one after another, each with its XXH3-64.
class SectionWriter {
 public:
  explicit SectionWriter(AtomicFile& file) : file_(file) {}
  void begin(SectionKind kind, uint32_t table) {
    entry_ = SectionEntry{kind, table, file_.position(), 0, 0};
    hash_.reset();
  }
  void write(const void* data, std::size_t size) {
    file_.write(data, size);
    hash_.update(data, size);
  }
  void write_u64s(const uint64_t* values, std::size_t count) {
    uint8_t chunk[8 * 512];
    while (count > 0) {
      const std::size_t n = std::min<std::size_t>(count, 512);
      for (std::size_t i = 0; i < n; ++i) format::store_le64(chunk + 8 * i, values[i]);
      write(chunk, 8 * n);
      values += n;
      count -= n;
    }
  }
  SectionEntry end() {
    entry_.bytes = file_.position() - entry_.offset;
    entry_.checksum = hash_.digest();
    return entry_;
  }

 private:
  AtomicFile& file_;
  format::Checksum64 hash_;
  SectionEntry entry_;
};

EncodedTable build_table(const std::vector<uint64_t>& fingerprints, const TableLayout& layout, uint32_t block_bytes) {
  const format::Permutation perm(layout.source_bit);
  std::vector<uint64_t> permuted(fingerprints.size());
  std::transform(fingerprints.begin(), fingerprints.end(), permuted.begin(), [&](uint64_t f) { return perm.apply(f); });
  if (!perm.is_identity()) std::sort(permuted.begin(), permuted.end());
  return encode_table(permuted, block_bytes);
}

void check_block_bytes(uint32_t b) {
  if (b < format::kMinBlockBytes || b > format::kMaxBlockBytes || b % 8 != 0)
    throw Error(errc::usage, "block size " + std::to_string(b) + " bytes: must be a multiple of 8 between " +
                                 std::to_string(format::kMinBlockBytes) + " and " + std::to_string(format::kMaxBlockBytes));
}

}  // namespace

BuildSummary write_index(const std::string& path, const IndexContents& contents, const Scheme& scheme,
                         const BuildOptions& options) {
  check_block_bytes(options.block_bytes);
  const auto table_count = static_cast<uint32_t>(scheme.tables.size());
  if (table_count == 0 || table_count > format::kMaxTables)
    throw Error(errc::usage, "a scheme needs 1 to " + std::to_string(format::kMaxTables) + " tables");
  if (scheme.name.size() > format::kSchemeNameBytes)
    throw Error(errc::usage, "scheme name longer than 32 bytes: " + scheme.name);
  const uint64_t n = contents.fingerprints.size();
  auto progress = [&](std::string_view stage, uint64_t done, uint64_t total) {
    if (options.progress) options.progress(stage, done, total);
  };

  AtomicFile file(path);
  const uint64_t region_bytes = format::header_region_bytes(table_count);
  std::vector<uint8_t> region(region_bytes, 0);
  file.write(region.data(), region.size());  // placeholder; the real header is written last
  SectionWriter sections(file);
  std::vector<SectionEntry> entries;
  std::vector<format::TableDescriptor> descriptors(table_count);

  // Tables are encoded on up to `threads` workers and written strictly in table order, so the file
  // does not depend on the thread count.
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::future<EncodedTable>> pending(table_count);
  uint32_t launched = 0;
  auto launch_until = [&](uint32_t limit) {
    for (; launched < std::min(limit, table_count); ++launched)
      pending[launched] = std::async(std::launch::async, build_table, std::cref(contents.fingerprints),
                                     std::cref(scheme.tables[launched]), options.block_bytes);
  };
  for (uint32_t t = 0; t < table_count; ++t) {
    launch_until(t + threads);
    EncodedTable table = pending[t].get();
    descriptors[t].source_bit = scheme.tables[t].source_bit;
    descriptors[t].code_length = table.code_length;
    descriptors[t].block_count = table.keys.size();
    descriptors[t].prefix_bits = static_cast<uint8_t>(scheme.tables[t].prefix_bits);
    sections.begin(SectionKind::blocks, t);
    sections.write(table.blocks.data(), table.blocks.size());
    entries.push_back(sections.end());
    sections.begin(SectionKind::block_keys, t);
    sections.write_u64s(table.keys.data(), table.keys.size());
    entries.push_back(sections.end());
    sections.begin(SectionKind::block_ranks, t);
    sections.write_u64s(table.ranks.data(), table.ranks.size());
    entries.push_back(sections.end());
    progress("tables", t + 1, table_count);
  }

  // Ids in the order of table 0's entries (the rank a probe of table 0 finds).
  const format::Permutation first(scheme.tables[0].source_bit);
  std::vector<uint64_t> order;  // order[rank] = index into contents.fingerprints
  if (!first.is_identity()) {
    std::vector<std::pair<uint64_t, uint64_t>> keyed(n);
    for (uint64_t i = 0; i < n; ++i) keyed[i] = {first.apply(contents.fingerprints[i]), i};
    std::sort(keyed.begin(), keyed.end());
    order.resize(n);
    for (uint64_t r = 0; r < n; ++r) order[r] = keyed[r].second;
  }
  auto index_at = [&](uint64_t rank) { return order.empty() ? rank : order[rank]; };
  const uint64_t id_count = contents.ids.size();
  const bool single = id_count == n;
  sections.begin(SectionKind::id_offsets, format::kNoTable);
  if (!single) {
    std::vector<uint64_t> offsets(n + 1);
    offsets[0] = 0;
    for (uint64_t r = 0; r < n; ++r) {
      const uint64_t i = index_at(r);
      offsets[r + 1] = offsets[r] + (contents.id_offsets[i + 1] - contents.id_offsets[i]);
    }
    sections.write_u64s(offsets.data(), offsets.size());
  }
  entries.push_back(sections.end());
  sections.begin(SectionKind::ids, format::kNoTable);
  if (order.empty()) {
    sections.write_u64s(contents.ids.data(), contents.ids.size());
  } else {
    for (uint64_t r = 0; r < n; ++r) {
      const uint64_t i = index_at(r);
      sections.write_u64s(contents.ids.data() + contents.id_offsets[i], contents.id_offsets[i + 1] - contents.id_offsets[i]);
    }
  }
  entries.push_back(sections.end());

  format::FileHeader header;
  header.file_bytes = file.position();
  header.fingerprint_count = n;
  header.id_count = id_count;
  header.table_count = table_count;
  header.section_count = format::section_count_for(table_count);
  header.block_bytes = options.block_bytes;
  header.max_distance = static_cast<uint8_t>(scheme.max_distance);
  header.id_layout = single ? format::IdLayout::single : format::IdLayout::offsets;
  header.scheme_name = scheme.name;
  uint8_t* p = region.data() + format::FileHeader::kEncodedBytes;
  for (const auto& d : descriptors) {
    d.encode_to(p);
    p += format::TableDescriptor::kEncodedBytes;
  }
  for (const auto& e : entries) {
    e.encode_to(p);
    p += format::SectionEntry::kEncodedBytes;
  }
  header.encode_to(region.data());
  header.header_checksum = format::header_region_checksum(region.data(), region_bytes);
  header.encode_to(region.data());
  file.write_at(0, region.data(), region.size());
  file.publish();

  BuildSummary summary;
  summary.fingerprint_count = n;
  summary.id_count = id_count;
  summary.file_bytes = header.file_bytes;
  summary.scheme_name = scheme.name;
  summary.table_count = table_count;
  return summary;
}

}  // namespace simdex::writer
