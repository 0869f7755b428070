// fingerprint_all against the serial Fingerprinter: same bits for every thread count, on the demo
// corpus and on texts at the edges of the pipeline.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/text_pipeline.h"
#include "simdex/documents.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"

using simdex::FingerprintOptions;

namespace {

std::vector<std::string> corpus_texts() {
  const char* root = std::getenv("SIMDEX_SOURCE_DIR");
  REQUIRE(root != nullptr);
  simdex::DocumentSource docs(std::string(root) + "/data/corpus/docs.jsonl.gz");
  std::vector<std::string> texts;
  simdex::Document doc;
  while (docs.next(doc)) texts.emplace_back(doc.text);
  return texts;
}

std::vector<std::string> edge_texts() {
  std::vector<std::string> t{"",
                             " ",
                             "\t--- !!",
                             "a",
                             "one two",
                             "The quick, brown FOX jumps!",
                             "\xFF\xFE broken \xC3 utf8 \xE2\x82",
                             std::string("nul\0inside", 10),
                             "\xE4\xB8\xAD\xE6\x96\x87\xE5\xAD\x97\xE7\x9A\x84\xE6\x96\x87\xE6\x9C\xAC",
                             "\xEF\xBC\xA6\xEF\xBC\xB5\xEF\xBC\xAC\xEF\xBC\xAC width and the the the"};
  std::string long_text;
  for (int i = 0; i < 20000; ++i) long_text += "word" + std::to_string(i % 97) + " ";
  t.push_back(long_text);
  return t;
}

void check_equal_to_serial(const std::vector<std::string>& texts, const FingerprintOptions& options) {
  simdex::Fingerprinter serial(options);
  std::vector<std::uint64_t> expected;
  for (const auto& t : texts) expected.push_back(serial.fingerprint(t));
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  for (unsigned threads : {1u, 2u, 7u, 0u}) {
    CAPTURE(threads);
    std::vector<std::uint64_t> out(texts.size(), 0xDEADBEEF);
    simdex::fingerprint_all(views, out, options, threads);
    CHECK(out == expected);
  }
}

}  // namespace

TEST_CASE("fingerprint_all gives the serial Fingerprinter's bits for any thread count") {
  const auto corpus = corpus_texts();
  REQUIRE(corpus.size() > 1000);
  check_equal_to_serial(corpus, {});
  check_equal_to_serial(edge_texts(), {});
  FingerprintOptions other;
  other.shingle_size = 1;
  other.weighting = simdex::Weighting::binary;
  other.stopwords = simdex::english_stopwords();
  check_equal_to_serial(corpus, other);
  check_equal_to_serial(edge_texts(), other);
  // Fewer texts than threads, and none.
  check_equal_to_serial({"just one"}, {});
  check_equal_to_serial({}, {});
}

TEST_CASE("fingerprint_all refuses mismatched spans and bad options") {
  const std::vector<std::string_view> texts{"a", "b"};
  std::vector<std::uint64_t> out(1);
  CHECK_THROWS_AS(simdex::fingerprint_all(texts, out), simdex::Error);
  try {
    simdex::fingerprint_all(texts, out);
  } catch (const simdex::Error& e) {
    CHECK(e.code() == simdex::errc::usage);
  }
  out.resize(2);
  FingerprintOptions bad;
  bad.shingle_size = 0;
  CHECK_THROWS_AS(simdex::fingerprint_all(texts, out, bad, 2), simdex::Error);
}

TEST_CASE(
    "TextPipeline hands back the serial fingerprints in input order, at any thread count and batch size") {
  auto texts = corpus_texts();
  for (auto& t : edge_texts()) texts.push_back(t);
  simdex::Fingerprinter serial;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> expected;
  for (std::size_t i = 0; i < texts.size(); ++i)
    expected.emplace_back(1000 + 3 * i, serial.fingerprint(texts[i]));
  for (unsigned threads : {1u, 2u, 3u, 7u})
    for (std::size_t batch_bytes : {std::size_t{1}, std::size_t{5000}, std::size_t{1} << 22}) {
      CAPTURE(threads);
      CAPTURE(batch_bytes);
      std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
      simdex::TextPipeline pipeline(
          {}, threads, [&](std::uint64_t tag, std::uint64_t fp) { got.emplace_back(tag, fp); }, batch_bytes);
      for (std::size_t i = 0; i < texts.size(); ++i) {
        std::string copy = texts[i];  // the pipeline keeps its own copy: the caller's buffer is reused
        pipeline.add(copy, 1000 + 3 * i);
        copy.assign(copy.size(), 'x');
      }
      pipeline.finish();
      CHECK(got == expected);
      pipeline.finish();  // nothing more
      CHECK(got.size() == expected.size());
    }
}

TEST_CASE("TextPipeline refuses bad options and passes on the caller's errors") {
  FingerprintOptions bad;
  bad.shingle_size = 0;
  CHECK_THROWS_AS(simdex::TextPipeline(bad, 2, [](std::uint64_t, std::uint64_t) {}), simdex::Error);
  simdex::TextPipeline pipeline(
      {}, 2,
      [](std::uint64_t tag, std::uint64_t) {
        if (tag == 5) throw simdex::Error(simdex::errc::io, "full disk");
      },
      10);
  CHECK_THROWS_AS(
      [&] {
        for (std::uint64_t i = 0; i < 20; ++i) pipeline.add("some words of text", i);
        pipeline.finish();
      }(),
      simdex::Error);
}
