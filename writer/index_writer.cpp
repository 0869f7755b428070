#include "writer/index_writer.h"

#include <algorithm>
#include <future>
#include <system_error>
#include <thread>

#include "format/checksum.h"
#include "format/endian.h"
#include "format/layout.h"
#include "format/permutation.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"
#include "writer/external_sorter.h"
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

// The code lengths, keys and ranks of one table; its blocks went to the sink.
struct TableResult {
  format::CodeLengths code_length{};
  std::vector<uint64_t> keys, ranks;
  std::vector<uint8_t> blocks;  // filled only when tables are encoded in parallel
};

// The two passes over one table's sorted entries (spec/FORMAT.md §7: the code is built from the h
// of the whole table, then the blocks are cut with it). for_each_sorted(f) calls f(entry) ascending.
template <typename ForEachSorted>
TableResult encode_sorted(ForEachSorted&& for_each_sorted, uint32_t block_bytes, TableEncoder::BlockSink sink) {
  TableResult r;
  HHistogram histogram;
  for_each_sorted([&](uint64_t e) { histogram.add(e); });
  r.code_length = histogram.code_lengths();
  TableEncoder encoder(r.code_length, block_bytes, std::move(sink));
  for_each_sorted([&](uint64_t e) { encoder.add(e); });
  encoder.finish();
  r.keys = encoder.keys();
  r.ranks = encoder.ranks();
  return r;
}

// Permutes the fingerprints, sorts them within `memory_bytes` (in memory, or in runs merged twice),
// encodes. The identity permutation keeps the fingerprints' own order: no sort.
TableResult build_table(const U64Store& fingerprints, const TableLayout& layout, uint32_t block_bytes,
                        ScratchSpace& scratch, uint64_t memory_bytes, TableEncoder::BlockSink sink) {
  const format::Permutation perm(layout.source_bit);
  if (perm.is_identity()) {
    return encode_sorted(
        [&](auto&& f) {
          fingerprints.for_each_chunk([&](const uint64_t* p, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) f(p[i]);
          });
        },
        block_bytes, std::move(sink));
  }
  ExternalSorter<SortU64> sorter(scratch, memory_bytes);
  sorter.reserve(fingerprints.size());
  fingerprints.for_each_chunk([&](const uint64_t* p, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) sorter.add(perm.apply(p[i]));
  });
  sorter.finish();
  return encode_sorted([&](auto&& f) { sorter.for_each(f); }, block_bytes, std::move(sink));
}

// Memory one table needs to be sorted in memory and its blocks held until written: the entries and
// the radix sort's scratch (16 bytes per entry) plus the blocks (at most 75 bits per entry, < 10 bytes).
uint64_t in_memory_table_bytes(uint64_t n) { return 26 * n + (1 << 20); }

void check_block_bytes(uint32_t b) {
  if (b < format::kMinBlockBytes || b > format::kMaxBlockBytes || b % 8 != 0)
    throw Error(errc::usage, "block size " + std::to_string(b) + " bytes: must be a multiple of 8 between " +
                                 std::to_string(format::kMinBlockBytes) + " and " + std::to_string(format::kMaxBlockBytes));
}

}  // namespace

BuildSummary write_index(const std::string& path, const IndexContents& contents, const Scheme& scheme,
                         const BuildOptions& options, ScratchSpace& scratch, uint64_t memory_bytes) {
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

  auto write_keys_and_ranks = [&](uint32_t t, const TableResult& table) {
    descriptors[t].source_bit = scheme.tables[t].source_bit;
    descriptors[t].code_length = table.code_length;
    descriptors[t].block_count = table.keys.size();
    descriptors[t].prefix_bits = static_cast<uint8_t>(scheme.tables[t].prefix_bits);
    sections.begin(SectionKind::block_keys, t);
    sections.write_u64s(table.keys.data(), table.keys.size());
    entries.push_back(sections.end());
    sections.begin(SectionKind::block_ranks, t);
    sections.write_u64s(table.ranks.data(), table.ranks.size());
    entries.push_back(sections.end());
    progress("tables", t + 1, table_count);
  };
  const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const uint64_t fit = memory_bytes / in_memory_table_bytes(n);
  if (fit >= 1) {
    // Tables are encoded in memory on up to `threads` workers and written strictly in table order,
    // so the file does not depend on the thread count.
    const auto workers = static_cast<uint32_t>(std::min<uint64_t>({threads, table_count, fit}));
    const uint64_t per_worker = memory_bytes / workers;
    std::vector<std::future<TableResult>> pending(table_count);
    uint32_t launched = 0;
    auto launch_until = [&](uint32_t limit) {
      for (; launched < std::min(limit, table_count); ++launched) {
        auto encode = [&, t = launched] {
          std::vector<uint8_t> blocks;
          TableResult r = build_table(contents.fingerprints, scheme.tables[t], options.block_bytes, scratch, per_worker,
                                      [&](const uint8_t* b, std::size_t size) { blocks.insert(blocks.end(), b, b + size); });
          r.blocks = std::move(blocks);
          return r;
        };
        try {
          pending[launched] = std::async(std::launch::async, encode);
        } catch (const std::system_error&) {
          // No thread to be had (a process limit): the table is encoded by the caller when written.
          pending[launched] = std::async(std::launch::deferred, encode);
        }
      }
    };
    for (uint32_t t = 0; t < table_count; ++t) {
      launch_until(t + workers);
      const TableResult table = pending[t].get();
      sections.begin(SectionKind::blocks, t);
      sections.write(table.blocks.data(), table.blocks.size());
      entries.push_back(sections.end());
      write_keys_and_ranks(t, table);
    }
  } else {
    // One table at a time, with the whole bound for its sort; blocks go straight to the file.
    for (uint32_t t = 0; t < table_count; ++t) {
      sections.begin(SectionKind::blocks, t);
      const TableResult table = build_table(contents.fingerprints, scheme.tables[t], options.block_bytes, scratch, memory_bytes,
                                            [&](const uint8_t* b, std::size_t size) { sections.write(b, size); });
      entries.push_back(sections.end());
      write_keys_and_ranks(t, table);
    }
  }

  // Ids, already in the order of table 0's entries (the rank a probe of table 0 finds).
  const uint64_t id_count = contents.ids.size();
  const bool single = id_count == n;
  auto copy = [&](const U64Store& store) {
    store.for_each_chunk([&](const uint64_t* p, std::size_t count) { sections.write_u64s(p, count); });
  };
  sections.begin(SectionKind::id_offsets, format::kNoTable);
  if (!single) copy(contents.id_offsets);
  entries.push_back(sections.end());
  sections.begin(SectionKind::ids, format::kNoTable);
  copy(contents.ids);
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
