#include "mpi/pair_scan.h"

#include <algorithm>
#include <exception>
#include <map>
#include <optional>

#include "mpi/records.h"

namespace simdex::mpi {

namespace {
// Local work that may fail while the ranks are in a sequence of collectives: the first error is
// kept, later work is skipped, and the error is reported at the next World::step.
class Deferred {
 public:
  template <class Work>
  void run(Work&& work) {
    if (error_) return;
    try {
      work();
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  bool failed() const { return error_ != nullptr; }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
};

// Which side of a pair of members of different ranks joins: for i < j, the owner of i joins j's
// fingerprints against i when i + j is even, else the owner of j joins i's against j. So the joins
// are spread over the ranks (not all on the owner of member 0).
bool joined_against(std::size_t member, std::size_t broadcast) {
  return member < broadcast ? (member + broadcast) % 2 == 0 : (member + broadcast) % 2 == 1;
}

// The members `rank` joins member j's fingerprints against (none of j's owner's own: find_pairs
// covers those).
std::vector<std::size_t> join_targets(const MemberPlan& plan, std::size_t j, int rank) {
  std::vector<std::size_t> targets;
  for (std::size_t i = 0; i < plan.owner.size(); ++i)
    if (plan.owner[i] == rank && plan.owner[i] != plan.owner[j] && i != j && joined_against(i, j))
      targets.push_back(i);
  return targets;
}

// The owner's side of member j's round: its live fingerprints (with ids: [fp, count, ids...]) in
// broadcasts of o.chunk fingerprints, then an empty one. A failure ends the round early (the empty
// broadcast still goes out) and is reported at the next step.
void broadcast_member(const World& world, const ScanOptions& o, const MemberPlan& plan, std::size_t j,
                      Deferred& local) {
  std::vector<uint64_t> chunk;
  std::size_t count = 0;
  auto send = [&] {
    world.broadcast(chunk, world.rank());
    chunk.clear();
    count = 0;
  };
  local.run([&] {
    const Index member = open_members(o.path, plan, {j});
    for_each_live_fingerprint(member, [&](uint64_t fp, const IdList& ids) {
      chunk.push_back(fp);
      if (o.with_ids) {
        chunk.push_back(ids.size());
        for (uint64_t id : ids) chunk.push_back(id);
      }
      if (++count == o.chunk) send();
    });
  });
  if (!chunk.empty()) send();
  send();  // the end of the round
}
}  // namespace

std::optional<Index> scan_pairs(const World& world, const ScanOptions& o,
                                const std::function<void(const NearPair&)>& take) {
  MemberPlan plan;
  std::optional<Index> own;  // every member this rank owns
  std::vector<std::size_t> mine;
  world.step([&] {
    plan = plan_members(o.path, world.size(), o.assign);
    mine = plan.owned_by(world.rank());
    if (mine.empty()) return;
    own.emplace(open_members(o.path, plan, mine));
    own->search_distance(o.k);  // a k above the set's: a usage error before any work
  });
  BatchOptions batch;
  batch.k = o.k;
  batch.threads = o.threads ? o.threads : world.default_threads();
  batch.with_ids = o.with_ids;
  batch.duplicates = o.duplicates;
  if (o.force) batch.work_limit = UINT64_MAX;
  BatchOptions own_batch = batch;  // find_pairs finds a fingerprint's several ids through its ids
  own_batch.with_ids = o.with_ids || o.duplicates;
  Deferred local;
  if (own)
    local.run([&] {
      find_pairs(*own, own_batch, [&](std::span<const NearPair> pairs) {
        for (const NearPair& p : pairs) take(p);
      });
    });

  // Across ranks: member j's live fingerprints (with ids: [fp, count, ids...]) joined by the other
  // ranks against their members that joined_against says.
  std::vector<uint64_t> chunk;
  std::vector<Query> queries;
  std::vector<std::size_t> id_at;  // where each query's ids start in `chunk`
  for (std::size_t j = 0; j < plan.owner.size(); ++j) {
    bool needed = false;  // some rank joins j's fingerprints (every rank sees the same plan)
    for (int r = 0; r < world.size() && !needed; ++r) needed = !join_targets(plan, j, r).empty();
    if (!needed) continue;
    if (plan.owner[j] == world.rank()) {
      broadcast_member(world, o, plan, j, local);
      continue;
    }
    const std::vector<std::size_t> targets = join_targets(plan, j, world.rank());
    std::optional<Index> against;
    if (!targets.empty()) local.run([&] { against.emplace(open_members(o.path, plan, targets)); });
    for (;;) {
      world.broadcast(chunk, plan.owner[j]);
      if (chunk.empty()) break;
      if (!against) continue;
      local.run([&] {
        queries.clear();
        id_at.clear();
        for (std::size_t at = 0; at < chunk.size();) {
          queries.push_back({chunk[at], queries.size()});
          if (!o.with_ids) {
            ++at;
            continue;
          }
          id_at.push_back(at + 2);
          at += 2 + chunk[at + 1];
        }
        join(*against, queries, batch, [&](std::span<const JoinHit> hits) {
          for (const JoinHit& h : hits) {
            if (h.distance == 0 && !o.duplicates) continue;  // the same fingerprint: not a pair
            const IdList theirs =
                o.with_ids ? id_view({chunk.data() + id_at[h.query], chunk[id_at[h.query] - 1]}) : IdList{};
            const bool query_first = h.query_fingerprint <= h.fingerprint;
            NearPair p;
            p.distance = h.distance;
            p.a = query_first ? h.query_fingerprint : h.fingerprint;
            p.b = query_first ? h.fingerprint : h.query_fingerprint;
            p.ids_a = query_first ? theirs : h.ids;
            p.ids_b = query_first ? h.ids : theirs;
            take(p);
          }
        });
      });
    }
  }
  world.step([&] { local.rethrow(); });
  return own;
}

}  // namespace simdex::mpi
