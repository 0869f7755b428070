#include "writer/index_writer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <tuple>

#include "format/block_directory.h"
#include "format/checksum.h"
#include "format/coverage.h"
#include "format/endian.h"
#include "format/fingerprint_settings.h"
#include "format/header_region.h"
#include "format/huge_pages.h"
#include "format/permutation.h"
#include "format/physical_memory.h"
#include "format/run_tasks.h"
#include "format/thread_count.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"
#include "writer/external_sorter.h"
#include "writer/radix_sort.h"
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
      format::store_le64s(chunk, values, n);
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

// The arrays of a table encoded in memory, used again from table to table: fresh memory costs the
// kernel a fault and a cleared page for every page, a quarter of a build's time when each table
// had arrays of its own.
struct TableArrays {
  format::HugeBuffer<uint64_t> entries, scratch;  // the permuted fingerprints and the sort's scratch
  format::HugeBuffer<uint8_t> blocks;
};

// Arrays given back when a table is written, taken by the next table's encoder.
class TableArrayPool {
 public:
  std::unique_ptr<TableArrays> take() {
    const std::lock_guard lock(mutex_);
    if (free_.empty()) return std::make_unique<TableArrays>();
    auto a = std::move(free_.back());
    free_.pop_back();
    return a;
  }
  void give_back(std::unique_ptr<TableArrays> a) {
    const std::lock_guard lock(mutex_);
    free_.push_back(std::move(a));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<TableArrays>> free_;
};

// The code lengths, keys and ranks of one table; its blocks went to the sink, or are in `arrays`
// when the table was encoded in memory.
struct TableResult : EncodedTable {
  std::unique_ptr<TableArrays> arrays;
};

// The two passes over one table's sorted entries (spec/FORMAT.md §7: the code is built from the h
// of the whole table, then the blocks are cut with it). for_each_sorted(f) calls f(entry) ascending.
template <typename ForEachSorted>
TableResult encode_sorted(ForEachSorted&& for_each_sorted, uint32_t block_bytes,
                          TableEncoder::BlockSink sink) {
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

// Calls f(entry) for the fingerprints in their own order: table 0's when it does not permute.
auto each_fingerprint(const U64Store& fingerprints) {
  return [&fingerprints](auto&& f) {
    fingerprints.for_each_chunk([&](const uint64_t* p, std::size_t count) {
      for (std::size_t i = 0; i < count; ++i) f(p[i]);
    });
  };
}

// The encoding of entries held in memory (encode_table, on the pool's threads), the blocks in
// arrays.blocks.
TableResult encode_in_memory(std::span<const uint64_t> entries, uint32_t block_bytes, format::TaskPool& pool,
                             TableArrays& arrays) {
  TableResult r;
  static_cast<EncodedTable&>(r) = encode_table(entries, block_bytes, pool, arrays.blocks);
  return r;
}

// Permutes the fingerprints, sorts them within `memory_bytes` on `sort_threads` threads, encodes,
// the blocks going to the sink, or (sink empty) to arrays.blocks. The identity permutation keeps
// the fingerprints' own order: no sort. When the entries and the sort's scratch fit in the bound
// (16 bytes an entry), they are sorted in `arrays`, kept for the next table (fresh memory costs a
// fault and a cleared page a page); else in runs. Entries in memory with no sink are encoded on
// the sort's threads too. Those rounds (permuting, the sort's four, the encoding's two) share one
// pool: each started threads of its own (before it and the cap on the cores, a 300k paper-10
// build at --threads 4096 started 7,870 threads; 19 now).
TableResult build_table(const U64Store& fingerprints, const TableLayout& layout, uint32_t block_bytes,
                        ScratchSpace& scratch, uint64_t memory_bytes, unsigned sort_threads,
                        TableArrays& arrays, TableEncoder::BlockSink sink) {
  const bool to_arrays = !sink;
  if (to_arrays) sink = [&arrays](const uint8_t* b, std::size_t size) { arrays.blocks.append(b, size); };
  const format::Permutation perm(layout.source_bit);
  format::TaskPool pool(sort_threads);
  if (perm.is_identity()) {
    if (to_arrays && fingerprints.in_memory())
      return encode_in_memory(fingerprints.values(), block_bytes, pool, arrays);
    return encode_sorted(each_fingerprint(fingerprints), block_bytes, std::move(sink));
  }
  const std::size_t n = static_cast<std::size_t>(fingerprints.size());
  if (16 * fingerprints.size() > memory_bytes) {
    ExternalSorter<SortU64> sorter(scratch, memory_bytes, sort_threads);
    sorter.reserve(n);
    fingerprints.for_each_chunk([&](const uint64_t* p, std::size_t count) {
      for (std::size_t i = 0; i < count; ++i) sorter.add(perm.apply(p[i]));
    });
    sorter.finish();
    return encode_sorted([&](auto&& f) { sorter.for_each(f); }, block_bytes, std::move(sink));
  }
  arrays.entries.resize(n);
  arrays.scratch.resize(n);
  uint64_t* entries = arrays.entries.data();
  if (fingerprints.in_memory()) {
    // On the sort's threads, in parts (the entries' pages faulted in on them too, when fresh).
    const uint64_t* p = fingerprints.values().data();
    const unsigned parts = format::parts_for(n, sort_threads);
    pool.run(parts, [&](std::size_t s, unsigned, std::atomic<uint64_t>&) {
      for (auto [j, end] = format::part_range(n, s, parts); j < end; ++j) entries[j] = perm.apply(p[j]);
    });
  } else {
    std::size_t i = 0;
    fingerprints.for_each_chunk([&](const uint64_t* p, std::size_t count) {
      for (std::size_t j = 0; j < count; ++j) entries[i++] = perm.apply(p[j]);
    });
  }
  radix_sort(arrays.entries.span(), arrays.scratch.span(), pool);
  if (to_arrays) return encode_in_memory(arrays.entries.span(), block_bytes, pool, arrays);
  return encode_sorted(
      [&](auto&& f) {
        for (std::size_t j = 0; j < n; ++j) f(entries[j]);
      },
      block_bytes, std::move(sink));
}

// build_table with the blocks held in arrays->blocks, for the caller to write.
TableResult build_table_in_memory(const U64Store& fingerprints, const TableLayout& layout,
                                  uint32_t block_bytes, ScratchSpace& scratch, uint64_t memory_bytes,
                                  unsigned sort_threads, std::unique_ptr<TableArrays> arrays) {
  auto& blocks = arrays->blocks;
  blocks.clear();
  // About its bound (< 10 bytes an entry): rarely grown.
  blocks.reserve(10 * fingerprints.size() + block_bytes);
  TableResult r =
      build_table(fingerprints, layout, block_bytes, scratch, memory_bytes, sort_threads, *arrays, {});
  r.arrays = std::move(arrays);
  return r;
}

// Memory one table needs to be sorted in memory and its blocks held until written: the entries and
// the radix sort's scratch (16 bytes per entry) plus the blocks (at most 75 bits per entry, < 10 bytes).
uint64_t in_memory_table_bytes(uint64_t n) { return 26 * n + (1 << 20); }

// A table encoded in memory and written by its worker: what the header region records of it.
struct WrittenTable {
  TableResult table;
  std::array<SectionEntry, 3> sections;  // BLOCKS, BLOCK_KEYS, BLOCK_RANKS
};

// The bytes of a table's three sections (spec §5): its blocks, a key and a rank a block.
uint64_t table_sections_bytes(const TableResult& table) {
  return table.arrays->blocks.size() + 16 * uint64_t{table.keys.size()};
}

// Table t's BLOCKS, BLOCK_KEYS and BLOCK_RANKS (in memory in `table`) written from `at` on, each
// with its checksum: one thread's work, beside the other tables' workers.
std::array<SectionEntry, 3> write_table_sections(AtomicFile& file, uint32_t t, uint64_t at,
                                                 const TableResult& table) {
  std::array<SectionEntry, 3> sections;
  auto put = [&](std::size_t i, SectionKind kind, const uint8_t* data, std::size_t bytes) {
    file.write_parallel(at, data, bytes);
    sections[i] = SectionEntry{kind, t, at, bytes, format::checksum64(data, bytes)};
    at += bytes;
  };
  put(0, SectionKind::blocks, table.arrays->blocks.data(), table.arrays->blocks.size());
  std::vector<uint8_t> bytes;
  for (const auto& [i, kind, values] : {std::tuple{1, SectionKind::block_keys, &table.keys},
                                        std::tuple{2, SectionKind::block_ranks, &table.ranks}}) {
    bytes.resize(8 * values->size());
    format::store_le64s(bytes.data(), values->data(), values->size());
    put(static_cast<std::size_t>(i), kind, bytes.data(), bytes.size());
  }
  return sections;
}

// A section of u64s held in memory whose bytes are the section's (the caller checks: a
// little-endian machine), written at the file's position in parts on `threads` threads at once,
// with the checksum the caller computed. (One thread converting, hashing and buffering 4 KiB at a
// time took 0.29 s for the 240 MB of ids at 30M, after the last table, where a 16-thread build's
// other threads wait.) Part boundaries lie on the file's 2 MiB regions, so that each write fills
// whole ones (AtomicFile::cache_regions).
SectionEntry write_u64s_in_parts(AtomicFile& file, SectionKind kind, std::span<const uint64_t> values,
                                 uint64_t checksum, unsigned threads) {
  constexpr uint64_t kRegion = uint64_t{2} << 20, kLeastPart = uint64_t{8} << 20;
  const uint64_t at = file.position(), bytes = 8 * uint64_t{values.size()};
  const auto* data = reinterpret_cast<const uint8_t*>(values.data());
  const auto parts =
      static_cast<unsigned>(std::clamp<uint64_t>(bytes / kLeastPart, 1, std::max(1u, threads)));
  auto boundary = [&](std::size_t s) {  // where part s starts in the section
    if (s == 0) return uint64_t{0};
    if (s == parts) return bytes;
    const uint64_t from = at + format::part_range(bytes, s, parts).first;
    return std::min(bytes, (from + kRegion - 1) / kRegion * kRegion - at);
  };
  file.skip_to(at);
  file.expect_writers(parts);
  format::run_tasks(parts, parts, [&](std::size_t s, unsigned, std::atomic<uint64_t>&) {
    const uint64_t b = boundary(s), e = boundary(s + 1);
    if (e > b) file.write_parallel(at + b, data + b, e - b);
  });
  file.skip_to(at + bytes);
  return SectionEntry{kind, format::kNoTable, at, bytes, checksum};
}

// One index file being written, step by step (write_index lists the steps): the sections in the
// order of spec §5, then the header region that describes them, filled in as the sections go.
class FileWriter {
 public:
  FileWriter(const std::string& path, const IndexContents& contents, const Scheme& scheme,
             const BuildOptions& options, Durability durability)
      : contents_(contents), scheme_(scheme), options_(options), file_(path, durability), sections_(file_) {
    region_.tables.resize(scheme.tables.size());
    directory_entries_.resize(scheme.tables.size());
    if (options.fingerprint_settings)
      tagged_.push_back({static_cast<uint32_t>(format::Tag::fingerprint_settings), 0,
                         format::encode_fingerprint_settings(*options.fingerprint_settings)});
    tagged_.push_back({static_cast<uint32_t>(format::Tag::block_directory), 0, {}});  // made from the keys
    region_.tagged.resize(tagged_.size());  // the section directory's size, fixed from here on
  }

  // Zeros where the header region goes: it describes the sections, so it is written last.
  void reserve_header_region() {
    const std::vector<uint8_t> zeros(region_.encoded_bytes(), 0);
    file_.write(zeros.data(), zeros.size());
  }

  // BLOCKS, BLOCK_KEYS and BLOCK_RANKS of every table, in table order.
  void write_tables(ScratchSpace& scratch, uint64_t memory_bytes) {
    const uint64_t fit = memory_bytes / in_memory_table_bytes(contents_.fingerprints.size());
    if (fit >= 1)
      write_tables_in_memory(scratch, memory_bytes, fit);
    else
      write_tables_one_at_a_time(scratch, memory_bytes);
  }

  // The checksums of ID_OFFSETS and IDS, when they are held in memory as the file's bytes: on a
  // thread of their own while the tables are built (after them, hashing the 240 MB of ids at 30M
  // took one thread 50-75 ms while the others waited); with one thread, when the ids are written.
  void hash_ids_ahead() {
    if (std::endian::native != std::endian::little || !contents_.ids.in_memory() ||
        !contents_.id_offsets.in_memory())
      return;
    auto hash = [this] {
      auto checksum = [](std::span<const uint64_t> v) { return format::checksum64(v.data(), 8 * v.size()); };
      return std::pair{checksum(id_offsets()), checksum(contents_.ids.values())};
    };
    ids_checksums_ = format::thread_count(options_.threads) > 1 ? format::async_or_deferred(hash)
                                                                : std::async(std::launch::deferred, hash);
  }

  // ID_OFFSETS (empty when every fingerprint has one id) and IDS, already in the order of table 0's
  // entries (the rank a probe of table 0 finds).
  void write_ids() {
    if (ids_checksums_.valid()) {  // in memory: written in parts (hash_ids_ahead)
      const auto [offsets_checksum, ids_checksum] = ids_checksums_.get();
      const unsigned threads = format::cpu_bound_threads(options_.threads);
      region_.sections.push_back(
          write_u64s_in_parts(file_, SectionKind::id_offsets, id_offsets(), offsets_checksum, threads));
      region_.sections.push_back(
          write_u64s_in_parts(file_, SectionKind::ids, contents_.ids.values(), ids_checksum, threads));
      return;
    }
    auto copy = [&](const U64Store& store) {
      store.for_each_chunk([&](const uint64_t* p, std::size_t count) { sections_.write_u64s(p, count); });
    };
    sections_.begin(SectionKind::id_offsets, format::kNoTable);
    if (!one_id_each()) copy(contents_.id_offsets);
    end_section();
    sections_.begin(SectionKind::ids, format::kNoTable);
    copy(contents_.ids);
    end_section();
  }

  // The tagged sections after IDS, in ascending tag order (spec §5.1), each hashed as it goes.
  void write_tagged_sections() {
    std::sort(tagged_.begin(), tagged_.end(), [](const auto& a, const auto& b) { return a.tag < b.tag; });
    for (std::size_t i = 0; i < tagged_.size(); ++i) {
      const format::TaggedSection& t = tagged_[i];
      sections_.begin(SectionKind::ids, format::kNoTable);  // kind unused: only offset, bytes, checksum
      if (t.tag == static_cast<uint32_t>(format::Tag::block_directory))
        write_block_directory();
      else
        sections_.write(t.bytes.data(), t.bytes.size());
      const SectionEntry e = sections_.end();
      region_.tagged[i] = {t.tag, t.tag_flags, e.offset, e.bytes, e.checksum};
    }
  }

  // BLOCK_DIRECTORY (spec §5.3): the head, then each table's entries (describe_table).
  void write_block_directory() {
    std::vector<uint64_t> block_counts;
    for (const format::TableDescriptor& d : region_.tables) block_counts.push_back(d.block_count);
    const std::vector<uint8_t> head = format::BlockDirectoryLayout::written_for(block_counts).encode_head();
    sections_.write(head.data(), head.size());
    for (const std::vector<uint8_t>& entries : directory_entries_)
      sections_.write(entries.data(), entries.size());
  }

  // The header region, now that every section is known, over the zeros reserved for it.
  void write_header_region() {
    format::FileHeader& h = region_.header;
    h.file_bytes = file_.position();
    h.fingerprint_count = contents_.fingerprints.size();
    h.id_count = contents_.ids.size();
    h.block_bytes = options_.block_bytes;
    h.max_distance = static_cast<uint8_t>(scheme_.max_distance);
    h.id_layout = one_id_each() ? format::IdLayout::single : format::IdLayout::offsets;
    h.scheme_name = scheme_.name;
    std::vector<uint8_t> bytes(region_.encoded_bytes());
    region_.encode_to(bytes.data());
    file_.write_at(0, bytes.data(), bytes.size());
  }

  // The direct writes of the tables and ids ended (AtomicFile::end_direct_writes).
  void end_direct_writes() { file_.end_direct_writes(); }

  void publish() { file_.publish(); }

  BuildSummary summary() const {
    BuildSummary summary;
    summary.fingerprint_count = region_.header.fingerprint_count;
    summary.id_count = region_.header.id_count;
    summary.file_bytes = region_.header.file_bytes;
    summary.scheme_name = scheme_.name;
    summary.table_count = static_cast<uint32_t>(scheme_.tables.size());
    return summary;
  }

 private:
  uint32_t table_count() const { return static_cast<uint32_t>(scheme_.tables.size()); }
  // BuildOptions::output_writes: automatic is direct once the tables and ids (about 7 bytes a
  // fingerprint a table, 8 an id) reach a quarter of physical memory, where the cache would keep
  // only a part of the file and the writes would wait for the disk anyway (the kernel holds
  // writers to the disk's pace once a fifth of memory is dirty).
  bool writes_directly() const {
    using Writes = BuildOptions::OutputWrites;
    if (options_.output_writes != Writes::automatic) return options_.output_writes == Writes::direct;
    const uint64_t memory = format::physical_memory_bytes();
    const uint64_t n = contents_.fingerprints.size();
    return memory > 0 && 7 * n * table_count() + 8 * contents_.ids.size() >= memory / 4;
  }
  bool one_id_each() const { return contents_.ids.size() == contents_.fingerprints.size(); }
  // ID_OFFSETS' values held in memory: none when every fingerprint has one id.
  std::span<const uint64_t> id_offsets() const {
    return one_id_each() ? std::span<const uint64_t>() : contents_.id_offsets.values();
  }
  void end_section() { region_.sections.push_back(sections_.end()); }

  // Tables are encoded in memory on up to `threads` workers (at most `fit` at once), each worker
  // then writing its table's sections itself (write_table_sections) once the tables before it are
  // encoded, which places it: the copying into the file (a quarter of a 2-thread build's CPU time,
  // all on one thread, when the caller wrote every table) runs on the workers. The bytes do not
  // depend on the thread count.
  void write_tables_in_memory(ScratchSpace& scratch, uint64_t memory_bytes, uint64_t fit) {
    // No more workers than cores: each holds a table's arrays (26 bytes an entry), and ten tables
    // of 10M in flight on two cores (--threads 4096) took 2.4 GB where two take 0.6.
    const unsigned threads = format::cpu_bound_threads(options_.threads);
    const auto workers = static_cast<uint32_t>(std::min<uint64_t>({threads, table_count(), fit}));
    const uint64_t per_worker = memory_bytes / workers;  // >= in_memory_table_bytes: sorts in memory
    // Threads beyond one a table sort the tables (paper-4 on 16 threads: 4 each; paper-10: 2 each,
    // a few more threads than cores while the sorts overlap, where 6 of 16 cores would idle).
    const unsigned sort_threads = (threads + workers - 1) / workers;
    TableArrayPool pool;  // at most `workers` sets: one a table in flight
    // starts[t]: where table t's sections begin, set by table t - 1 when it is encoded.
    std::vector<std::promise<uint64_t>> starts(table_count() + 1);
    std::vector<std::shared_future<uint64_t>> start_of;
    for (auto& s : starts) start_of.push_back(s.get_future().share());
    file_.expect_writers(workers);
    file_.skip_to(file_.position());  // the reserved header region out: the workers write after it
    if (writes_directly()) file_.begin_direct_writes();  // ended after the ids (write_index)
    starts[0].set_value(file_.position());
    std::vector<std::future<WrittenTable>> pending(table_count());
    uint32_t launched = 0;
    auto launch_until = [&](uint32_t limit) {
      for (; launched < std::min(limit, table_count()); ++launched) {
        auto encode_and_write = [&, t = launched] {
          WrittenTable w;
          try {
            w.table = build_table_in_memory(contents_.fingerprints, scheme_.tables[t], options_.block_bytes,
                                            scratch, per_worker, sort_threads, pool.take());
            const uint64_t at = start_of[t].get();
            starts[t + 1].set_value(at + table_sections_bytes(w.table));
            w.sections = write_table_sections(file_, t, at, w.table);
          } catch (...) {
            // The tables after this one would wait for their place forever: they fail too (the
            // caller reports this table's error, the first in table order).
            try {
              starts[t + 1].set_exception(std::current_exception());
            } catch (const std::future_error&) {  // already set: the failure came while writing
            }
            throw;
          }
          return w;
        };
        // No thread to be had (a process limit): the caller encodes and writes the table in turn.
        pending[launched] = format::async_or_deferred(encode_and_write);
      }
    };
    try {
      for (uint32_t t = 0; t < table_count(); ++t) {
        launch_until(t + workers);
        WrittenTable w = pending[t].get();
        for (const SectionEntry& e : w.sections) region_.sections.push_back(e);
        describe_table(t, w.table);
        pool.give_back(std::move(w.table.arrays));
      }
    } catch (...) {
      // No worker may outlive the arrays and the file it writes. A table never started (deferred)
      // fails the tables after it, which wait for its place.
      for (uint32_t t = 0; t < launched; ++t) {
        if (!pending[t].valid()) continue;
        if (pending[t].wait_for(std::chrono::seconds(0)) != std::future_status::deferred) {
          pending[t].wait();
          continue;
        }
        try {
          starts[t + 1].set_exception(std::current_exception());
        } catch (const std::future_error&) {
        }
      }
      throw;
    }
    file_.skip_to(start_of[table_count()].get());
  }

  // One table at a time, with the whole bound and every thread for its sort; blocks go straight to
  // the file.
  void write_tables_one_at_a_time(ScratchSpace& scratch, uint64_t memory_bytes) {
    TableArrays arrays;
    for (uint32_t t = 0; t < table_count(); ++t) {
      sections_.begin(SectionKind::blocks, t);
      const TableResult table =
          build_table(contents_.fingerprints, scheme_.tables[t], options_.block_bytes, scratch, memory_bytes,
                      format::cpu_bound_threads(options_.threads), arrays,
                      [&](const uint8_t* b, std::size_t size) { sections_.write(b, size); });
      end_section();
      write_keys_and_ranks(t, table);
    }
  }

  // Table t's descriptor, BLOCK_KEYS and BLOCK_RANKS, after its BLOCKS.
  void write_keys_and_ranks(uint32_t t, const TableResult& table) {
    sections_.begin(SectionKind::block_keys, t);
    sections_.write_u64s(table.keys.data(), table.keys.size());
    end_section();
    sections_.begin(SectionKind::block_ranks, t);
    sections_.write_u64s(table.ranks.data(), table.ranks.size());
    end_section();
    describe_table(t, table);
  }

  // Table t's descriptor in the header region, once its sections are written; the progress.
  void describe_table(uint32_t t, const TableResult& table) {
    format::TableDescriptor& d = region_.tables[t];
    d.source_bit = scheme_.tables[t].source_bit;
    d.code_length = table.code_length;
    d.block_count = table.keys.size();
    d.prefix_bits = static_cast<uint8_t>(scheme_.tables[t].prefix_bits);
    // From its keys in memory, as each table is done: read back from the file after the last
    // table, the directory took one thread 0.1 s at 30M while the others waited.
    directory_entries_[t] = format::encode_directory_entries(table.keys);
    if (options_.progress) options_.progress("tables", t + 1, table_count());
  }

  const IndexContents& contents_;
  const Scheme& scheme_;
  const BuildOptions& options_;
  AtomicFile file_;
  SectionWriter sections_;
  format::HeaderRegion region_;
  // The tagged sections to write (spec §5.1). How many is fixed by the constructor, since the
  // section directory lies in the header region reserved first; a section made from the tables
  // (e.g. from their keys in write_keys_and_ranks) may fill in its bytes until write_tagged_sections.
  std::vector<format::TaggedSection> tagged_;
  // Each table's BLOCK_DIRECTORY entries, kept until the section is written: at most 1 MiB a table
  // (format::kWriterMaxDirectoryBits), half its keys' 8 bytes a block at most.
  std::vector<std::vector<uint8_t>> directory_entries_;
  std::future<std::pair<uint64_t, uint64_t>> ids_checksums_;  // hash_ids_ahead: ID_OFFSETS', IDS'
};

}  // namespace

void check_writable(const Scheme& scheme, const BuildOptions& options) {
  for (const std::string& why : {format::check_block_bytes(options.block_bytes),
                                 format::check_table_count(static_cast<uint32_t>(
                                     std::min<std::size_t>(scheme.tables.size(), UINT32_MAX))),
                                 format::check_scheme_name(scheme.name)})
    if (!why.empty()) throw Error(errc::usage, why);
  // A scheme made by hand is checked as a reader checks the file it would make (spec/FORMAT.md
  // §10): a file no reader opens, or one whose queries miss fingerprints, is not written.
  const unsigned k = scheme.max_distance;  // the file's k
  if (k > 64) throw Error(errc::usage, "the scheme's k = " + std::to_string(k) + " is above 64");
  for (std::size_t t = 0; t < scheme.tables.size(); ++t) {
    const TableLayout& table = scheme.tables[t];
    uint64_t seen = 0;
    for (const uint8_t bit : table.source_bit) seen |= bit < 64 ? uint64_t{1} << bit : 0;
    if (seen != ~uint64_t{0})
      throw Error(errc::usage,
                  "table " + std::to_string(t) + " of the scheme: source_bit is not a permutation of 0..63");
    if (table.prefix_bits > 64)
      throw Error(errc::usage, "table " + std::to_string(t) + " of the scheme: prefix_bits " +
                                   std::to_string(table.prefix_bits) + " is above 64");
  }
  // With verify's budget: a scheme it cannot decide is written, as verify then reports it unchecked.
  std::vector<uint64_t> masks;
  for (const TableLayout& table : scheme.tables) masks.push_back(table.prefix_mask());
  const format::Coverage c = format::check_coverage(masks, k);
  if (c.status == format::Coverage::Status::uncovered) {
    char bits[19];
    std::snprintf(bits, sizeof bits, "0x%016llx", static_cast<unsigned long long>(c.uncovered));
    throw Error(errc::usage, "the scheme does not cover its k = " + std::to_string(k) +
                                 ": two fingerprints differing in the bits " + bits +
                                 " share no table's prefix (spec/FORMAT.md §11)");
  }
}

BuildSummary write_index(const std::string& path, const IndexContents& contents, const Scheme& scheme,
                         const BuildOptions& options, ScratchSpace& scratch, uint64_t memory_bytes,
                         Durability durability) {
  check_writable(scheme, options);
  FileWriter writer(path, contents, scheme, options, durability);
  writer.reserve_header_region();
  writer.hash_ids_ahead();
  writer.write_tables(scratch, memory_bytes);
  writer.write_ids();
  writer.end_direct_writes();
  writer.write_tagged_sections();
  writer.write_header_region();
  writer.publish();
  return writer.summary();
}

}  // namespace simdex::writer
