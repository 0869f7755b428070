// Replays every conformance file and every fuzz regression through the in-process reader (in the
// ASan+UBSan build as well): good files open and verify, bad files are rejected at open or by verify,
// and nothing crashes or reads out of bounds. Regressions also go through the batch commands, re-sealed
// as the batch fuzz targets re-seal their inputs.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "reseal.h"
#include "simdex/batch.h"
#include "test_util.h"

using namespace simdex;
namespace fs = std::filesystem;

namespace {
fs::path source_dir() {
  const char* d = std::getenv("SIMDEX_SOURCE_DIR");
  return d ? fs::path(d) : fs::path(".");
}

// Returns true when the file is rejected (open throws) or verify finds a problem.
bool rejected(const std::vector<uint8_t>& bytes) {
  try {
    const Index index = Index::from_buffer(bytes.data(), bytes.size());
    (void)index.info();
    bool query_error = false;
    for (uint64_t q : {uint64_t{0}, ~uint64_t{0}, uint64_t{0xff}, uint64_t{0x8000000000000000}}) {
      try {
        for (const auto& hit : index.query(q, index.max_distance()))
          for (uint64_t id : hit.ids) (void)id;
      } catch (const Error&) {
        query_error = true;
      }
    }
    const bool bad = !index.verify().ok();
    if (query_error) CHECK(bad);
    return bad;
  } catch (const Error&) {
    return true;
  }
}

std::vector<fs::path> files_in(const fs::path& dir, const std::string& extension) {
  std::vector<fs::path> out;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && (extension.empty() || e.path().extension() == extension))
        out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("conformance good files are accepted, bad files rejected") {
  const auto good = files_in(source_dir() / "tests/conformance/good", ".sdx");
  const auto bad = files_in(source_dir() / "tests/conformance/bad", ".sdx");
  REQUIRE(good.size() >= 10);
  REQUIRE(bad.size() >= 17);
  for (const auto& f : good) {
    CAPTURE(f.string());
    CHECK(!rejected(test::read_bytes(f.string())));
  }
  for (const auto& f : bad) {
    CAPTURE(f.string());
    CHECK(rejected(test::read_bytes(f.string())));
  }
}

TEST_CASE("fuzz regressions never crash the reader") {
  for (const auto& f : files_in(source_dir() / "tests/fuzz/regressions", "")) {
    if (f.extension() == ".md") continue;
    CAPTURE(f.string());
    (void)rejected(test::read_bytes(f.string()));
  }
}

TEST_CASE("fuzz regressions, re-sealed, never crash the batch commands") {
  for (const auto& f : files_in(source_dir() / "tests/fuzz/regressions", "")) {
    if (f.extension() == ".md") continue;
    CAPTURE(f.string());
    auto bytes = test::read_bytes(f.string());
    test::reseal(bytes.data(), bytes.size());
    BatchOptions options;
    options.threads = 2;
    options.with_ids = true;
    const std::vector<Query> queries = {{0, 0}, {~uint64_t{0}, 1}, {0xff, 2}};
    auto quietly = [](auto&& run) {
      try {
        run();
      } catch (const Error&) {
      }
    };
    quietly([&] {
      const Index index = Index::from_buffer(bytes.data(), bytes.size());
      quietly([&] { find_pairs(index, options, [](std::span<const NearPair>) {}); });
      quietly([&] { join(index, queries, options, [](std::span<const JoinHit>) {}); });
      quietly(
          [&] { find_clusters(index, options, ClusterOptions{}, [](std::span<const ClusterMember>) {}); });
    });
  }
}
