#include "set/set_merge.h"

#include <algorithm>
#include <queue>

#include "reader/fingerprint_scan.h"
#include "reader/index_impl.h"
#include "writer/collect_pairs.h"
#include "writer/index_writer.h"

namespace simdex::set {

namespace {

// A rule of spec/FORMAT.md that a member's bytes break (not an error of the merge's own files).
bool broken_file_rule(errc c) {
  return (c >= errc::file_too_small && c <= errc::coverage) || c == errc::file_changed ||
         (c >= errc::tag_order && c <= errc::bad_tagged_section);
}

// An error reading member m, named after the member and its set: nothing is published.
[[noreturn]] void throw_for_member(const SetSnapshot& s, const OpenMember& m, const Error& e) {
  if (!broken_file_rule(e.code())) throw e;
  throw Error(e.code(), "member '" + m.entry.name + "' of set '" + s.path() + "': " + e.detail() +
                            "; nothing was written (`simdex verify` of the set tells more)");
}

// What a merge carries into its file, each member's table 0 and ids, checked against their
// checksums first: a damaged member is refused, where the merge gave its bytes fresh checksums
// (verify then passed) and removed it.
void check_members(const SetSnapshot& s) {
  for (const auto& m : s.members()) try {
      reader::require_section_checksums(index_impl(*m.index).file, [](const format::SectionEntry& e) {
        return e.table == 0 || e.table == format::kNoTable;
      });
    } catch (const Error& e) {
      throw_for_member(s, m, e);
    }
}

MergeSummary write_by_builder(const SetSnapshot& s, const std::string& path, const BuildOptions& options) {
  MergeSummary out;
  IndexBuilder builder(options);
  for (const auto& member : s.members()) try {
      reader::for_each_fingerprint(*member.index, [&](uint64_t f, const IdList& ids) {
        out.entries_read += ids.size();
        for (uint64_t id : ids)
          if (s.live(id, member)) builder.add(f, id);
      });
    } catch (const Error& e) {
      throw_for_member(s, member, e);
    }
  out.build = builder.write(path);
  return out;
}

}  // namespace

MergeSummary write_merged(const SetSnapshot& s, const std::string& path, const BuildOptions& given,
                          writer::Durability durability) {
  // The merged member records the fingerprint settings its members record (they agree, or this
  // throws settings_mismatch: it would record one for fingerprints made two ways); members built
  // from fingerprints record none and add none. A scratch file, for pairs and clusters, records
  // none: they read no settings, and a set whose members differ is good (spec/SET.md).
  BuildOptions options = given;
  options.fingerprint_settings.reset();
  if (durability != writer::Durability::scratch) try {
      options.fingerprint_settings = s.fingerprint_settings();
    } catch (const Error& e) {
      if (e.code() != errc::settings_mismatch) throw;
      throw Error(e.code(), e.detail() +
                                "; they cannot be merged into one member, which would record one of them for "
                                "the fingerprints of both");
    }
  check_members(s);
  for (const auto& m : s.members())
    if (!reader::table0_ascending(*m.index)) return write_by_builder(s, path, options);
  MergeSummary out;
  out.streamed = true;
  // The stores of the writer: in memory when the members' pairs fit the bound (24 bytes a pair at
  // most: fingerprint, offset, id), else in temporary files.
  uint64_t pairs = 0;
  for (const auto& m : s.members()) pairs += m.entry.id_count;
  const uint64_t memory = options.memory_bytes ? options.memory_bytes : default_memory_bytes();
  writer::ScratchSpace scratch(options.temp_dir);
  const bool in_memory = 24 * pairs <= memory / 2;
  auto make_store = [&] { return in_memory ? writer::U64Store() : writer::U64Store(scratch); };
  writer::U64Store fingerprints = make_store(), id_offsets = make_store(), ids = make_store();

  std::size_t reading = 0;  // the member being read, for an error's message
  std::vector<reader::FingerprintCursor> cursors;
  using Head = std::pair<uint64_t, std::size_t>;  // (fingerprint, member)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::vector<uint64_t> live;
  try {
    for (const auto& m : s.members()) {
      reading = cursors.size();
      cursors.emplace_back(*m.index);
    }
    for (std::size_t i = 0; i < cursors.size(); ++i)
      if (!cursors[i].done()) heads.push({cursors[i].fingerprint(), i});
    writer::collect(
        [&](auto&& emit) {
          while (!heads.empty()) {
            const uint64_t f = heads.top().first;
            live.clear();
            while (!heads.empty() && heads.top().first == f) {
              const std::size_t i = reading = heads.top().second;
              heads.pop();
              const IdList list = cursors[i].ids();
              // a report every 2^16 pairs read (the progress of a large merge before its tables)
              if (options.progress && (out.entries_read >> 16) != ((out.entries_read + list.size()) >> 16))
                options.progress("read", out.entries_read + list.size(), pairs);
              out.entries_read += list.size();
              for (uint64_t id : list)
                if (s.live(id, s.members()[i])) live.push_back(id);
              cursors[i].next();
              if (!cursors[i].done()) heads.push({cursors[i].fingerprint(), i});
            }
            std::sort(live.begin(), live.end());
            for (uint64_t id : live) emit(writer::Pair{f, id});  // collect drops repeats
          }
        },
        &fingerprints, id_offsets, ids);
    if (options.progress) options.progress("read", out.entries_read, pairs);
  } catch (const Error& e) {
    throw_for_member(s, s.members()[reading], e);
  }
  for (const auto& m : s.members()) m.index->check_unchanged();
  const Scheme scheme = Scheme::automatic(fingerprints.size(), options.k);
  const uint64_t held = fingerprints.memory_bytes() + id_offsets.memory_bytes() + ids.memory_bytes();
  out.build = writer::write_index(path, writer::IndexContents{fingerprints, id_offsets, ids}, scheme, options,
                                  scratch, std::max<uint64_t>(memory > held ? memory - held : 0, memory / 4),
                                  durability);
  return out;
}

}  // namespace simdex::set
