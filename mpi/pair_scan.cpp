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

// The ranks' members before j, opened once per prefix of this rank's (ascending) members.
class OwnPrefixes {
 public:
  OwnPrefixes(const ScanOptions& o, const MemberPlan& plan, std::vector<std::size_t> mine)
      : options_(o), plan_(plan), mine_(std::move(mine)) {}
  // This rank's members below `member`, or nothing when it has none.
  const Index* below(std::size_t member) {
    const auto n =
        static_cast<std::size_t>(std::lower_bound(mine_.begin(), mine_.end(), member) - mine_.begin());
    if (n == 0) return nullptr;
    auto it = opened_.find(n);
    if (it == opened_.end())
      it = opened_
               .emplace(n, open_members(options_.path, plan_,
                                        {mine_.begin(), mine_.begin() + static_cast<std::ptrdiff_t>(n)}))
               .first;
    return &it->second;
  }

 private:
  const ScanOptions& options_;
  const MemberPlan& plan_;
  std::vector<std::size_t> mine_;
  std::map<std::size_t, Index> opened_;
};

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

void scan_pairs(const World& world, const ScanOptions& o, const std::function<void(const NearPair&)>& take) {
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
  Deferred local;
  if (own)
    local.run([&] {
      find_pairs(*own, batch, [&](std::span<const NearPair> pairs) {
        for (const NearPair& p : pairs) take(p);
      });
    });

  // Across ranks: member j's live fingerprints (with ids: [fp, count, ids...]) against the members
  // before j of every other rank.
  OwnPrefixes prefixes(o, plan, mine);
  std::vector<uint64_t> chunk;
  std::vector<Query> queries;
  std::vector<std::size_t> id_at;  // where each query's ids start in `chunk`
  for (std::size_t j = 0; j < plan.owner.size(); ++j) {
    // No rank but j's owner holds a member before j: no round (every rank sees the same plan).
    if (std::all_of(plan.owner.begin(), plan.owner.begin() + static_cast<std::ptrdiff_t>(j),
                    [&](int r) { return r == plan.owner[j]; }))
      continue;
    if (plan.owner[j] == world.rank()) {
      broadcast_member(world, o, plan, j, local);
      continue;
    }
    for (;;) {
      world.broadcast(chunk, plan.owner[j]);
      if (chunk.empty()) break;
      const Index* against = nullptr;
      local.run([&] { against = prefixes.below(j); });
      if (against == nullptr) continue;
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
}

}  // namespace simdex::mpi
