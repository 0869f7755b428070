// Index sets (spec/SET.md) against one index of the live pairs: random sequences of add, remove and
// merge over random and clustered data, then query, ids_of, join, pairs and clusters compared; and
// the held-out failures: corrupt, missing, swapped or truncated members, names outside the set's
// directory, stale manifests.
#include "simdex/set.h"

#include <doctest/doctest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <tuple>

#include "format/checksum.h"
#include "format/endian.h"
#include "format/set_manifest.h"
#include "reader/index_impl.h"
#include "set/set_files.h"
#include "set/set_snapshot.h"
#include "simdex/batch.h"
#include "test_util.h"

using namespace simdex;
using namespace simdex::test;

namespace {

// The live pairs as the spec defines them: add puts pairs in, remove takes every pair of an id out.
struct Model {
  std::set<std::pair<uint64_t, uint64_t>> live;
  void add(const Pairs& p) { live.insert(p.begin(), p.end()); }
  void remove(const std::vector<uint64_t>& ids) {
    const std::set<uint64_t> gone(ids.begin(), ids.end());
    std::erase_if(live, [&](const auto& p) { return gone.count(p.second) > 0; });
  }
  Pairs pairs() const { return {live.begin(), live.end()}; }
};

using PairRow = std::tuple<uint64_t, uint64_t, unsigned, std::vector<uint64_t>, std::vector<uint64_t>>;
std::vector<PairRow> all_pairs(const Index& index, unsigned k, bool duplicates) {
  std::vector<PairRow> rows;
  BatchOptions o;
  o.k = static_cast<int>(k);
  o.threads = 2;
  o.with_ids = true;
  o.duplicates = duplicates;
  find_pairs(index, o, [&](std::span<const NearPair> batch) {
    for (const auto& p : batch)
      rows.emplace_back(p.a, p.b, p.distance, p.ids_a.to_vector(), p.ids_b.to_vector());
  });
  std::sort(rows.begin(), rows.end());
  return rows;
}

using JoinRow = std::tuple<std::size_t, uint64_t, unsigned, std::vector<uint64_t>>;
// held_hits: a set's join resolves its hits against the other members whenever it holds that many
// (0: the library's default).
std::vector<JoinRow> all_join(const Index& index, const std::vector<Query>& qs, unsigned k,
                              std::size_t held_hits = 0) {
  std::vector<JoinRow> rows;
  BatchOptions o;
  o.k = static_cast<int>(k);
  o.threads = 2;
  o.with_ids = true;
  const auto take = [&](std::span<const JoinHit> batch) {
    for (const auto& h : batch) {
      REQUIRE(h.query_id == qs[h.query].id);
      REQUIRE(h.query_fingerprint == qs[h.query].fingerprint);
      rows.emplace_back(h.query, h.fingerprint, h.distance, h.ids.to_vector());
    }
  };
  if (held_hits == 0) {
    join(index, qs, o, take);
  } else {
    const auto* set = dynamic_cast<const set::SetSnapshot*>(index_impl(index).composite.get());
    REQUIRE(set != nullptr);
    set->join(qs, o, take, held_hits);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

using Cluster = std::vector<std::pair<uint64_t, std::vector<uint64_t>>>;
std::vector<Cluster> all_clusters(const Index& index, unsigned k) {
  std::vector<Cluster> out;
  BatchOptions o;
  o.k = static_cast<int>(k);
  o.threads = 2;
  find_clusters(index, o, ClusterOptions{}, [&](std::span<const ClusterMember> members) {
    Cluster c;
    for (const auto& m : members) c.emplace_back(m.fingerprint, m.ids.to_vector());
    out.push_back(std::move(c));
  });
  return out;  // in the order of their first member: the same order for both
}

void check_same(const Index& set, const Index& single, const Pairs& live, std::mt19937_64& rng, unsigned k) {
  CHECK(set.is_set());
  CHECK(set.fingerprint_count() == single.fingerprint_count());
  CHECK(set.info().id_count == single.info().id_count);
  const auto qs = queries_for(rng, live, k, 60);
  for (uint64_t q : qs) REQUIRE(answer(set, q, k) == answer(single, q, k));
  for (std::size_t i = 0; i < 20 && !live.empty(); ++i) {
    const uint64_t f = live[rng() % live.size()].first;
    REQUIRE(set.ids_of(f).to_vector() == single.ids_of(f).to_vector());
  }
  std::vector<Query> jq;
  for (std::size_t i = 0; i < qs.size(); ++i) jq.push_back({qs[i], i});
  const auto joined = all_join(single, jq, k);
  CHECK(all_join(set, jq, k) == joined);
  for (std::size_t held : {1, 7}) CHECK(all_join(set, jq, k, held) == joined);
  CHECK(all_pairs(set, k, false) == all_pairs(single, k, false));
  CHECK(all_pairs(set, k, true) == all_pairs(single, k, true));
  CHECK(all_clusters(set, k) == all_clusters(single, k));
}

Pairs draw(std::mt19937_64& rng, bool clustered, const std::vector<uint64_t>& pool, std::size_t n) {
  Pairs p = clustered ? clustered_pairs(rng, n, 3) : random_pairs(rng, n);
  for (auto& [f, id] : p) {
    id = rng() % 400;  // ids repeat: removals and re-adds meet old pairs
    if (!pool.empty() && rng() % 4 == 0) f = pool[rng() % pool.size()];  // a fingerprint of another member
  }
  return p;
}

format::SetManifest read_manifest_of(const std::string& path) {
  const auto bytes = read_bytes(path);
  return format::SetManifest::decode(bytes.data(), bytes.size());
}

void run_sequence(uint64_t seed, bool clustered) {
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::string set_path = dir.file("s.sdxs");
  const unsigned k = 3;
  Model model;
  std::vector<uint64_t> pool;
  SetWriterOptions wo;
  wo.tier_ratio = 2 + static_cast<unsigned>(rng() % 3);
  wo.build.threads = 2;
  for (int step = 0; step < 14; ++step) {
    const unsigned op = step == 0 ? 0 : static_cast<unsigned>(rng() % 6);
    SetWriter writer(set_path, wo);
    if (op <= 2) {
      const Pairs p = draw(rng, clustered, pool, 20 + rng() % 300);
      IndexBuilder b({.k = k});
      for (auto [f, id] : p) {
        b.add(f, id);
        pool.push_back(f);
      }
      writer.add(b);
      model.add(p);
    } else if (op <= 4) {
      std::vector<uint64_t> ids;
      for (unsigned i = 0, n = 1 + static_cast<unsigned>(rng() % 40); i < n; ++i) ids.push_back(rng() % 420);
      writer.remove(ids);
      model.remove(ids);
    } else {
      writer.merge();
    }
    CAPTURE(step);
    CAPTURE(op);
    const Index set = Index::open(set_path);
    const Pairs live = model.pairs();
    build(dir.file("single.sdx"), live, {.k = k});
    const Index single = Index::open(dir.file("single.sdx"));
    check_same(set, single, live, rng, k);
    CHECK(set.verify().ok());
    if (op == 5) {  // a merge writes the bytes a build of the live pairs writes (deterministic)
      const auto m = read_manifest_of(set_path);
      REQUIRE(m.members.size() == 1);
      CHECK(m.tombstones.empty());
      CHECK(read_bytes(set::entry_path(set_path, m.members[0].name)) == read_bytes(dir.file("single.sdx")));
    }
  }
}

void write_manifest(const std::string& path, const format::SetManifest& m) {
  const auto bytes = m.encode();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

format::SetManifest read_manifest(const std::string& path) {
  const auto bytes = read_bytes(path);
  return format::SetManifest::decode(bytes.data(), bytes.size());
}

std::string open_error(const std::string& path) {
  try {
    Index::open(path);
  } catch (const Error& e) {
    return std::string(errc_name(e.code()));
  }
  return "ok";
}

void add_pairs(const std::string& set, const Pairs& p, SetWriterOptions o = {}, unsigned k = 3) {
  SetWriter w(set, o);
  IndexBuilder b({.k = k});
  for (auto [f, id] : p) b.add(f, id);
  w.add(b);
}

SetWriterOptions without_merge() {
  SetWriterOptions o;
  o.merge_after_add = false;
  return o;
}

// `count` members added as they are (no merge), member m of draw(m); returns all their pairs.
Pairs add_members(const std::string& set, int count, const std::function<Pairs(int)>& draw, unsigned k = 3) {
  Pairs all;
  for (int m = 0; m < count; ++m) {
    const Pairs p = draw(m);
    add_pairs(set, p, without_merge(), k);
    all.insert(all.end(), p.begin(), p.end());
  }
  return all;
}

}  // namespace

TEST_CASE("random add/remove/merge sequences answer as one index of the live pairs") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    run_sequence(seed, seed % 2 == 0);
  }
}

TEST_CASE("an id removed and added again is live; merge drops removed pairs for good") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  SetWriterOptions no_merge;
  no_merge.merge_after_add = false;
  add_pairs(s, {{0x10, 1}, {0x20, 2}}, no_merge);
  SetWriter(s).remove(std::vector<uint64_t>{1, 2});
  add_pairs(s, {{0x30, 1}}, no_merge);
  {
    const Index set = Index::open(s);
    CHECK(set.ids_of(0x10).empty());
    CHECK(set.ids_of(0x30).to_vector() == std::vector<uint64_t>{1});
    CHECK(set.fingerprint_count() == 1);
  }
  const SetChange c = SetWriter(s).merge();
  CHECK(c.members == 1);
  const auto m = read_manifest(s);
  CHECK(m.tombstones.empty());
  CHECK(Index::open(s).fingerprint_count() == 1);
  // The old files are gone from the directory after publication.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(s).parent_path()))
    files += e.path().extension() == ".sdx" || e.path().extension() == ".sdt";
  CHECK(files == 1);
}

TEST_CASE("size-tiered adds keep the member count logarithmic and never rewrite the large base") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  std::mt19937_64 rng(7);
  add_pairs(s, random_pairs(rng, 5000));
  const std::string base = read_manifest(s).members[0].name;
  for (int day = 0; day < 30; ++day) add_pairs(s, random_pairs(rng, 20));
  const auto m = read_manifest(s);
  CHECK(m.members[0].name == base);
  CHECK(m.members.size() <= 8);
}

TEST_CASE("reopen sees the newest manifest and shares unchanged members; subsets open") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  SetWriterOptions no_merge;
  no_merge.merge_after_add = false;
  add_pairs(s, {{0x10, 1}}, no_merge);
  const Index first = Index::open(s);
  add_pairs(s, {{0x11, 2}}, no_merge);
  CHECK(first.fingerprint_count() == 1);  // a snapshot
  const Index second = first.reopen();
  CHECK(second.fingerprint_count() == 2);
  CHECK(second.info().members.size() == 2);
  // checksum(): the manifest_checksum of the manifest read, another for each generation.
  CHECK(second.checksum() == format::load_le64(read_bytes(s).data() + 56));
  CHECK(second.info().checksum == second.checksum());
  CHECK(first.checksum() != second.checksum());
  CHECK(Index::open(s).checksum() == second.checksum());
  OpenOptions only;
  only.set_members = {1};
  const Index part = Index::open(s, only);
  CHECK(part.fingerprint_count() == 1);
  CHECK(part.ids_of(0x11).to_vector() == std::vector<uint64_t>{2});
  only.set_members = {2};
  CHECK_THROWS_AS(Index::open(s, only), Error);
  // An older manifest copied over the newer one: the reader that has the newer refuses it.
  const auto newer = read_bytes(s);
  format::SetManifest old = read_manifest(s);
  old.generation = 1;
  old.members.resize(1);
  write_manifest(s, old);
  try {
    (void)second.reopen();
    FAIL("a stale manifest was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == errc::stale_manifest);
  }
}

TEST_CASE("a corrupt, missing, swapped or truncated member is a clear error") {
  TempDir dir;
  std::mt19937_64 rng(3);
  const std::string s = dir.file("s.sdxs"), other = dir.file("other.sdxs");
  SetWriterOptions no_merge;
  no_merge.merge_after_add = false;
  add_pairs(s, random_pairs(rng, 300), no_merge);
  add_pairs(s, random_pairs(rng, 300), no_merge);
  add_pairs(other, random_pairs(rng, 300), no_merge);
  SetWriter(s).remove(std::vector<uint64_t>{1, 2, 3});
  const auto m = read_manifest(s);
  const std::string member = set::entry_path(s, m.members[1].name);
  const auto original = read_bytes(member);
  auto write_member = [&](const std::vector<uint8_t>& bytes) {
    std::filesystem::remove(member);  // a new file, as cp over it would not be (the reader maps nothing here)
    std::ofstream(member, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  CHECK(open_error(s) == "ok");
  // Another set's member under this name.
  write_member(read_bytes(set::entry_path(other, read_manifest(other).members[0].name)));
  CHECK(open_error(s) == "member_mismatch");
  // Truncated: the member's own open rule names it.
  write_member(std::vector<uint8_t>(original.begin(), original.end() - 8));
  CHECK(open_error(s) == "file_size_mismatch");
  // A flipped byte in a block: open passes, verify finds it.
  auto flipped = original;
  flipped[flipped.size() - 40] ^= 0x10;
  write_member(flipped);
  CHECK(open_error(s) == "ok");
  CHECK_FALSE(Index::open(s).verify().ok());
  std::filesystem::remove(member);
  CHECK(open_error(s) == "member_missing");
  write_member(original);
  CHECK(open_error(s) == "ok");
  // A tombstone file changed.
  const std::string tomb = set::entry_path(s, m.tombstones[0].name);
  auto t = read_bytes(tomb);
  t.back() ^= 1;
  std::filesystem::remove(tomb);
  std::ofstream(tomb, std::ios::binary).write(reinterpret_cast<const char*>(t.data()), t.size());
  CHECK(open_error(s) == "bad_tombstone");
}

TEST_CASE("a manifest or tombstone far larger than it can be is refused unread, by the rule it breaks") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  add_pairs(s, {{0x10, 1}, {0x20, 2}});
  SetWriter(s).remove(std::vector<uint64_t>{2});
  const std::vector<uint8_t> manifest = read_bytes(s);
  const uint64_t huge = uint64_t{1} << 40;  // sparse: a reader that allocated it whole would fail
  // The manifest's header at the start of a file of `huge` bytes, `patch` applied to it.
  auto oversized = [&](const std::function<void(uint8_t*)>& patch) {
    std::vector<uint8_t> head(manifest.begin(), manifest.begin() + format::kSetHeaderBytes);
    patch(head.data());
    const std::string path = dir.file("big.sdxs");
    std::filesystem::remove(path);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(head.data()), head.size());
    std::filesystem::resize_file(path, huge);
    return open_error(path);
  };
  CHECK(oversized([](uint8_t*) {}) == "file_size_mismatch");
  CHECK(oversized([&](uint8_t* h) { format::store_le64(h + 16, huge); }) == "set_layout");
  CHECK(oversized([&](uint8_t* h) { format::store_le16(h + 8, 2); }) == "unsupported_version");
  CHECK(oversized([&](uint8_t* h) { h[1] ^= 1; }) == "bad_magic");
  CHECK(format::kMaxManifestBytes == 64 + 2 * 65536 * (48 + 256));
  // A tombstone file of `huge` bytes where its entry says 40: refused by its size, unread; and an
  // entry whose size is not 32 + 8 * its id count.
  format::SetManifest m = read_manifest(s);
  REQUIRE(m.tombstones.size() == 1);
  const std::string tomb = set::entry_path(s, m.tombstones[0].name);
  const auto tomb_bytes = read_bytes(tomb);
  std::filesystem::resize_file(tomb, huge);
  CHECK(open_error(s) == "bad_tombstone");
  std::filesystem::resize_file(tomb, 0);
  std::ofstream(tomb, std::ios::binary)
      .write(reinterpret_cast<const char*>(tomb_bytes.data()), tomb_bytes.size());
  CHECK(open_error(s) == "ok");
  m.tombstones[0].count = 2;
  write_manifest(s, m);
  try {
    Index::open(s);
    FAIL("an entry at odds with its size was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == errc::bad_tombstone);
    CHECK(std::string(e.what()).find("not those of the 2 ids") != std::string::npos);
  }
}

TEST_CASE("a manifest naming files outside its directory is refused") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  add_pairs(s, {{0x10, 1}});
  format::SetManifest m = read_manifest(s);
  for (const char* name : {"../s.sdx", "/etc/passwd", "a/../../b.sdx", ".s.sdx"}) {
    m.members[0].name = name;
    write_manifest(s, m);
    CHECK(open_error(s) == "bad_member_name");
  }
}

TEST_CASE("a writer removes the files a writer that died left unpublished, and only those") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  add_pairs(s, {{0x10, 1}});  // generation 1
  // What a writer that died left: its next generation's member and tombstone.
  const std::string orphan = set::entry_path(s, set::member_name(s, 2)),
                    orphan_tombstone = set::entry_path(s, set::tombstone_name(s, 2));
  std::ofstream(orphan) << "left by a killed writer";
  std::ofstream(orphan_tombstone) << "left by a killed writer";
  // What no writer of the set wrote: another file, a generation past the next one, another set whose
  // manifest has a member's name (it removed that set's manifest).
  const std::string other = dir.file("mine.sdx"), future = set::entry_path(s, set::member_name(s, 9)),
                    other_set = set::entry_path(s, set::member_name(s, 3));
  std::ofstream(other) << "not a set file";
  std::ofstream(future) << "a generation no writer of the set reached";
  add_pairs(other_set, {{0x20, 2}});
  // The name of one of the set's entries is refused as an index's path: it would replace a member
  // (the set broken) or be removed as a file a writer left.
  IndexBuilder b({.k = 3});
  b.add(0x30, 3);
  CHECK_THROWS_WITH_AS(b.write(set::entry_path(s, set::member_name(s, 1))),
                       doctest::Contains("has the name of a member of the index set"), Error);
  CHECK_THROWS_WITH_AS(b.write(set::entry_path(s, set::tombstone_name(s, 7))),
                       doctest::Contains("has the name of a tombstone of the index set"), Error);
  {
    SetWriter w(s);
    CHECK_FALSE(std::filesystem::exists(orphan));
    CHECK_FALSE(std::filesystem::exists(orphan_tombstone));
    CHECK(std::filesystem::exists(other));
    CHECK(std::filesystem::exists(future));
    CHECK(Index::open(other_set).fingerprint_count() == 1);
  }
  CHECK(Index::open(s).fingerprint_count() == 1);
  b.write(dir.file("elsewhere.sdx"));  // the builder still holds its pairs
}

TEST_CASE("a manifest that cannot be written (a full disk) leaves the set as it was, and says so") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  add_pairs(s, {{0x10, 1}, {0x20, 2}});
  const std::vector<uint8_t> before = read_bytes(s);
  // Files of at most 150 bytes: the tombstone of one id (40 bytes) is written, the manifest that
  // would name it (about 200) is not (EFBIG, as a full disk's ENOSPC).
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  rlimit bound = old;
  bound.rlim_cur = 150;
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &bound) == 0);
  std::string error;
  try {
    SetWriter w(s);
    w.remove(std::vector<uint64_t>{2});
  } catch (const Error& e) {
    error = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  CHECK(error.find("cannot write") != std::string::npos);
  CHECK(error.find("was not replaced, the set is unchanged") != std::string::npos);
  CHECK(read_bytes(s) == before);
  CHECK(Index::open(s).query(0x20, 0).size() == 1);
  // The tombstone written for it went with the writer (it was left for the next writer to remove).
  CHECK_FALSE(std::filesystem::exists(set::entry_path(s, set::tombstone_name(s, 2))));
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(s).parent_path()))
    CHECK(e.path().filename().string().find(".pending-") == std::string::npos);
  SetWriter(s).remove(std::vector<uint64_t>{2});
  CHECK(Index::open(s).query(0x20, 0).empty());
  // The same writer, tried again once the disk has room: the files of its failed try go first
  // (the retry's tombstone has the same generation, whose name they took).
  SetWriter again(s);
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &bound) == 0);
  std::signal(SIGXFSZ, SIG_IGN);
  CHECK_THROWS_AS(again.remove(std::vector<uint64_t>{1}), Error);
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  again.remove(std::vector<uint64_t>{1});
  CHECK(Index::open(s).query(0x10, 0).empty());
}

TEST_CASE("an add whose merge after it fails is done all the same, and says why (a retry would add twice)") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  for (uint64_t id = 1; id <= 3; ++id) add_pairs(s, {{id << 8, id}}, without_merge());  // one tier
  SetWriter w(s);
  IndexBuilder b({.k = 3});
  b.add(4 << 8, 4);
  // The add publishes generation 4; its merge of the full tier, generation 5, finds its name taken.
  const std::string blocker = set::entry_path(s, set::member_name(s, 5));
  std::ofstream(blocker) << "not simdex's";
  const SetChange change = w.add(b);
  CHECK(change.merge_failure.find("exists") != std::string::npos);
  CHECK(change.generation == 4);
  CHECK(change.members == 4);
  CHECK(change.written == std::vector<std::string>{set::member_name(s, 4)});  // the merge's not told
  CHECK(change.merged_entries == 0);
  CHECK(w.generation() == 4);
  for (uint64_t id = 1; id <= 4; ++id) CHECK(Index::open(s).ids_of(id << 8).to_vector() == std::vector{id});
  CHECK(read_bytes(blocker).size() == 12);
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    CHECK(e.path().filename().string().find(".pending-") == std::string::npos);  // the merge's went
  // Once the name is free, the same writer's next change merges.
  std::filesystem::remove(blocker);
  IndexBuilder more({.k = 3});
  more.add(5 << 8, 5);
  const SetChange next = w.add(more);
  CHECK(next.merge_failure.empty());
  CHECK(next.merged_entries == 5);  // the tier: all five members of one pair
  CHECK(Index::open(s).fingerprint_count() == 5);
}

TEST_CASE("a writer removes the temporary files of a writer that died, and no file of its own") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  add_pairs(s, {{0x10, 1}});
  // A merge killed while writing (its temporary file), one killed before its member took its
  // name (pending), and a file of another set beside it.
  const std::string tmp = dir.file(".s.sdxs-0000000000000003.sdx.tmp-999999-0");
  const std::string pending = dir.file(".s.sdxs-0000000000000003.sdx.pending-999999");
  const std::string others = dir.file(".t.sdxs-0000000000000003.sdx.tmp-999999-0");
  for (const auto& f : {tmp, pending, others}) std::ofstream(f) << "left by a killed writer";
  SetWriter(s).remove(std::vector<uint64_t>{7});  // takes generation 2, not the killed merge's 3
  CHECK_FALSE(std::filesystem::exists(tmp));
  CHECK_FALSE(std::filesystem::exists(pending));
  CHECK(std::filesystem::exists(others));
}

TEST_CASE("a set's name must name its files legally; nothing is written for one that does not") {
  TempDir dir;
  for (const char* name : {"my docs.sdxs", "docs+v2.sdxs",
                           "d\xc3\xb6"
                           "cs.sdxs",
                           ".docs.sdxs", "a@b.sdxs"}) {
    CAPTURE(name);
    const std::string s = dir.file(name);
    try {
      add_pairs(s, {{0x10, 1}});
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.code() == errc::usage);
      CHECK(std::string(e.what()).find("spec/SET.md") != std::string::npos);
    }
  }
  CHECK(std::filesystem::is_empty(std::filesystem::path(dir.file("x")).parent_path()));
  add_pairs(dir.file("Docs_v2.1-x.sdxs"), {{0x10, 1}});
  CHECK(Index::open(dir.file("Docs_v2.1-x.sdxs")).fingerprint_count() == 1);
}

TEST_CASE("a manifest's limits: tombstones merged away, members refused or merged, the last generation") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  SetWriterOptions no_merge;
  no_merge.merge_after_add = false;
  add_pairs(s, {{0x10, 1}, {0x20, 2}, {0x30, 3}}, no_merge);
  add_pairs(s, {{0x40, 4}}, no_merge);
  // 65,536 tombstones newer than the base member, as a tier merge leaves them (written directly:
  // a remove each would take minutes).
  format::SetManifest m = read_manifest(s);
  for (uint32_t i = 0; i < format::kMaxSetEntries; ++i) {
    format::Tombstone t;
    t.generation = m.generation + 1;
    t.ids = {1000 + i};
    const auto bytes = t.encode();
    const std::string name = set::tombstone_name(s, t.generation);
    std::ofstream(set::entry_path(s, name), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    m.tombstones.push_back(
        {t.generation, bytes.size(), format::checksum64(bytes.data(), bytes.size()), 1, 0, name});
    m.generation = t.generation;
  }
  write_manifest(s, m);
  REQUIRE(open_error(s) == "ok");
  // One more: the set is merged into one member first (every tombstone applied and dropped).
  const SetChange change = SetWriter(s).remove(std::vector<uint64_t>{2});
  CHECK(change.merged_entries == 4);
  m = read_manifest(s);
  CHECK(m.members.size() == 1);
  CHECK(m.tombstones.size() == 1);
  const Index set = Index::open(s);
  CHECK(set.fingerprint_count() == 3);
  CHECK(set.ids_of(0x20).empty());

  // 65,536 members (the same member file linked under each name, which readers refuse as copies
  // from another set: the writer's count check is what is tested; a writer checks that the files
  // are there).
  m = read_manifest(s);
  m.tombstones.clear();
  const format::SetEntry member = m.members[0];
  m.members.assign(format::kMaxSetEntries, member);
  std::filesystem::create_directory(dir.file("m"));
  std::filesystem::copy_file(dir.file(member.name), dir.file("copy.sdx"));  // ext4: 65,000 links a file
  for (uint32_t i = 0; i < format::kMaxSetEntries; ++i) {
    m.members[i].generation = m.generation + 1 + i;
    m.members[i].name = "m/" + std::to_string(i) + ".sdx";
    const std::string source = dir.file(i % 2 ? "copy.sdx" : member.name);
    REQUIRE(::link(source.c_str(), dir.file(m.members[i].name).c_str()) == 0);
  }
  m.generation += format::kMaxSetEntries;
  write_manifest(s, m);
  try {
    add_pairs(s, {{0x50, 5}}, no_merge);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("65,536 members") != std::string::npos);
  }
  CHECK(read_manifest(s).members.size() == format::kMaxSetEntries);  // unchanged

  // The last generation: no change follows it.
  m = read_manifest(s);
  m.members.resize(1);  // m/0.sdx (the first member's file was removed as no longer named)
  m.generation = UINT64_MAX;
  write_manifest(s, m);
  CHECK_THROWS_WITH_AS(add_pairs(s, {{0x50, 5}}), doctest::Contains("2^64 - 1"), Error);
  CHECK_THROWS_WITH_AS(SetWriter(s).remove(std::vector<uint64_t>{1}), doctest::Contains("2^64 - 1"), Error);
  CHECK(read_manifest(s).generation == UINT64_MAX);
}

TEST_CASE("a writer never replaces a published file, nor publishes over a manifest it did not read") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  add_pairs(s, {{0x10, 1}});
  {
    // Another writer that ignored the lock published generation 2 while this one worked.
    SetWriter late(s);
    const auto before = read_bytes(s);
    std::filesystem::rename(dir.file("s.sdxs.lock"), dir.file("moved.lock"));  // the lock removed
    add_pairs(s, {{0x20, 2}});
    const auto published = read_bytes(s);
    const auto member = read_bytes(set::entry_path(s, set::member_name(s, 2)));
    IndexBuilder b({.k = 3});
    b.add(0x30, 3);
    CHECK_THROWS_WITH_AS(late.add(b), doctest::Contains("another writer published"), Error);
    CHECK(read_bytes(s) == published);
    CHECK(read_bytes(set::entry_path(s, set::member_name(s, 2))) == member);
    CHECK(before != published);
    CHECK_THROWS_WITH_AS(late.remove(std::vector<uint64_t>{1}), doctest::Contains("changed while"), Error);
  }
  // The tombstone the late writer gave its name went with it: no manifest names it.
  CHECK_FALSE(std::filesystem::exists(set::entry_path(s, set::tombstone_name(s, 2))));
  CHECK(Index::open(s).fingerprint_count() == 2);
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(dir.file("x")).parent_path()))
    CHECK(e.path().filename().string().find(".pending-") == std::string::npos);  // the refused member's
}

TEST_CASE("pairs for another k are refused before the builder is used up") {
  TempDir dir;
  add_pairs(dir.file("k3.sdxs"), {{0x10, 1}});
  IndexBuilder b({.k = 4});
  b.add(0x20, 2);
  b.add(0x30, 3);
  CHECK_THROWS_WITH_AS(SetWriter(dir.file("k3.sdxs")).add(b), doctest::Contains("k = 3"), Error);
  SetWriter(dir.file("k4.sdxs")).add(b);
  CHECK(Index::open(dir.file("k4.sdxs")).fingerprint_count() == 2);
  CHECK_THROWS_AS(SetWriter(dir.file("k4.sdxs")).add(b), Error);  // used up: no empty member
  CHECK(read_manifest(dir.file("k4.sdxs")).members.size() == 1);
}

TEST_CASE("two writers: the second waits or fails clearly, never loses an update") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  add_pairs(s, {{0x10, 1}});
  SetWriter holder(s);
  SetWriterOptions no_wait;
  no_wait.wait_for_lock = false;
  CHECK_THROWS_AS(SetWriter(s, no_wait), Error);
}

TEST_CASE("merge under a small memory bound spills to temporary files and writes the same bytes") {
  TempDir dir;
  const std::string s = dir.file("s.sdxs");
  std::mt19937_64 rng(11);
  const Pairs all = add_members(s, 3, [&](int) { return clustered_pairs(rng, 30000, 3); });
  SetWriterOptions small;
  small.build.memory_bytes = 1 << 20;
  const SetChange c = SetWriter(s, small).merge();
  CHECK(c.merged_entries == all.size());
  build(dir.file("one.sdx"), all, {.k = 3});
  const auto m = read_manifest(s);
  CHECK(read_bytes(set::entry_path(s, m.members[0].name)) == read_bytes(dir.file("one.sdx")));
}

TEST_CASE("pairs and clusters of several members: near-identical documents in one pass, ids kept") {
  // 4 members of 10,000 fingerprints within 4 bits of one (every two within k = 8): their clusters
  // are one component scan of the merged set, where each member's pairs (5e7 each, above the work
  // limit below) and every two members' join were resolved one by one.
  TempDir dir, scratch;
  const std::string s = dir.file("near.sdxs");
  std::mt19937_64 rng(29);
  const uint64_t center = rng();
  uint64_t id = 0;
  Pairs all = add_members(
      s, 4,
      [&](int) {
        Pairs p;
        for (int i = 0; i < 10'000; ++i) {
          uint64_t f = center;
          for (int bit = 0; bit < 4; ++bit) f ^= uint64_t{1} << (rng() % 64);
          p.emplace_back(f, id++);
        }
        return p;
      },
      8);
  const std::vector<uint64_t> removed{7, 10'007};
  SetWriter(s).remove(removed);
  std::erase_if(all, [](const auto& p) { return p.second == 7 || p.second == 10'007; });
  build(dir.file("one.sdx"), all, {.k = 8});
  const Index set = Index::open(s), one = Index::open(dir.file("one.sdx"));
  REQUIRE(set.info().members.size() == 4);

  // The merged index goes to TMPDIR and is gone when the call returns.
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved = old_tmpdir ? old_tmpdir : "";
  ::setenv("TMPDIR", scratch.file("").c_str(), 1);
  BatchOptions o;
  o.work_limit = 100'000'000;
  std::vector<std::string> stages;
  o.progress = [&](std::string_view stage, uint64_t, uint64_t) {
    if (stages.empty() || stages.back() != stage) stages.emplace_back(stage);
  };
  std::vector<ClusterMember> kept;  // the ids read after the call: valid while `set` lives
  find_clusters(set, o, ClusterOptions{}, [&](std::span<const ClusterMember> members) {
    kept.insert(kept.end(), members.begin(), members.end());
  });
  if (old_tmpdir)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  CHECK(std::filesystem::is_empty(scratch.file("")));
  REQUIRE(!stages.empty());
  CHECK(stages.front().rfind("merging members: ", 0) == 0);
  CHECK(stages.back() == "clusters");
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> got, want;
  for (const auto& m : kept) got.emplace_back(m.fingerprint, m.ids.to_vector());
  find_clusters(one, o, ClusterOptions{}, [&](std::span<const ClusterMember> members) {
    for (const auto& m : members) want.emplace_back(m.fingerprint, m.ids.to_vector());
  });
  CHECK(got.size() == one.fingerprint_count());  // one cluster of them all
  CHECK(got == want);

  // Pairs with ids kept past the call (clustered data in 3 members), against one file's.
  const std::string small = dir.file("small.sdxs");
  const Pairs small_pairs = add_members(small, 3, [&](int) {
    Pairs p = clustered_pairs(rng, 3000, 3);
    for (auto& [f, id] : p) id = rng() % 5000;  // ids repeat: fingerprints with several ids
    return p;
  });
  build(dir.file("small.sdx"), small_pairs, {.k = 3});
  o = BatchOptions{};
  o.with_ids = true;
  o.duplicates = true;
  auto rows_of = [&](const Index& index) {
    std::vector<NearPair> pairs;
    find_pairs(index, o, [&](std::span<const NearPair> batch) {
      pairs.insert(pairs.end(), batch.begin(), batch.end());
    });
    std::vector<PairRow> rows;
    for (const NearPair& p : pairs)
      rows.emplace_back(p.a, p.b, p.distance, p.ids_a.to_vector(), p.ids_b.to_vector());
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  const Index small_set = Index::open(small), small_one = Index::open(dir.file("small.sdx"));
  const auto set_rows = rows_of(small_set);
  CHECK(set_rows.size() > 1000);
  CHECK(set_rows == rows_of(small_one));
}

TEST_CASE("a set's join resolving its hits in batches mid-way answers as one file") {
  // 300,000 stored fingerprints queried for themselves (or with a bit flipped), a fingerprint in
  // two members, ids removed: each member's hits resolved against the others in batches of 4,096
  // hits (set_batch.cpp), so mostly from inside its join, and at the default, at its end.
  TempDir dir;
  const std::string s = dir.file("big.sdxs");
  std::mt19937_64 rng(31);
  Pairs all = add_members(s, 2, [&](int m) {
    Pairs p = random_pairs(rng, 150'000);
    for (auto& [f, id] : p) id += uint64_t(m) * 150'000;
    return p;
  });
  all.push_back({all[10].first, 999'999});  // a fingerprint of member 0 in member 2 too
  add_pairs(s, {all.back()}, without_merge());
  const std::vector<uint64_t> removed{3, 150'003};
  SetWriter(s).remove(removed);
  std::erase_if(all, [](const auto& p) { return p.second == 3 || p.second == 150'003; });
  build(dir.file("one.sdx"), all, {.k = 3});
  std::vector<Query> qs;
  for (std::size_t i = 0; i < all.size(); ++i) qs.push_back({all[i].first ^ (i % 2), i});
  const Index set = Index::open(s), one = Index::open(dir.file("one.sdx"));
  const auto got = all_join(set, qs, 3);
  CHECK(got.size() >= all.size() - 1);
  CHECK(got == all_join(one, qs, 3));
  CHECK(all_join(set, qs, 3, 4096) == got);
}
