// The members of the set a command reads, and which rank opens which: a rank opens only the
// members it owns (OpenOptions::set_members), so members may lie on each machine's local disk.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "simdex/index.h"

namespace simdex::mpi {

enum class Assign {
  size,   // by size: largest member first, to the rank with the fewest bytes so far
  index,  // member i to rank i mod P: where `simdex-mpi build` with P ranks wrote it
};
Assign parse_assign(const std::string& name);  // "size" or "index"; Error(usage) otherwise

struct MemberPlan {
  bool is_set = false;             // else a single index file: one member
  std::vector<std::string> names;  // file of each member (relative to the manifest's directory)
  std::vector<uint64_t> bytes;     // file size of each member
  std::vector<int> owner;          // the rank that opens each member
  std::vector<std::size_t> owned_by(int rank) const;
};

// Reads the manifest at `path` (every rank reads it: it must be at that path on every machine), or
// takes `path` as one index file, and gives each member an owner.
MemberPlan plan_members(const std::string& path, int ranks, Assign how);

// The files a command reads for `path`: the file itself and, for a set, its members and tombstones
// (an output must replace none of them).
std::vector<std::string> files_read(const std::string& path);

// The set holding only `members` (every removal applied), or the index file itself.
Index open_members(const std::string& path, const MemberPlan& plan, const std::vector<std::size_t>& members);

// Every live fingerprint of `index` (opened with one member, or an index file) with its live ids.
void for_each_live_fingerprint(const Index& index, const std::function<void(uint64_t, const IdList&)>& visit);

}  // namespace simdex::mpi
