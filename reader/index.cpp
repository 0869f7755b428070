#include <algorithm>

#include "format/floor_bits.h"
#include "reader/index_impl.h"
#include "reader/probe.h"

namespace simdex {

uint64_t IdList::iterator::operator*() const { return format::load_le64(p_); }

const Index::Impl& index_impl(const Index& index) { return *index.impl_; }
Index index_from_impl(std::unique_ptr<Index::Impl> impl) { return Index(std::move(impl)); }

Index::Index(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Index::Index(Index&&) noexcept = default;
Index& Index::operator=(Index&&) noexcept = default;
Index::~Index() = default;

std::unique_ptr<Index::Impl> reader::open_file(const std::string& path, const OpenOptions& options) {
  auto impl = std::make_unique<Index::Impl>();
  impl->options = options;
  impl->mapping = std::make_unique<reader::MappedFile>(path, options.detect_changes);
  if (const auto* watch = impl->mapping->watch()) impl->changed = &watch->changed_flag();
  try {
    impl->file = read_checked(
        *impl, true, [&] { return reader::IndexFile::parse(impl->mapping->data(), impl->mapping->size()); });
  } catch (const Error& e) {
    if (e.code() == errc::file_changed) throw;
    throw Error(e.code(), "'" + path + "': " + e.detail());
  }
  preload(*impl, options.preload);
  return impl;
}

void reader::preload(const Index::Impl& impl, OpenOptions::Preload what) {
  if (what == OpenOptions::Preload::none || !impl.mapping) return;
  if (what == OpenOptions::Preload::all) {
    impl.mapping->populate(0, impl.mapping->size(), true);
  } else {
    for (const auto& s : impl.file.sections())
      if (s.kind == format::SectionKind::block_keys) impl.mapping->populate(s.offset, s.bytes);
    for (const auto& e : impl.file.tagged_sections())
      if (e.tag == static_cast<uint32_t>(format::Tag::block_directory))
        impl.mapping->populate(e.offset, e.bytes);
  }
  // The decode tables and directory copies too, which a table's first probe would otherwise make
  // (8 KiB each, and up to 1 MiB).
  for (const auto& t : impl.file.tables()) {
    t.decode_table();
    t.copied_directory();
  }
}

bool Index::is_set() const { return impl_->composite != nullptr; }

void throw_file_changed(const Index::Impl& impl) {
  throw Error(errc::file_changed, "'" + impl.mapping->path() +
                                      "' changed while open (truncated or written in place); open it again. "
                                      "Publish index files by rename (README: Deploying index files)");
}

void Index::check_unchanged() const {
  if (impl_->composite) return impl_->composite->check_unchanged();
  throw_if_changed(*impl_, true);
}

Index Index::from_buffer(const uint8_t* data, std::size_t size) {
  auto impl = std::make_unique<Impl>();
  impl->file = reader::IndexFile::parse(data, size);
  return Index(std::move(impl));
}

uint64_t Index::fingerprint_count() const {
  return impl_->composite ? impl_->composite->fingerprint_count() : impl_->file.header().fingerprint_count;
}
unsigned Index::max_distance() const {
  return impl_->composite ? impl_->composite->max_distance() : impl_->file.header().max_distance;
}
unsigned Index::search_distance(int k) const {
  return impl_->composite ? impl_->composite->search_distance(k) : impl_->file.search_distance(k);
}
std::size_t Index::table_count() const {
  return impl_->composite ? impl_->composite->table_count() : impl_->file.tables().size();
}

std::vector<Hit> Index::query(uint64_t fingerprint, unsigned k) const {
  std::vector<Hit> out;
  query(fingerprint, k, out);
  return out;
}

namespace {
struct Candidate {
  uint64_t fingerprint;
  unsigned distance;
  uint64_t rank;  // in table 0, UINT64_MAX until known
};
}  // namespace

namespace {
void query_unchecked(const reader::IndexFile& file, uint64_t fingerprint, unsigned k, std::vector<Hit>& out) {
  file.search_distance(k);
  out.clear();
  // Per-thread scratch: after the first queries no allocation happens at all.
  thread_local std::vector<Candidate> found;
  thread_local std::vector<reader::ProbeStart> starts;
  found.clear();
  const auto& all = file.tables();
  const std::vector<uint32_t>& tables = file.tables_within(k);  // in order, table 0 first
  starts.resize(tables.size());
  // Each step for every table before the next (reader/probe.h): the tables' misses overlap.
  for (std::size_t i = 0; i < tables.size(); ++i) reader::aim(all[tables[i]], fingerprint, starts[i]);
  for (std::size_t i = 0; i < tables.size(); ++i) reader::read_candidates(all[tables[i]], starts[i]);
  for (std::size_t i = 0; i < tables.size(); ++i) reader::choose(all[tables[i]], starts[i]);
  auto in = [&](const reader::TableView& t) {
    return [&file, &t](uint64_t e, unsigned d, uint64_t block, uint32_t i) {
      found.push_back({t.permutation.invert(e), d, t.index == 0 ? file.rank_at(t, block, i) : UINT64_MAX});
    };
  };
  // Two tables at a time: their blocks' decodes overlap (reader::probe_two).
  for (std::size_t i = 0; i < tables.size(); i += 2) {
    const auto& t = all[tables[i]];
    if (i + 1 == tables.size()) {
      reader::probe_from(file, t, starts[i], k, in(t));
    } else {
      const auto& u = all[tables[i + 1]];
      reader::probe_two(file, k, t, starts[i], in(t), u, starts[i + 1], in(u));
    }
  }
  // One candidate per fingerprint (it may be found through several tables), keeping a known rank.
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    return a.fingerprint != b.fingerprint ? a.fingerprint < b.fingerprint : a.rank < b.rank;
  });
  found.erase(
      std::unique(found.begin(), found.end(),
                  [](const Candidate& a, const Candidate& b) { return a.fingerprint == b.fingerprint; }),
      found.end());
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    return a.distance != b.distance ? a.distance < b.distance : a.fingerprint < b.fingerprint;
  });
  // The ranks found outside table 0, looked up together (their misses overlap).
  thread_local std::vector<uint64_t> unranked, ranks;
  unranked.clear();
  for (const auto& c : found)
    if (c.rank == UINT64_MAX) unranked.push_back(c.fingerprint);
  ranks.resize(unranked.size());
  reader::ranks_in_table0(file, unranked, ranks);
  std::size_t next = 0;
  for (auto& c : found) {
    if (c.rank == UINT64_MAX) c.rank = ranks[next++];
    out.push_back(Hit{c.fingerprint, c.distance, file.ids_at_rank(c.rank)});
  }
}
}  // namespace

void Index::query(uint64_t fingerprint, unsigned k, std::vector<Hit>& out) const {
  if (impl_->composite) [[unlikely]]
    return impl_->composite->query(fingerprint, k, out);
  read_checked(*impl_, false, [&] { query_unchecked(impl_->file, fingerprint, k, out); });
}

IdList Index::ids_of(uint64_t fingerprint) const {
  if (impl_->composite) return impl_->composite->ids_of(fingerprint);
  if (impl_->file.header().fingerprint_count == 0) return {};
  return read_checked(*impl_, false, [&] {
    const uint64_t rank = impl_->file.rank_of(fingerprint);
    return rank == UINT64_MAX ? IdList() : impl_->file.ids_at_rank(rank);
  });
}

IndexInfo Index::info() const {
  if (impl_->composite) return impl_->composite->info();
  const reader::IndexFile& file = impl_->file;
  const auto& h = file.header();
  IndexInfo info;
  info.version_major = h.version_major;
  info.version_minor = h.version_minor;
  info.scheme_name = h.scheme_name;
  info.max_distance = h.max_distance;
  info.fingerprint_count = h.fingerprint_count;
  info.id_count = h.id_count;
  info.block_bytes = h.block_bytes;
  info.file_bytes = h.file_bytes;
  info.checksum = h.header_checksum;
  const auto& sections = file.sections();
  for (const auto& t : file.tables()) {
    TableInfo ti;
    ti.source_bit = t.descriptor.source_bit;
    ti.code_length = t.descriptor.code_length;
    ti.prefix_bits = t.prefix_bits();
    ti.block_count = t.block_count();
    ti.directory_bits = t.directory_bits;
    for (unsigned s = 0; s < 3; ++s) ti.bytes += sections[3 * t.index + s].bytes;
    ti.bits_per_entry = h.fingerprint_count
                            ? static_cast<double>(ti.bytes) * 8 / static_cast<double>(h.fingerprint_count)
                            : 0;
    info.tables.push_back(ti);
  }
  info.ids_bytes = sections[sections.size() - 2].bytes + sections.back().bytes;
  info.floor_bits_per_entry = format::floor_bits_per_entry(static_cast<double>(h.fingerprint_count));
  for (const format::TaggedSectionEntry& e : file.tagged_sections())
    info.tagged_sections.push_back({e.tag, format::tag_name(e.tag).value_or(""), e.critical(), e.bytes});
  info.fingerprint_settings = file.fingerprint_settings();
  throw_if_changed(*impl_, true);
  return info;
}

uint64_t Index::checksum() const {
  return impl_->composite ? impl_->composite->checksum() : impl_->file.header().header_checksum;
}

std::optional<FingerprintSettings> Index::fingerprint_settings() const {
  if (impl_->composite) return impl_->composite->fingerprint_settings();
  return impl_->file.fingerprint_settings();  // read at open: no byte of the mapping is touched
}

}  // namespace simdex
