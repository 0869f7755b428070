// Many processes read one index while a writer republishes it at the same path (issue: publishing
// under load). Each reader process repeatedly opens the path, learns which version it got (the ids
// of a marker fingerprint), verifies every byte, and checks query answers against brute force over
// that version's fingerprints, regenerated from its seed. Meanwhile the parent publishes new versions.
// At the end it sums the proportional set size (PSS) of the readers' mappings of the index, which
// shows that the processes share the file's pages instead of each holding a copy.
//   publish_stress [--readers 16] [--versions 6] [--n 50000]
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "simdex/builder.h"
#include "simdex/index.h"

using namespace simdex;

namespace {

constexpr uint64_t kMarker = 0x0123456789abcdefULL;  // its id is the version number

std::vector<uint64_t> version_fingerprints(uint64_t version, uint64_t n) {
  std::mt19937_64 rng(1000 + version);
  std::vector<uint64_t> f(n);
  for (auto& x : f) x = rng();
  for (std::size_t i = 0; i < n / 4; ++i) f[i] = f[n / 2 + i] ^ (uint64_t{1} << (rng() % 64));  // near-dups
  return f;
}

void publish(const std::string& path, uint64_t version, uint64_t n) {
  BuildOptions o;
  o.scheme = Scheme::named("paper-10", 3, 0);
  IndexBuilder b(o);
  const auto fps = version_fingerprints(version, n);
  for (uint64_t i = 0; i < n; ++i) b.add(fps[i], i);
  b.add(kMarker, version);
  b.write(path);
}

// One reader process: returns the number of errors.
int reader(const std::string& path, uint64_t n, std::chrono::steady_clock::time_point until, int id,
           const std::string& ready_file) {
  std::mt19937_64 rng(id);
  int errors = 0, opens = 0, queries = 0;
  bool signalled = false;
  while (std::chrono::steady_clock::now() < until) {
    try {
      const Index index = Index::open(path);
      ++opens;
      const IdList marker = index.ids_of(kMarker);
      if (marker.size() != 1) throw std::runtime_error("marker missing");
      const uint64_t version = marker[0];
      if (!index.verify().ok()) throw std::runtime_error("verify failed");
      if (!signalled) {  // every page is now mapped in: the parent may measure PSS
        std::ofstream(ready_file + std::to_string(id)) << getpid();
        signalled = true;
      }
      auto fps = version_fingerprints(version, n);
      fps.push_back(kMarker);
      std::sort(fps.begin(), fps.end());
      fps.erase(std::unique(fps.begin(), fps.end()), fps.end());
      for (int q = 0; q < 20; ++q) {
        uint64_t x = fps[rng() % fps.size()] ^ (uint64_t{1} << (rng() % 64));
        std::size_t want = 0;
        for (uint64_t f : fps) want += std::popcount(f ^ x) <= 3;
        const auto got = index.query(x, 3);
        ++queries;
        if (got.size() != want) ++errors;
      }
    } catch (const std::exception& e) {
      ++errors;
      std::fprintf(stderr, "reader %d: %s\n", id, e.what());
    }
  }
  std::fprintf(stderr, "reader %d: %d opens, %d queries, %d errors\n", id, opens, queries, errors);
  return errors;
}

// Sum of Pss over the mappings of `name` (live or deleted) in process `pid`, in kB. In smaps a
// mapping starts with a line "START-END PERMS OFFSET DEV INODE PATH"; its fields follow as "Key: value".
uint64_t pss_kb(pid_t pid, const std::string& name) {
  std::ifstream smaps("/proc/" + std::to_string(pid) + "/smaps");
  std::string line;
  bool inside = false;
  uint64_t total = 0;
  while (std::getline(smaps, line)) {
    const auto dash = line.find('-');
    const bool header = dash != std::string::npos && dash > 0 &&
                        std::all_of(line.begin(), line.begin() + static_cast<long>(dash),
                                    [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    if (header)
      inside = line.find(name) != std::string::npos;
    else if (inside && line.rfind("Pss:", 0) == 0)
      total += std::stoull(line.substr(4));
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned readers = 16, versions = 6;
  uint64_t n = 50000;
  CLI::App app{"Readers in many processes while the index is republished"};
  app.add_option("--readers", readers)->capture_default_str();
  app.add_option("--versions", versions)->capture_default_str();
  app.add_option("--n", n)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const auto dir = std::filesystem::temp_directory_path() / ("simdex-stress-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "live.sdx").string();
  const std::string ready = (dir / "ready-").string();
  publish(path, 0, n);
  const auto file_bytes = std::filesystem::file_size(path);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2 + versions);

  std::vector<pid_t> children;
  for (unsigned r = 0; r < readers; ++r) {
    const pid_t pid = fork();
    if (pid == 0) _exit(std::min(reader(path, n, until, static_cast<int>(r), ready), 100));
    children.push_back(pid);
  }
  // PSS once every reader has mapped and read the whole first version it opened.
  uint64_t pss = 0;
  for (int waited = 0; waited < 200; ++waited) {
    unsigned up = 0;
    for (unsigned r = 0; r < readers; ++r) up += std::filesystem::exists(ready + std::to_string(r));
    if (up == readers) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (pid_t c : children) pss += pss_kb(c, "live.sdx");
  for (unsigned v = 1; v <= versions; ++v) {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    publish(path, v, n);
  }
  int failed_readers = 0;
  for (pid_t c : children) {
    int status = 0;
    waitpid(c, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed_readers;
  }
  std::size_t leftovers = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    leftovers += e.path().filename().string().find(".tmp-") != std::string::npos;
  std::filesystem::remove_all(dir);
  std::printf(
      "%u reader processes, %u republications, file %llu bytes; summed reader PSS of the index %llu kB "
      "= %.2f x the file (%u private copies would be %.0f x)\n",
      readers, versions, (unsigned long long)file_bytes, (unsigned long long)pss,
      static_cast<double>(pss) * 1024 / static_cast<double>(file_bytes), readers,
      static_cast<double>(readers));
  const unsigned passed = (failed_readers == 0) + (leftovers == 0) + (pss * 1024 < 2 * file_bytes);
  std::printf("%u passed, %u failed\n", passed, 3 - passed);
  return passed == 3 ? 0 : 1;
}
