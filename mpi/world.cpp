#include "mpi/world.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <exception>
#include <thread>

#include "cli/output.h"
#include "simdex/error.h"

namespace simdex::mpi {

namespace {
// The most u64 one rank sends to one other in one round: every count and displacement of a round
// then fits an int, however many ranks.
uint64_t round_cap(int ranks) {
  return std::max<uint64_t>(1, uint64_t{INT_MAX / 2} / static_cast<uint64_t>(ranks));
}
}  // namespace

World::World() {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  int n = 1;
  MPI_Comm_size(local, &n);
  MPI_Comm_free(&local);
  local_ranks_ = static_cast<unsigned>(std::max(1, n));
}

unsigned World::default_threads() const {
  return std::max(1u, std::thread::hardware_concurrency() / local_ranks_);
}

void World::step(const std::function<void()>& work) const {
  int status = 0;
  std::string message;
  try {
    work();
  } catch (const Error& e) {
    message = cli::printable(e.what());
    status = e.code() == errc::usage ? 2 : 1;
  } catch (const std::exception& e) {
    message = cli::printable(e.what());
    status = 1;
  }
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst == 0) return;
  report_failures(message);
  throw JobFailed(worst);
}

void World::report_failures(const std::string& message) const {
  // Every rank's message to rank 0, which prints each distinct one once, with the ranks that met it
  // (seven ranks that cannot open one input make one line, not seven).
  const int length = static_cast<int>(std::min<std::size_t>(message.size(), INT_MAX / 2 / size_));
  std::vector<int> lengths(static_cast<std::size_t>(size_)), starts(static_cast<std::size_t>(size_));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    starts[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(root() ? static_cast<std::size_t>(total) : 0, '\0');
  MPI_Gatherv(message.data(), length, MPI_CHAR, all.data(), lengths.data(), starts.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (!root()) return;
  std::vector<std::pair<std::string, std::vector<int>>> distinct;  // in the order of the first rank
  for (int r = 0; r < size_; ++r) {
    const auto n = static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)]);
    if (n == 0) continue;
    std::string text = all.substr(static_cast<std::size_t>(starts[static_cast<std::size_t>(r)]), n);
    auto it = std::find_if(distinct.begin(), distinct.end(), [&](const auto& d) { return d.first == text; });
    if (it == distinct.end()) it = distinct.insert(distinct.end(), {std::move(text), {}});
    it->second.push_back(r);
  }
  std::string out;
  for (const auto& [text, ranks] : distinct) {
    std::string who;  // "3", "0-3", "0, 2, 5-6"
    for (std::size_t i = 0; i < ranks.size();) {
      std::size_t j = i;
      while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
      who += (who.empty() ? "" : ", ") + std::to_string(ranks[i]) +
             (j > i ? "-" + std::to_string(ranks[j]) : std::string());
      i = j + 1;
    }
    out += "simdex-mpi: rank" + std::string(ranks.size() > 1 ? "s " : " ") + who + " of " +
           std::to_string(size_) + ": " + text + "\n";
  }
  std::fflush(stderr);
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, out.data(), out.size());
}

std::vector<uint64_t> World::exchange(std::vector<std::vector<uint64_t>>& out) const {
  const auto ranks = static_cast<std::size_t>(size_);
  out.resize(ranks);
  const uint64_t cap = round_cap(size_);
  std::vector<uint64_t> received, sent_before(ranks, 0);
  std::vector<int> send_counts(ranks), send_displs(ranks), recv_counts(ranks), recv_displs(ranks);
  for (;;) {
    uint64_t left = 0;
    for (std::size_t d = 0; d < ranks; ++d) left += out[d].size() - sent_before[d];
    uint64_t left_anywhere = 0;
    MPI_Allreduce(&left, &left_anywhere, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (left_anywhere == 0) break;
    std::vector<uint64_t> send;
    for (std::size_t d = 0; d < ranks; ++d) {
      const uint64_t n = std::min(cap, out[d].size() - sent_before[d]);
      send_displs[d] = static_cast<int>(send.size());
      send_counts[d] = static_cast<int>(n);
      send.insert(send.end(), out[d].begin() + static_cast<std::ptrdiff_t>(sent_before[d]),
                  out[d].begin() + static_cast<std::ptrdiff_t>(sent_before[d] + n));
      sent_before[d] += n;
    }
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (std::size_t s = 0; s < ranks; ++s) {
      recv_displs[s] = total;
      total += recv_counts[s];
    }
    const std::size_t at = received.size();
    received.resize(at + static_cast<std::size_t>(total));
    MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_UINT64_T, received.data() + at,
                  recv_counts.data(), recv_displs.data(), MPI_UINT64_T, MPI_COMM_WORLD);
  }
  for (auto& o : out) std::vector<uint64_t>().swap(o);
  return received;
}

std::vector<uint64_t> World::all_gather(std::span<const uint64_t> mine) const {
  std::vector<std::vector<uint64_t>> out(static_cast<std::size_t>(size_), {mine.begin(), mine.end()});
  return exchange(out);
}

void World::broadcast(std::vector<uint64_t>& data, int from) const {
  uint64_t n = data.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, from, MPI_COMM_WORLD);
  data.resize(n);
  for (uint64_t done = 0; done < n;) {
    const int part = static_cast<int>(std::min<uint64_t>(n - done, INT_MAX / 2));
    MPI_Bcast(data.data() + done, part, MPI_UINT64_T, from, MPI_COMM_WORLD);
    done += static_cast<uint64_t>(part);
  }
}

void World::broadcast(std::string& text, int from) const {
  std::vector<uint64_t> words((text.size() + 7) / 8 + 1, 0);
  words[0] = text.size();
  std::copy(text.begin(), text.end(), reinterpret_cast<char*>(words.data() + 1));
  broadcast(words, from);
  text.assign(reinterpret_cast<const char*>(words.data() + 1), words[0]);
}

uint64_t World::sum(uint64_t mine) const {
  uint64_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

void World::gather_to_root(std::span<const uint64_t> mine,
                           const std::function<void(std::span<const uint64_t>)>& take) const {
  constexpr int kTag = 7;
  const uint64_t cap = INT_MAX / 2;
  if (!root()) {
    uint64_t n = mine.size();
    MPI_Send(&n, 1, MPI_UINT64_T, 0, kTag, MPI_COMM_WORLD);
    for (uint64_t done = 0; done < n;) {
      const int part = static_cast<int>(std::min(n - done, cap));
      MPI_Send(mine.data() + done, part, MPI_UINT64_T, 0, kTag, MPI_COMM_WORLD);
      done += static_cast<uint64_t>(part);
    }
    return;
  }
  // An error of `take` (a full disk) waits until every rank's part is received: the senders are not
  // left blocked.
  std::exception_ptr failed;
  auto take_safely = [&](std::span<const uint64_t> part) {
    if (failed) return;
    try {
      take(part);
    } catch (...) {
      failed = std::current_exception();
    }
  };
  take_safely(mine);
  std::vector<uint64_t> part;
  for (int from = 1; from < size_; ++from) {
    uint64_t n = 0;
    MPI_Recv(&n, 1, MPI_UINT64_T, from, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    part.resize(n);
    for (uint64_t done = 0; done < n;) {
      const int count = static_cast<int>(std::min(n - done, cap));
      MPI_Recv(part.data() + done, count, MPI_UINT64_T, from, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      done += static_cast<uint64_t>(count);
    }
    take_safely(part);
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace simdex::mpi
