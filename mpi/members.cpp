#include "mpi/members.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <numeric>

#include "format/set_manifest.h"
#include "format/system_error.h"
#include "reader/fingerprint_scan.h"
#include "reader/index_impl.h"
#include "set/set_files.h"
#include "set/set_snapshot.h"
#include "simdex/error.h"

namespace simdex::mpi {

Assign parse_assign(const std::string& name) {
  if (name == "size") return Assign::size;
  if (name == "index") return Assign::index;
  throw Error(errc::usage, "--assign " + name + ": expected size or index");
}

std::vector<std::size_t> MemberPlan::owned_by(int rank) const {
  std::vector<std::size_t> mine;
  for (std::size_t m = 0; m < owner.size(); ++m)
    if (owner[m] == rank) mine.push_back(m);
  return mine;
}

MemberPlan plan_members(const std::string& path, int ranks, Assign how) {
  MemberPlan plan;
  plan.is_set = set::starts_with_set_magic(path);
  if (plan.is_set) {
    const std::vector<uint8_t> bytes = set::read_manifest(path);
    const format::SetManifest m = set::decode_manifest(path, bytes);
    for (const auto& e : m.members) {
      plan.names.push_back(e.name);
      plan.bytes.push_back(e.file_bytes);
    }
  } else {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw system_error("cannot open index", path);
    set::require_regular_file(path);
    plan.names.push_back(path);
    plan.bytes.push_back(0);
  }
  const std::size_t n = plan.names.size();
  plan.owner.assign(n, 0);
  if (how == Assign::index) {
    for (std::size_t m = 0; m < n; ++m) plan.owner[m] = static_cast<int>(m % static_cast<std::size_t>(ranks));
    return plan;
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return plan.bytes[a] > plan.bytes[b]; });
  std::vector<uint64_t> load(static_cast<std::size_t>(ranks), 0);
  for (std::size_t m : order) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    plan.owner[m] = static_cast<int>(least);
    load[least] += plan.bytes[m] + 1;  // + 1: empty members spread too
  }
  return plan;
}

std::vector<std::string> files_read(const std::string& path) {
  std::vector<std::string> files{path};
  if (!set::starts_with_set_magic(path)) return files;
  try {
    const std::vector<uint8_t> bytes = set::read_manifest(path);
    const format::SetManifest m = set::decode_manifest(path, bytes);
    for (const auto* list : {&m.members, &m.tombstones})
      for (const auto& e : *list) files.push_back(set::entry_path(path, e.name));
  } catch (const Error&) {  // a bad manifest: its readers report it
  }
  return files;
}

Index open_members(const std::string& path, const MemberPlan& plan, const std::vector<std::size_t>& members) {
  if (!plan.is_set) return Index::open(path);
  OpenOptions options;
  options.set_members = members;
  return Index::open(path, options);
}

void for_each_live_fingerprint(const Index& index,
                               const std::function<void(uint64_t, const IdList&)>& visit) {
  const auto& impl = index_impl(index);
  if (!impl.composite) return reader::for_each_fingerprint(index, visit);
  const auto& snapshot = dynamic_cast<const set::SetSnapshot&>(*impl.composite);
  snapshot.for_each_live([&](uint64_t fp, std::size_t, const IdList& ids) { visit(fp, ids); });
  index.check_unchanged();
}

}  // namespace simdex::mpi
