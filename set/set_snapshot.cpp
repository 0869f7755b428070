#include "set/set_snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <queue>

#include "format/endian.h"
#include "format/system_error.h"
#include "reader/fingerprint_scan.h"
#include "reader/index_impl.h"
#include "reader/mapped_file.h"
#include "set/set_files.h"

namespace simdex::set {

std::shared_ptr<const Index> open_member(const std::string& manifest_path, const format::SetManifest& m,
                                         const format::SetEntry& e, const OpenOptions& options) {
  const std::string path = entry_path(manifest_path, e.name);
  OpenOptions member_options = options;
  member_options.set_members.clear();
  std::unique_ptr<Index::Impl> impl;
  try {
    impl = reader::open_file(path, member_options);
  } catch (...) {
    // Absent, a directory, ...: rule 12. (Any error on an existing file stays as it is.) No call on
    // the exception here: with every descriptor taken (EMFILE), UBSan's check of such a call has
    // none to test the object's memory with, and reports a false error.
    require_regular_file(path);
    throw;
  }
  const auto& h = impl->file.header();
  auto mismatch = [&](const std::string& what) {
    throw Error(errc::member_mismatch, "member '" + e.name + "' of set '" + manifest_path + "': " + what +
                                           " (a member swapped, truncated, rewritten or from another set)");
  };
  if (h.file_bytes != e.file_bytes)
    mismatch("size " + std::to_string(h.file_bytes) + ", the manifest says " + std::to_string(e.file_bytes));
  if (h.header_checksum != e.checksum) mismatch("header checksum differs from the manifest's");
  if (h.fingerprint_count != e.count || h.id_count != e.id_count)
    mismatch("fingerprint or id count differs from the manifest's");
  if (h.block_bytes != m.block_bytes || h.max_distance != m.max_distance)
    mismatch("block size or max_distance differs from the set's");
  return std::make_shared<const Index>(index_from_impl(std::move(impl)));
}

format::Tombstone read_tombstone(const std::string& manifest_path, const format::SetEntry& e) {
  uint64_t size = 0;
  const auto bytes = read_whole_file(entry_path(manifest_path, e.name), e.file_bytes, &size);
  format::Tombstone::check_size(size, e);  // a larger file: only its header was read
  return format::Tombstone::decode(bytes.data(), bytes.size(), e);
}

void check_entries(const std::string& manifest_path, const format::SetManifest& m) {
  const std::string file = manifest_file(manifest_path);
  for (const auto& e : m.members) open_member(file, m, e, OpenOptions{.detect_changes = false});
  for (const auto& e : m.tombstones) read_tombstone(file, e);
}

namespace {

bool is_set_rule(errc c) {
  return c == errc::member_missing || c == errc::member_mismatch || c == errc::bad_tombstone || c == errc::io;
}

}  // namespace

std::shared_ptr<const SetSnapshot> SetSnapshot::open(const std::string& path, const OpenOptions& options,
                                                     const SetSnapshot* previous) {
  // A writer may publish a new manifest and remove the files of the old one while we open them:
  // when a member is missing or differs, the manifest is read again, and a changed one is retried.
  std::vector<uint8_t> bytes = read_manifest(path);
  for (int attempt = 0;; ++attempt) {
    auto s = std::make_shared<SetSnapshot>();
    s->path_ = reopen_path(path);  // a link stays a link: reopen() follows it again
    const std::string file = manifest_file(path);
    s->file_ = reopen_path(file);
    // A link moved to another set's manifest (a "current" link) opens that set afresh: neither its
    // generation nor its members are comparable with the one open before.
    if (previous && previous->file_ != s->file_) previous = nullptr;
    s->options_ = options;
    try {
      s->manifest_ = decode_manifest(path, bytes);
      const auto& m = s->manifest_;
      if (previous && m.generation < previous->manifest_.generation)
        throw Error(errc::stale_manifest, "'" + path + "' holds generation " + std::to_string(m.generation) +
                                              ", older than the " +
                                              std::to_string(previous->manifest_.generation) +
                                              " already open (an old manifest copied over a newer one)");
      std::vector<std::size_t> chosen = options.set_members;
      if (chosen.empty())
        for (std::size_t i = 0; i < m.members.size(); ++i) chosen.push_back(i);
      reader::allow_more_open_files(chosen.size(),
                                    "the index set '" + path + "'");  // a descriptor per member
      for (std::size_t i : chosen) {
        if (i >= m.members.size())
          throw Error(errc::usage, "set '" + path + "' has " + std::to_string(m.members.size()) +
                                       " members; there is no member " + std::to_string(i));
        const format::SetEntry& e = m.members[i];
        std::shared_ptr<const Index> index;
        if (previous)
          for (const auto& old : previous->members_)
            if (old.entry == e) index = old.index;
        s->members_.push_back({e, index ? index : open_member(file, m, e, options), true});
      }
      std::map<uint64_t, uint64_t> removed;
      for (const auto& e : m.tombstones) {
        const auto t = read_tombstone(file, e);
        for (uint64_t id : t.ids) removed[id] = e.generation;  // ascending generations: the newest stays
      }
      s->removed_.assign(removed.begin(), removed.end());
      const uint64_t newest_removal = m.tombstones.empty() ? 0 : m.tombstones.back().generation;
      for (auto& member : s->members_) member.all_live = member.entry.generation >= newest_removal;
      return s;
    } catch (const Error& e) {
      if (!is_set_rule(e.code()) || attempt >= 50) throw;
      std::vector<uint8_t> again;
      try {
        again = read_manifest(path);
      } catch (const Error&) {  // the manifest unreadable now: the first error says why
        throw e;
      }
      if (again == bytes) throw;
      bytes = std::move(again);
    }
  }
}

std::unique_ptr<Index::Impl> open_set(const std::string& path, const OpenOptions& options) {
  auto impl = std::make_unique<Index::Impl>();
  impl->options = options;
  impl->composite = SetSnapshot::open(path, options, nullptr);
  return impl;
}

Index SetSnapshot::reopen() const {
  // A manifest gone is the error open() gives a missing file (io), not a member's (member_missing).
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) throw system_error("cannot open index set", path_);
  auto impl = std::make_unique<Index::Impl>();
  impl->options = options_;
  impl->composite = open(path_, options_, this);
  return index_from_impl(std::move(impl));
}

bool SetSnapshot::live(uint64_t id, const OpenMember& member) const {
  if (member.all_live) return true;
  const auto it = std::lower_bound(removed_.begin(), removed_.end(), std::pair<uint64_t, uint64_t>{id, 0});
  return it == removed_.end() || it->first != id || it->second < member.entry.generation;
}

namespace {
// `ids` (a vector, or an IdList viewing another mapping) in memory the returned list owns.
template <class Ids>
IdList owned_ids(const Ids& ids) {
  if (ids.empty()) return {};
  auto buffer = std::make_shared<std::vector<uint8_t>>(8 * ids.size());
  uint8_t* at = buffer->data();
  for (uint64_t id : ids) {
    format::store_le64(at, id);
    at += 8;
  }
  const uint8_t* data = buffer->data();
  return IdList(data, ids.size(), std::move(buffer));
}
}  // namespace

IdList owned_copy(const IdList& ids) { return owned_ids(ids); }

IdList SetSnapshot::merge_live(const std::vector<std::pair<std::size_t, IdList>>& holders) const {
  if (holders.size() == 1 && members_[holders[0].first].all_live) return holders[0].second;
  std::vector<uint64_t> ids;
  for (const auto& [m, list] : holders)
    for (uint64_t id : list)
      if (live(id, members_[m])) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (holders.size() == 1 && ids.size() == holders[0].second.size()) return holders[0].second;
  return owned_ids(ids);
}

Resolved SetSnapshot::resolve(uint64_t fingerprint, std::size_t known, const IdList& known_ids) const {
  std::vector<std::pair<std::size_t, IdList>> holders;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    IdList ids = i == known ? known_ids : members_[i].index->ids_of(fingerprint);
    if (!ids.empty()) holders.emplace_back(i, std::move(ids));
  }
  return resolve_holders(holders);
}

Resolved SetSnapshot::resolve_holders(const std::vector<std::pair<std::size_t, IdList>>& holders) const {
  Resolved r;
  for (const auto& holder : holders) {
    const OpenMember& m = members_[holder.first];
    if (std::any_of(holder.second.begin(), holder.second.end(), [&](uint64_t id) { return live(id, m); })) {
      r.home = holder.first;
      r.ids = merge_live(holders);
      break;
    }
  }
  return r;
}

void SetSnapshot::query(uint64_t fingerprint, unsigned k, std::vector<Hit>& out) const {
  if (single()) return members_[0].index->query(fingerprint, k, out);
  search_distance(static_cast<int>(k));
  struct Found {
    Hit hit;
    std::size_t member;
  };
  // Per-thread scratch, as a file's query keeps it (member hits are views: nothing is kept alive).
  thread_local std::vector<Found> found;
  thread_local std::vector<Hit> hits;
  thread_local std::vector<std::pair<std::size_t, IdList>> holders;
  found.clear();
  for (std::size_t i = 0; i < members_.size(); ++i) {
    members_[i].index->query(fingerprint, k, hits);
    for (auto& h : hits) found.push_back({std::move(h), i});
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.hit.distance != b.hit.distance         ? a.hit.distance < b.hit.distance
           : a.hit.fingerprint != b.hit.fingerprint ? a.hit.fingerprint < b.hit.fingerprint
                                                    : a.member < b.member;
  });
  out.clear();
  for (std::size_t g = 0; g < found.size();) {
    holders.clear();
    std::size_t e = g;
    for (; e < found.size() && found[e].hit.fingerprint == found[g].hit.fingerprint; ++e)
      holders.emplace_back(found[e].member, found[e].hit.ids);
    IdList ids = merge_live(holders);
    if (!ids.empty()) out.push_back(Hit{found[g].hit.fingerprint, found[g].hit.distance, std::move(ids)});
    g = e;
  }
}

void SetSnapshot::for_each_live(
    const std::function<void(uint64_t, std::size_t, const IdList&)>& visit) const {
  bool ascending = true;
  for (const auto& m : members_) ascending = ascending && reader::table0_ascending(*m.index);
  if (!ascending) {  // members in another order: each fingerprint looked up in every member
    for (std::size_t i = 0; i < members_.size(); ++i)
      reader::for_each_fingerprint(*members_[i].index, [&](uint64_t f, const IdList& ids) {
        const Resolved r = resolve(f, i, ids);
        if (r.home == i) visit(f, i, r.ids);
      });
    return;
  }
  // A k-way merge of the members' tables 0: every fingerprint once, ascending, from its holders.
  std::vector<reader::FingerprintCursor> cursors;
  for (const auto& m : members_) cursors.emplace_back(*m.index);
  using Head = std::pair<uint64_t, std::size_t>;  // (fingerprint, member)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (std::size_t i = 0; i < cursors.size(); ++i)
    if (!cursors[i].done()) heads.push({cursors[i].fingerprint(), i});
  std::vector<std::pair<std::size_t, IdList>> holders;
  while (!heads.empty()) {
    const uint64_t f = heads.top().first;
    holders.clear();
    while (!heads.empty() && heads.top().first == f) {
      const std::size_t i = heads.top().second;
      heads.pop();
      holders.emplace_back(i, cursors[i].ids());
      cursors[i].next();
      if (!cursors[i].done()) heads.push({cursors[i].fingerprint(), i});
    }
    std::sort(holders.begin(), holders.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const IdList ids = merge_live(holders);
    if (ids.empty()) continue;
    std::size_t home = holders[0].first;  // the first member holding a live id of f
    for (const auto& holder : holders) {  // no structured binding: clang 14 cannot capture one
      const OpenMember& member = members_[holder.first];
      if (std::any_of(holder.second.begin(), holder.second.end(),
                      [&](uint64_t id) { return live(id, member); })) {
        home = holder.first;
        break;
      }
    }
    visit(f, home, ids);
  }
  for (const auto& m : members_) m.index->check_unchanged();
}

uint64_t SetSnapshot::fingerprint_count() const {
  if (single()) return members_[0].index->fingerprint_count();
  std::call_once(counted_, [&] {
    for_each_live([&](uint64_t, std::size_t, const IdList& ids) {
      ++live_fingerprints_;
      live_ids_ += ids.size();
    });
  });
  return live_fingerprints_;
}

IndexInfo SetSnapshot::info() const {
  IndexInfo info;
  info.is_set = true;
  info.version_major = manifest_.version_major;
  info.version_minor = manifest_.version_minor;
  info.generation = manifest_.generation;
  info.checksum = checksum();
  info.max_distance = manifest_.max_distance;
  info.block_bytes = manifest_.block_bytes;
  info.scheme_name =
      "set of " + std::to_string(members_.size()) + " member" + (members_.size() == 1 ? "" : "s");
  info.file_bytes = manifest_.encode().size();
  for (const auto& t : manifest_.tombstones) {
    info.file_bytes += t.file_bytes;
    info.removed_ids += t.count;
  }
  info.tombstone_count = manifest_.tombstones.size();
  for (const auto& m : members_) {
    const IndexInfo mi = m.index->info();
    info.members.push_back({m.entry.name, m.entry.generation, mi.fingerprint_count, mi.id_count,
                            mi.file_bytes, mi.scheme_name, mi.tables.size()});
    info.file_bytes += mi.file_bytes;
    info.ids_bytes += mi.ids_bytes;
  }
  try {
    info.fingerprint_settings = fingerprint_settings();
  } catch (const Error& e) {  // info describes the set all the same: the settings are what differs
    if (e.code() != errc::settings_mismatch) throw;
    info.fingerprint_settings_differ = true;
  }
  if (single()) {
    info.fingerprint_count = info.members[0].fingerprint_count;
    info.id_count = info.members[0].id_count;
  } else {
    info.fingerprint_count = fingerprint_count();
    info.id_count = live_ids_;
  }
  return info;
}

std::optional<FingerprintSettings> SetSnapshot::fingerprint_settings() const {
  std::optional<FingerprintSettings> settings;
  const std::string* recorded_by = nullptr;
  for (const auto& m : members_) {
    std::optional<FingerprintSettings> s = m.index->fingerprint_settings();
    if (!s) continue;  // built from fingerprints: nothing to agree with
    if (settings && *s != *settings)
      throw Error(errc::settings_mismatch, "the set's members '" + *recorded_by + "' and '" + m.entry.name +
                                               "' were built from texts fingerprinted with " +
                                               describe(*settings) + " and with " + describe(*s));
    settings = std::move(s);
    recorded_by = &m.entry.name;
  }
  return settings;
}

VerifyReport SetSnapshot::verify() const {
  VerifyReport report;
  for (const auto& m : members_) {
    VerifyReport r = m.index->verify();
    for (auto& p : r.problems) {
      if (report.problems.size() >= 100) break;
      p.where = "member '" + m.entry.name + "' " + p.where;
      report.problems.push_back(std::move(p));
    }
    for (auto& u : r.unchecked) {
      u.where = "member '" + m.entry.name + "' " + u.where;
      report.unchecked.push_back(std::move(u));
    }
    report.blocks_checked += r.blocks_checked;
    report.bytes_checked += r.bytes_checked;
  }
  return report;
}

void SetSnapshot::check_unchanged() const {
  for (const auto& m : members_) m.index->check_unchanged();
}

}  // namespace simdex::set
