// Many reader processes query an index set while one writer runs a sequence of adds, removes and
// merges on it (spec/SET.md §7, §8). A reader opens (or reopens) the set, learns from the writer's
// log how many operations its snapshot holds (the generation it opened), replays those operations
// to get the live pairs, and checks its answers against brute force over them. Every error counts.
//   set_stress [--readers 16] [--ops 20] [--n 20000]
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "simdex/builder.h"
#include "simdex/index.h"
#include "simdex/set.h"

using namespace simdex;

namespace {

struct Op {
  enum Kind { add, remove, merge } kind;
  std::vector<std::pair<uint64_t, uint64_t>> pairs;  // add
  std::vector<uint64_t> ids;                         // remove
};

// Operation i, the same in every process: a base, then adds, removes and merges.
Op operation(unsigned i, uint64_t n) {
  std::mt19937_64 rng(77 + i);
  Op op{i == 0 || i % 3 == 1 ? Op::add : i % 6 == 2 ? Op::merge : Op::remove, {}, {}};
  if (op.kind == Op::add) {
    const uint64_t count = i == 0 ? n : n / 20;
    for (uint64_t j = 0; j < count; ++j) {
      const uint64_t f = rng();
      op.pairs.emplace_back(f, rng() % (2 * n));
      if (j % 4 == 0) op.pairs.emplace_back(f ^ (uint64_t{1} << (rng() % 64)), rng() % (2 * n));  // near-dups
    }
  } else if (op.kind == Op::remove) {
    for (int j = 0; j < 200; ++j) op.ids.push_back(rng() % (2 * n));
  }
  return op;
}

std::map<uint64_t, std::set<uint64_t>> live_after(unsigned ops, uint64_t n) {
  std::set<std::pair<uint64_t, uint64_t>> live;
  for (unsigned i = 0; i < ops; ++i) {
    const Op op = operation(i, n);
    live.insert(op.pairs.begin(), op.pairs.end());
    if (op.kind == Op::remove) {
      const std::set<uint64_t> gone(op.ids.begin(), op.ids.end());
      std::erase_if(live, [&](const auto& p) { return gone.count(p.second) > 0; });
    }
  }
  std::map<uint64_t, std::set<uint64_t>> by_f;
  for (auto [f, id] : live) by_f[f].insert(id);
  return by_f;
}

// The operations a generation holds, from the writer's log ("GENERATION OPS" lines, appended after
// each publication); waits for the writer to log it.
unsigned ops_of(const std::string& log, uint64_t generation) {
  for (int tries = 0; tries < 2000; ++tries) {
    std::ifstream in(log);
    uint64_t g = 0;
    unsigned ops = 0;
    while (in >> g >> ops)
      if (g >= generation) return ops;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  throw std::runtime_error("generation " + std::to_string(generation) + " never logged");
}

int reader(const std::string& path, const std::string& log, uint64_t n, const std::string& done, int id) {
  std::mt19937_64 rng(id);
  int errors = 0, opens = 0, queries = 0;
  std::optional<Index> index;
  for (;;) {
    const bool last = std::filesystem::exists(done);  // one more round after the writer finished
    try {
      index = index && rng() % 2 ? index->reopen() : Index::open(path);
      ++opens;
      const auto live = live_after(ops_of(log, index->info().generation), n);
      std::vector<uint64_t> fps;
      for (const auto& [f, ids] : live) fps.push_back(f);
      for (int q = 0; q < 30; ++q) {
        const uint64_t x = fps.empty() ? rng() : fps[rng() % fps.size()] ^ (uint64_t{1} << (rng() % 64));
        std::vector<std::pair<uint64_t, std::vector<uint64_t>>> want, got;
        for (const auto& [f, ids] : live)
          if (std::popcount(f ^ x) <= 3) want.emplace_back(f, std::vector<uint64_t>(ids.begin(), ids.end()));
        for (const Hit& h : index->query(x, 3)) got.emplace_back(h.fingerprint, h.ids.to_vector());
        std::sort(got.begin(), got.end());
        ++queries;
        if (got != want) {
          ++errors;
          std::fprintf(stderr, "reader %d: wrong answer at generation %llu\n", id,
                       (unsigned long long)index->info().generation);
        }
      }
    } catch (const std::exception& e) {
      ++errors;
      std::fprintf(stderr, "reader %d: %s\n", id, e.what());
    }
    if (last) break;
  }
  std::fprintf(stderr, "reader %d: %d opens, %d queries, %d errors\n", id, opens, queries, errors);
  return errors;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned readers = 16, ops = 20;
  uint64_t n = 20000;
  CLI::App app{"Readers in many processes while a writer adds, removes and merges"};
  app.add_option("--readers", readers)->capture_default_str();
  app.add_option("--ops", ops, "Operations after the base")->capture_default_str();
  app.add_option("--n", n, "Pairs of the base")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const auto dir = std::filesystem::temp_directory_path() / ("simdex-set-stress-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "s.sdxs").string(), log = (dir / "log").string(),
                    done = (dir / "done").string();
  SetWriterOptions wo;
  wo.tier_ratio = 3;  // merges happen often
  wo.build.threads = 1;
  auto apply = [&](unsigned i) {
    const Op op = operation(i, n);
    SetWriter w(path, wo);
    SetChange c;
    if (op.kind == Op::add) {
      IndexBuilder b({.k = 3, .threads = 1});
      for (auto [f, id] : op.pairs) b.add(f, id);
      c = w.add(b);
    } else if (op.kind == Op::remove) {
      c = w.remove(op.ids);
    } else {
      c = w.merge();
    }
    std::ofstream(log, std::ios::app) << c.generation << " " << i + 1 << "\n";
  };
  apply(0);
  std::vector<pid_t> children;
  for (unsigned r = 0; r < readers; ++r) {
    const pid_t pid = fork();
    if (pid == 0) _exit(std::min(reader(path, log, n, done, static_cast<int>(r)), 100));
    children.push_back(pid);
  }
  for (unsigned i = 1; i <= ops; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    apply(i);
  }
  std::ofstream(done) << "done\n";
  int failed_readers = 0;
  for (pid_t c : children) {
    int status = 0;
    waitpid(c, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed_readers;
  }
  // Nothing left behind: the files the last manifest names, the manifest, the lock and the log.
  const Index last = Index::open(path);
  const std::size_t named = last.info().members.size() + last.info().tombstone_count;
  const auto files = static_cast<std::size_t>(
      std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()));
  std::filesystem::remove_all(dir);
  std::printf("%u reader processes, %u operations (generation %llu, %zu members): %d readers failed\n",
              readers, ops, (unsigned long long)last.info().generation, last.info().members.size(),
              failed_readers);
  const unsigned passed = (failed_readers == 0) + (files == named + 4);
  std::printf("%u passed, %u failed\n", passed, 2 - passed);
  return passed == 2 ? 0 : 1;
}
