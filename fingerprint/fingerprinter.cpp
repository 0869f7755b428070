// The pipeline of spec/FINGERPRINT.md: repair, normalize, segment, drop stopwords, shingle, hash,
// tally. Every buffer lives in the Impl and is reused, so steady-state fingerprinting allocates
// nothing per token (only when a text is longer than any before it).
// xxHash inlined (format/xxh3.h): features are short (a 3-shingle of words is some 20 bytes), and a
// call into the shared library, with its dispatch on the length, cost English text 6% of its
// fingerprinting time.

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_set>

#include "fingerprint/bit_counts.h"
#include "fingerprint/normalize.h"
#include "fingerprint/segment.h"
#include "fingerprint/utf8.h"
#include "format/xxh3.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"

namespace simdex {

namespace {

// The stopword set of step 4: each entry through steps 1 and 2, distinct, in ascending byte order.
std::vector<std::string> normalized_stopwords(const std::vector<std::string>& words,
                                              text::Normalizer& normalizer) {
  std::vector<std::string> out;
  std::string repaired, normalized;
  for (const std::string& word : words) {
    std::string_view valid = word;
    if (!text::is_valid_utf8(word)) {
      text::repair_utf8(word, repaired);
      valid = repaired;
    }
    normalizer.normalize(valid, normalized);
    out.push_back(normalized);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void check_shingle_size(unsigned shingle_size) {
  if (shingle_size < 1 || shingle_size > FingerprintOptions::max_shingle_size)
    throw Error(errc::usage, "shingle size must be 1.." +
                                 std::to_string(FingerprintOptions::max_shingle_size) + ", not " +
                                 std::to_string(shingle_size));
}

}  // namespace

struct Fingerprinter::Impl {
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return XXH3_64bits(s.data(), s.size()); }
  };
  using StopSet = std::unordered_set<std::string, StringHash, std::equal_to<>>;

  // Step 4's output: the kept tokens joined by one U+0020, and where each ends. A token is copied 16
  // bytes at once where it and the source allow (the bytes past it are overwritten by the next),
  // into room checked once a token: std::string's append called memcpy and checked its capacity twice.
  class JoinedTokens {
   public:
    void clear() {
      size_ = 0;
      ends_.clear();
    }

    // Appends `token`, which lies within a text that ends at `source_end`.
    void append(std::string_view token, const char* source_end) {
      constexpr std::size_t kCopy = 16;
      if (size_ + 1 + token.size() + kCopy > capacity_) grow(size_ + 1 + token.size() + kCopy);
      char* out = bytes_.get() + size_;
      if (size_ != 0) *out++ = ' ';
      if (token.size() <= kCopy && static_cast<std::size_t>(source_end - token.data()) >= kCopy)
        std::memcpy(out, token.data(), kCopy);
      else
        std::memcpy(out, token.data(), token.size());
      size_ = static_cast<std::size_t>(out - bytes_.get()) + token.size();
      ends_.push_back(size_);
    }

    std::string_view view() const { return {bytes_.get(), size_}; }
    const std::vector<std::size_t>& ends() const { return ends_; }  // end offset of each token

   private:
    void grow(std::size_t need) {
      const std::size_t capacity = std::max(need, 2 * capacity_);
      auto bytes = std::make_unique_for_overwrite<char[]>(capacity);
      if (size_ != 0) std::memcpy(bytes.get(), bytes_.get(), size_);
      bytes_ = std::move(bytes);
      capacity_ = capacity;
    }

    std::unique_ptr<char[]> bytes_;
    std::size_t size_ = 0, capacity_ = 0;
    std::vector<std::size_t> ends_;
  };

  FingerprintOptions options;
  text::Normalizer normalizer;
  StopSet stopwords;

  std::string repaired;               // step 1 output, only for ill-formed input
  std::string normalized;             // step 2 output
  std::vector<std::size_t> offsets;   // segmentation scratch
  JoinedTokens tokens;                // step 4 output
  std::vector<std::uint64_t> hashes;  // step 5 output, one per feature occurrence

  // Steps 1-4: leaves the kept tokens in `tokens`.
  void tokenize(std::string_view text) {
    std::string_view valid = text;
    if (!text::is_valid_utf8(text)) {
      text::repair_utf8(text, repaired);
      valid = repaired;
    }
    normalizer.normalize(valid, normalized);
    tokens.clear();
    const char* end = normalized.data() + normalized.size();
    text::for_each_token(normalized, offsets, [this, end](std::string_view token) {
      if (!stopwords.empty() && stopwords.find(token) != stopwords.end()) return;
      tokens.append(token, end);
    });
  }

  // Step 5: calls f(feature bytes) for each feature occurrence, in order.
  template <class F>
  void for_each_feature(F&& f) const {
    const std::vector<std::size_t>& ends = tokens.ends();
    const std::string_view joined = tokens.view();
    const std::size_t n = ends.size();
    if (n == 0) return;
    const std::size_t w = options.shingle_size;
    if (n < w) {  // fewer tokens than a shingle: the whole token sequence is the one feature
      f(joined);
      return;
    }
    for (std::size_t i = 0; i + w <= n; ++i) {
      const std::size_t b = i == 0 ? 0 : ends[i - 1] + 1;  // where token i starts
      f(joined.substr(b, ends[i + w - 1] - b));
    }
  }

  std::uint64_t fingerprint(std::string_view text) {
    tokenize(text);
    hashes.clear();
    for_each_feature([this](std::string_view f) { hashes.push_back(XXH3_64bits(f.data(), f.size())); });
    if (options.weighting == Weighting::binary) {
      std::sort(hashes.begin(), hashes.end());
      hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
    }
    return text::majority_bits(hashes);
  }
};

Fingerprinter::Fingerprinter(FingerprintOptions options) : impl_(std::make_unique<Impl>()) {
  check_shingle_size(options.shingle_size);
  for (std::string& word : normalized_stopwords(options.stopwords, impl_->normalizer))
    impl_->stopwords.insert(std::move(word));
  impl_->options = std::move(options);
}

FingerprintSettings fingerprint_settings(const FingerprintOptions& options) {
  check_shingle_size(options.shingle_size);
  text::Normalizer normalizer;
  FingerprintSettings s;
  s.shingle_size = options.shingle_size;
  s.weighting = options.weighting;
  s.stopwords = normalized_stopwords(options.stopwords, normalizer);
  return s;
}

Fingerprinter::~Fingerprinter() = default;
Fingerprinter::Fingerprinter(Fingerprinter&&) noexcept = default;
Fingerprinter& Fingerprinter::operator=(Fingerprinter&&) noexcept = default;

std::uint64_t Fingerprinter::fingerprint(std::string_view utf8) { return impl_->fingerprint(utf8); }

std::vector<std::string> Fingerprinter::features(std::string_view utf8) {
  impl_->tokenize(utf8);
  std::vector<std::string> out;
  impl_->for_each_feature([&out](std::string_view f) { out.emplace_back(f); });
  return out;
}

const FingerprintOptions& Fingerprinter::options() const { return impl_->options; }

std::string stopword_problem(std::string_view word) {
  text::Normalizer normalizer;
  const std::string entry = normalized_stopwords({std::string(word)}, normalizer).front();
  const std::vector<std::string> tokens = Fingerprinter(FingerprintOptions{.shingle_size = 1}).features(word);
  if (tokens.size() == 1 && tokens.front() == entry) return {};
  // A message names at most 80 bytes of the entry and 8 of its tokens, cut where a code point starts.
  const auto quoted = [](std::string_view s) {
    constexpr std::size_t kShown = 80;
    if (s.size() <= kShown) return "\"" + std::string(s) + "\"";
    std::size_t cut = kShown;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return "\"" + std::string(s.substr(0, cut)) + "...\"";
  };
  std::string out = quoted(word);
  if (tokens.empty()) {
    out += " has no letter, mark or number: it is no token";
  } else if (tokens.size() == 1) {
    out += " holds separators around its one token " + quoted(tokens.front());
  } else {
    out += " is " + std::to_string(tokens.size()) + " tokens:";
    constexpr std::size_t kTokensShown = 8;
    for (std::size_t t = 0; t < tokens.size() && t < kTokensShown; ++t) out += " " + quoted(tokens[t]);
    if (tokens.size() > kTokensShown) out += " ...";
  }
  return out + "; it never matches (a stopword is one word: spec/FINGERPRINT.md step 4)";
}

std::uint64_t fingerprint(std::string_view utf8, const FingerprintOptions& options) {
  return Fingerprinter(options).fingerprint(utf8);
}

}  // namespace simdex
