// simdex::SetWriter: add, remove and merge on an index set (spec/SET.md §4, §8).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>

#include "format/checksum.h"
#include "reader/fingerprint_scan.h"
#include "reader/index_impl.h"
#include "set/set_files.h"
#include "set/set_merge.h"
#include "set/set_snapshot.h"
#include "simdex/set.h"
#include "writer/atomic_file.h"
#include "writer/temp_files.h"

namespace simdex {

struct SetWriter::State {
  State(std::string p, SetWriterOptions o)
      : path(set::checked_set_path(std::move(p))),
        options(std::move(o)),
        lock(path, options.wait_for_lock, waiting_for_lock(options)) {}
  // While another writer holds the lock: the caller's progress, stage "lock", which may give up.
  static std::function<void()> waiting_for_lock(const SetWriterOptions& o) {
    if (!o.build.progress) return {};
    return [progress = o.build.progress] { progress("lock", 0, 0); };
  }
  std::string path;
  SetWriterOptions options;
  set::SetLock lock;
  std::optional<format::SetManifest> manifest;  // the published one; none before the first add
  std::vector<uint8_t> manifest_bytes;          // its bytes, to tell whether the path still holds it

  // The generation of the next change; none follows 2^64 - 1 (only a hand-made manifest gets there).
  uint64_t next_generation() const {
    if (!manifest) return 1;
    if (manifest->generation == UINT64_MAX)
      throw Error(errc::usage,
                  "the set '" + path + "' is at generation 2^64 - 1, the last: no change can follow it");
    return manifest->generation + 1;
  }
  const format::SetManifest& current() const {
    if (!manifest)
      throw Error(errc::io, "there is no index set at '" + path + "' (no such file): create it with add",
                  ENOENT);
    return *manifest;
  }

  // Publishes `next` (temp, fsync, rename), then removes the files the old manifest named and the
  // new one does not.
  void publish(format::SetManifest next, SetChange& change) {
    if (next.members.size() > format::kMaxSetEntries || next.tombstones.size() > format::kMaxSetEntries)
      throw Error(errc::usage,
                  "a manifest names at most 65,536 members and 65,536 tombstones (spec/SET.md §2.1)");
    std::vector<uint8_t> bytes = next.encode();
    writer::AtomicFile file(path);
    try {  // before the rename (a full disk fails here): the set is as it was
      file.write(bytes.data(), bytes.size());
      file.sync();
    } catch (const Error& e) {
      throw Error(e.code(),
                  e.detail() + ": the manifest '" + path +
                      "' was not replaced, the set is unchanged (the files written for this change are "
                      "removed)");
    }
    require_unchanged_manifest();
    std::set<std::string> named;
    for (const auto* list : {&next.members, &next.tombstones})
      for (const auto& e : *list) named.insert(e.name);
    std::vector<std::string> dropped;  // the entries the new manifest no longer names
    if (manifest)
      for (const auto* list : {&manifest->members, &manifest->tombstones})
        for (const auto& e : *list)
          if (!named.count(e.name)) dropped.push_back(e.name);
    // From the rename on, this change's files are the set's and the dropped entries are not: a
    // signal at any moment removes the files that the manifest it leaves behind does not name.
    std::deque<writer::UnpublishedFile> unneeded;
    file.publish([&] {
      for (writer::UnpublishedFile& f : unnamed) f.release();
      for (const std::string& name : dropped)
        if (std::string p = set::removable_entry_path(path, name); !p.empty())
          unneeded.emplace_back(std::move(p));
    });
    unnamed.clear();
    change.bytes_written += bytes.size();
    for (const std::string& name : dropped)
      if (set::remove_entry_file(path, name)) change.removed.push_back(name);  // readers keep their mapping
    for (writer::UnpublishedFile& f : unneeded) f.release();  // removed above, or not the set's to remove
    change.generation = next.generation;
    change.members = next.members.size();
    manifest = std::move(next);
    manifest_bytes = std::move(bytes);
  }

  // The manifest at the path is still the one this writer read (§8: a writer never publishes a
  // manifest made from a stale one). Under the lock nothing changes it, unless something ignores
  // the lock: a writer of another tool, or a copy put in place by hand.
  void require_unchanged_manifest() const {
    struct stat st {};
    const bool present = ::lstat(path.c_str(), &st) == 0;
    // A byte more than the manifest is read: a longer file differs, and costs no more.
    if (present == manifest.has_value() &&
        (!present || set::read_whole_file(path, manifest_bytes.size() + 1) == manifest_bytes))
      return;
    throw Error(errc::io,
                "the manifest '" + path +
                    "' changed while this writer held the set's lock (written by something that does "
                    "not take SET.lock?): nothing was published; run the command again");
  }

  // Files a writer that died before publishing (or before removing them) left: the names writers
  // give (SET_NAME-G.sdx, .sdt) that the manifest does not name, of generations a writer of this
  // set can have written (up to the next one: a writer that died wrote that). Never a file that is
  // not a regular one, nor one that begins with the set magic (the manifest of a set whose name has
  // that form). Under the lock, so no writer is at work; a reader of an older manifest that misses
  // one reads the manifest again (set_snapshot.cpp).
  void remove_orphans() {
    std::set<std::string> named;
    for (const auto* list : {&manifest->members, &manifest->tombstones})
      for (const auto& e : *list) named.insert(e.name);
    const std::string set_name = std::filesystem::path(path).filename().string();
    std::error_code ec;
    for (const auto& f : std::filesystem::directory_iterator(set::set_directory(path), ec)) {
      const std::string name = f.path().filename().string();
      const std::optional<format::EntryFileName> entry = format::parse_entry_file_name(name);
      if (!entry || entry->set_name != set_name || named.count(name) ||
          entry->generation - 1 > manifest->generation)  // generation 0, or past the next one
        continue;
      if (f.is_regular_file(ec) && !f.is_symlink(ec) && !set::starts_with_set_magic(f.path().string()))
        ::unlink(f.path().c_str());
    }
    // And the temporary files of such names that no live writer holds (".SET_NAME-G.sdx.tmp-…", and
    // "..SET_NAME-G.sdx.pending-PID.tmp-…", the temporary file of an entry's pending name).
    writer::remove_unlocked(set::set_directory(path), "." + set_name + "-");
    writer::remove_unlocked(set::set_directory(path), ".." + set_name + "-");
  }

  // Writes `builder` as the member named for `generation`; checks it suits the set.
  format::SetEntry write_member(IndexBuilder& builder, uint64_t generation, SetChange& change) {
    const std::string name = set::member_name(path, generation);
    write_entry(name, [&](const std::string& pending) { builder.write(pending); });
    return published_member(name, generation, change);
  }

  // The files of this change that no published manifest names yet: removed by a signal (a member of
  // 100 GB is not left for the next writer to find) or an error, kept from the manifest's rename on.
  std::deque<writer::UnpublishedFile> unnamed;

  // At the start of each change: the files of one that failed before its manifest go (a retry takes
  // the same generation, whose names they hold).
  State& begin_change() {
    unnamed.clear();
    return *this;
  }

  // The entry `name` written by write(pending) under its pending name, then given its name.
  void write_entry(const std::string& name, const std::function<void(const std::string&)>& write) {
    const std::string pending = set::pending_entry_path(path, name);
    unnamed.emplace_back(pending);  // a name of this process's (its id): no other file has it
    write(pending);
    // Named and registered in one step that a cleanup signal does not split (a SIGTERM between the
    // two left a merged member behind); this writer's once named (else the link would have failed).
    writer::without_cleanup_signals([&] {
      set::name_entry_file(path, pending, name);
      unnamed.emplace_back(set::entry_path(path, name));
    });
    writer::fsync_directory(set::set_directory(path));
  }

  // The entry of the member just written as `name`; checks it suits the set.
  format::SetEntry published_member(const std::string& name, uint64_t generation, SetChange& change) {
    const std::string file = set::entry_path(path, name);
    auto impl = reader::open_file(file, OpenOptions{.detect_changes = false});
    const auto& h = impl->file.header();
    if (manifest && (h.max_distance != manifest->max_distance || h.block_bytes != manifest->block_bytes)) {
      ::unlink(file.c_str());
      throw Error(errc::usage, "the set '" + path + "' has k = " + std::to_string(manifest->max_distance) +
                                   " and block size " + std::to_string(manifest->block_bytes) +
                                   "; the pairs were built with k = " + std::to_string(h.max_distance) +
                                   " and block size " + std::to_string(h.block_bytes));
    }
    change.written.push_back(name);
    change.bytes_written += h.file_bytes;
    return {generation, h.file_bytes, h.header_checksum, h.fingerprint_count, h.id_count, name};
  }

  // Merges the members at `chosen` (indices into the manifest) into one, every removal applied.
  void merge_members(const std::vector<std::size_t>& chosen, SetChange& change) {
    const uint64_t generation = next_generation();
    const format::SetManifest& m = current();
    OpenOptions open_options;
    open_options.detect_changes = false;
    open_options.set_members = chosen;
    const auto snapshot = set::SetSnapshot::open(path, open_options, nullptr);
    if (snapshot->manifest().generation != m.generation)
      throw Error(errc::io, "the manifest of '" + path + "' changed under the set's lock");
    BuildOptions build = options.build;
    build.k = m.max_distance;
    build.block_bytes = m.block_bytes;
    build.scheme.reset();
    if (build.temp_dir.empty()) build.temp_dir = set::set_directory(path);
    format::SetManifest next = m;
    next.generation = generation;
    next.members.clear();
    for (std::size_t i = 0; i < m.members.size(); ++i)
      if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) next.members.push_back(m.members[i]);
    const std::string name = set::member_name(path, generation);
    const SetChange before = change;  // a merge that fails tells of nothing it wrote
    try {
      set::MergeSummary merged;
      write_entry(name,
                  [&](const std::string& pending) { merged = set::write_merged(*snapshot, pending, build); });
      change.merged_entries += merged.entries_read;
      next.members.push_back(published_member(name, generation, change));
      drop_unneeded_tombstones(next);
      publish(std::move(next), change);
    } catch (...) {
      change = before;
      throw;
    }
  }

  // A tombstone applies only to members older than it (§4): once none is, it can go.
  static void drop_unneeded_tombstones(format::SetManifest& m) {
    const uint64_t oldest = m.members.front().generation;
    std::erase_if(m.tombstones, [&](const format::SetEntry& t) { return t.generation <= oldest; });
  }

  // Every member into one: every tombstone applied, and then dropped.
  void merge_all(SetChange& change) {
    std::vector<std::size_t> all(current().members.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    merge_members(all, change);
  }

  // Size-tiered: members in tiers of sizes within tier_ratio; a tier with tier_ratio members is
  // merged (the lowest such tier first), again until no tier is full.
  void merge_tiers(SetChange& change) {
    const uint64_t r = std::max(2u, options.tier_ratio);
    for (;;) {
      const auto& members = current().members;
      auto tier = [&](uint64_t size) {
        unsigned t = 0;
        for (; size >= r; size /= r) ++t;
        return t;
      };
      std::vector<std::vector<std::size_t>> tiers(65);
      for (std::size_t i = 0; i < members.size(); ++i) tiers[tier(members[i].id_count)].push_back(i);
      const auto full =
          std::find_if(tiers.begin(), tiers.end(), [&](const auto& t) { return t.size() >= r; });
      if (full == tiers.end()) return;
      merge_members(*full, change);
    }
  }
};

SetWriter::SetWriter(std::string manifest_path, SetWriterOptions options)
    : state_(std::make_unique<State>(std::move(manifest_path), std::move(options))) {
  struct stat st {};
  if (::stat(state_->path.c_str(), &st) != 0) return;  // created by the first add
  try {
    if (S_ISREG(st.st_mode) && !set::starts_with_set_magic(state_->path))  // not read whole: may be large
      throw Error(errc::usage, "'" + state_->path + "' exists and is not an index set manifest");
    std::vector<uint8_t> bytes = set::read_manifest(state_->path);
    state_->manifest = set::decode_manifest(state_->path, bytes);
    state_->manifest_bytes = std::move(bytes);
  } catch (...) {
    state_->lock.remove_if_created();  // no PATH.lock beside a file that is no set
    throw;
  }
  // A writer changes a whole set: one that readers refuse (a member missing, swapped or rewritten, a
  // header at odds with the set's k) would get a new generation that nobody can read either. The
  // checks of a reader's open (spec/SET.md §5): a header and a tombstone read per file.
  set::check_entries(state_->path, *state_->manifest);
  state_->remove_orphans();
}

SetWriter::~SetWriter() {
  if (state_ && !state_->manifest) state_->lock.remove_if_created();  // no set was made
}

bool SetWriter::exists() const { return state_->manifest.has_value(); }
uint64_t SetWriter::generation() const { return state_->manifest ? state_->manifest->generation : 0; }
unsigned SetWriter::max_distance() const { return state_->current().max_distance; }
uint32_t SetWriter::block_bytes() const { return state_->current().block_bytes; }

namespace {
// What a change that writes nothing returns: the set's generation and members as they are.
SetChange unchanged(const format::SetManifest& m) {
  SetChange change;
  change.generation = m.generation;
  change.members = m.members.size();
  return change;
}
}  // namespace

SetChange SetWriter::add(IndexBuilder& builder) {
  State& s = state_->begin_change();
  SetChange change;
  // Checked before the builder's pairs are used up: after this error it can go to another set.
  const BuildOptions& o = builder.options();
  const unsigned k = o.scheme ? o.scheme->max_distance : o.k;  // the k its file will have
  if (s.manifest && (k != s.manifest->max_distance || o.block_bytes != s.manifest->block_bytes))
    throw Error(errc::usage, "the set '" + s.path + "' has k = " + std::to_string(s.manifest->max_distance) +
                                 " and block size " + std::to_string(s.manifest->block_bytes) +
                                 "; the pairs are for k = " + std::to_string(k) + " and block size " +
                                 std::to_string(o.block_bytes));
  // A day without documents: an empty member would cost every reader a file to open, for nothing.
  if (s.manifest && builder.pairs_added() == 0) return unchanged(*s.manifest);
  // A manifest names at most 65,536 members (§2.1): a set that has them all (added without merging)
  // is merged first, unless merging is off.
  if (s.manifest && s.manifest->members.size() >= format::kMaxSetEntries) {
    if (!s.options.merge_after_add)
      throw Error(errc::usage,
                  "the set '" + s.path +
                      "' has 65,536 members, the most a manifest names (spec/SET.md §2.1): merge it "
                      "first, or add with merging on");
    s.merge_all(change);
  }
  const uint64_t generation = s.next_generation();
  const format::SetEntry entry = s.write_member(builder, generation, change);
  format::SetManifest next = s.manifest ? *s.manifest : format::SetManifest{};
  if (!s.manifest) {
    auto impl = reader::open_file(set::entry_path(s.path, entry.name), OpenOptions{.detect_changes = false});
    next.max_distance = impl->file.header().max_distance;
    next.block_bytes = impl->file.header().block_bytes;
  }
  next.generation = generation;
  next.members.push_back(entry);
  s.publish(std::move(next), change);
  if (!s.options.merge_after_add) return change;
  try {
    s.merge_tiers(change);
  } catch (const Error& e) {
    // The add is done: an error would have the caller add the pairs again, and a merge left undone
    // costs only answer time (the next add or merge does it). Its files go now.
    s.unnamed.clear();
    change.merge_failure = "the pairs were added (generation " + std::to_string(generation) +
                           "), but the merge of members after it failed: " + e.detail();
  }
  return change;
}

SetChange SetWriter::remove(std::span<const uint64_t> ids) {
  State& s = state_->begin_change();
  // A day without removals: a tombstone of nothing would cost every reader a file.
  if (ids.empty()) return unchanged(s.current());
  SetChange change;
  // A manifest names at most 65,536 tombstones (§2.1), and a tier merge keeps those newer than the
  // members it leaves: a set that has them all is merged into one member first, which applies
  // every tombstone and drops them all.
  if (s.current().tombstones.size() >= format::kMaxSetEntries) s.merge_all(change);
  const format::SetManifest& m = s.current();
  format::Tombstone t;
  t.generation = s.next_generation();
  t.ids.assign(ids.begin(), ids.end());
  std::sort(t.ids.begin(), t.ids.end());
  t.ids.erase(std::unique(t.ids.begin(), t.ids.end()), t.ids.end());
  const std::vector<uint8_t> bytes = t.encode();
  const std::string name = set::tombstone_name(s.path, t.generation);
  s.write_entry(name, [&](const std::string& pending) {
    writer::AtomicFile file(pending);
    file.write(bytes.data(), bytes.size());
    file.publish();
  });
  change.written.push_back(name);
  change.bytes_written += bytes.size();
  format::SetManifest next = m;
  next.generation = t.generation;
  next.tombstones.push_back(
      {t.generation, bytes.size(), format::checksum64(bytes.data(), bytes.size()), t.ids.size(), 0, name});
  s.publish(std::move(next), change);
  return change;
}

SetChange SetWriter::merge() {
  State& s = state_->begin_change();
  const format::SetManifest& m = s.current();
  SetChange change = unchanged(m);
  // Nothing to compact, unless the one member has an older format than the writer's (merging is
  // how a set's members are upgraded: `simdex upgrade` refuses a set).
  if (m.members.size() == 1 && m.tombstones.empty()) {
    const auto member =
        reader::open_file(set::entry_path(s.path, m.members[0].name), OpenOptions{.detect_changes = false});
    const auto& h = member->file.header();
    if (h.version_major == format::kVersionMajor && h.version_minor == format::kVersionMinor) return change;
  }
  s.merge_all(change);
  return change;
}

}  // namespace simdex
