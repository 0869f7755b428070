#include "format/set_manifest.h"

#include <doctest/doctest.h>

#include <random>

#include "format/checksum.h"
#include "format/endian.h"
#include "simdex/error.h"

using namespace simdex;
using format::SetEntry;
using format::SetManifest;

namespace {
SetManifest sample() {
  SetManifest m;
  m.generation = 5;
  m.block_bytes = 256;
  m.max_distance = 3;
  m.members = {{1, 1000, 0xabc, 10, 12, "a-0000000000000001.sdx"}, {4, 2000, 0xdef, 20, 20, "sub/b.sdx"}};
  m.tombstones = {{3, 40, 0x123, 1, 0, "t-3.sdt"}};
  return m;
}
std::string rule_of(const std::vector<uint8_t>& bytes) {
  try {
    SetManifest::decode(bytes.data(), bytes.size());
  } catch (const Error& e) {
    return std::string(errc_name(e.code()));
  }
  return "ok";
}
}  // namespace

TEST_CASE("a manifest decodes to what was encoded") {
  const auto bytes = sample().encode();
  CHECK(bytes.size() % 8 == 0);
  const SetManifest back = SetManifest::decode(bytes.data(), bytes.size());
  CHECK(back.generation == 5);
  CHECK(back.members == sample().members);
  CHECK(back.tombstones == sample().tombstones);
}

TEST_CASE("entry names stay inside the set's directory") {
  CHECK(format::check_entry_name("a.sdx").empty());
  CHECK(format::check_entry_name("dir/a-1_2.sdx").empty());
  for (const char* bad :
       {"", "/etc/passwd", "../x.sdx", "a/../b", "./a", ".hidden", "a//b", "a/", "a b", "a\\b"})
    CHECK_MESSAGE(!format::check_entry_name(bad).empty(), bad);
}

TEST_CASE("a corrupt manifest is rejected by the rule it breaks") {
  const auto good = sample().encode();
  CHECK(rule_of(good) == "ok");
  CHECK(rule_of(std::vector<uint8_t>(good.begin(), good.begin() + 40)) == "file_too_small");
  auto flip = [&](std::size_t at) {
    auto b = good;
    b[at] ^= 1;
    return b;
  };
  CHECK(rule_of(flip(1)) == "bad_magic");
  CHECK(rule_of(flip(70)) == "manifest_checksum");
  auto truncated = good;
  truncated.resize(good.size() - 8);
  CHECK(rule_of(truncated) == "file_size_mismatch");
  SetManifest m = sample();
  m.members[0].name = "../outside.sdx";
  CHECK(rule_of(m.encode()) == "bad_member_name");
  m = sample();
  m.members[1].generation = 1;
  CHECK(rule_of(m.encode()) == "entry_order");
  m = sample();
  m.tombstones[0].generation = 9;
  CHECK(rule_of(m.encode()) == "entry_order");
  m = sample();
  m.members[1].name = m.members[0].name;
  CHECK(rule_of(m.encode()) == "bad_member_name");
  m = sample();
  m.block_bytes = 12;
  CHECK(rule_of(m.encode()) == "bad_header_field");
  m = sample();
  m.members.clear();
  CHECK(rule_of(m.encode()) == "bad_header_field");
}

TEST_CASE("tombstones round-trip and are checked against their entry") {
  format::Tombstone t{7, {1, 5, 9}};
  const auto bytes = t.encode();
  SetEntry e{7, bytes.size(), 0, 3, 0, "t.sdt"};
  CHECK_THROWS_AS(format::Tombstone::decode(bytes.data(), bytes.size(), e), Error);  // checksum 0
  e.checksum = format::checksum64(bytes.data(), bytes.size());
  CHECK(format::Tombstone::decode(bytes.data(), bytes.size(), e).ids == t.ids);
  e.generation = 6;
  CHECK_THROWS_AS(format::Tombstone::decode(bytes.data(), bytes.size(), e), Error);
}

TEST_CASE("hostile manifests: random mutations and truncations are rejected or decoded, never a crash") {
  const auto good = sample().encode();
  std::mt19937_64 rng(5);
  std::size_t rejected = 0;
  for (int round = 0; round < 20000; ++round) {
    auto b = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    if (rng() % 4 == 0) b.resize(rng() % (b.size() + 1));
    if (rng() % 2) {  // a mutation that keeps the checksum right reaches the later rules
      if (b.size() >= 64) {
        format::Checksum64 c;
        c.update(b.data(), 56);
        c.update(b.data() + 64, b.size() - 64);
        format::store_le64(b.data() + 56, c.digest());
        format::store_le64(b.data() + 16, b.size());
      }
    }
    try {
      const SetManifest m = SetManifest::decode(b.data(), b.size());
      for (const auto* list : {&m.members, &m.tombstones})
        for (const auto& e : *list) CHECK(format::check_entry_name(e.name).empty());
    } catch (const Error&) {
      ++rejected;
    }
  }
  CHECK(rejected > 10000);
}
