#include "format/fingerprint_settings.h"

#include <algorithm>
#include <string>

#include "format/endian.h"
#include "format/tagged_sections.h"
#include "simdex/error.h"

namespace simdex::format {

namespace {

constexpr std::size_t kFixedBytes = 16;  // version, shingle, weighting, reserved, count, reserved

[[noreturn]] void bad(const std::string& why) {
  throw Error(errc::bad_tagged_section, "FINGERPRINT_SETTINGS: " + why);
}

}  // namespace

std::vector<uint8_t> encode_fingerprint_settings(const FingerprintSettings& s) {
  if (s.shingle_size < 1 || s.shingle_size > FingerprintOptions::max_shingle_size)
    throw Error(errc::usage, "shingle size " + std::to_string(s.shingle_size) + " out of range");
  uint64_t end = kFixedBytes;
  for (const std::string& w : s.stopwords) end += 4 + w.size();
  if (pad8(end) > kMaxFingerprintSettingsBytes)
    throw Error(errc::usage, "the stopword list takes more than 1 MiB in the index (spec/FORMAT.md §5.2)");
  std::vector<uint8_t> out(pad8(end), 0);
  store_le32(out.data(), s.fingerprint_version);
  out[4] = static_cast<uint8_t>(s.shingle_size);
  out[5] = s.weighting == Weighting::binary ? 1 : 0;
  store_le32(out.data() + 8, static_cast<uint32_t>(s.stopwords.size()));
  uint8_t* p = out.data() + kFixedBytes;
  for (const std::string& w : s.stopwords) {
    store_le32(p, static_cast<uint32_t>(w.size()));
    std::copy(w.begin(), w.end(), p + 4);
    p += 4 + w.size();
  }
  return out;
}

FingerprintSettings decode_fingerprint_settings(std::span<const uint8_t> bytes) {
  if (bytes.size() > kMaxFingerprintSettingsBytes) bad("more than 1 MiB");
  if (bytes.size() < kFixedBytes) bad(std::to_string(bytes.size()) + " bytes, fewer than 16");
  const uint8_t* in = bytes.data();
  FingerprintSettings s;
  s.fingerprint_version = load_le32(in);
  s.shingle_size = in[4];
  if (s.shingle_size < 1 || s.shingle_size > FingerprintOptions::max_shingle_size)
    bad("shingle_size " + std::to_string(s.shingle_size) + " not in [1, 16]");
  if (in[5] > 1) bad("weighting " + std::to_string(in[5]) + " is neither 0 nor 1");
  s.weighting = in[5] == 1 ? Weighting::binary : Weighting::frequency;
  if (load_le16(in + 6) != 0 || load_le32(in + 12) != 0) bad("reserved bytes not zero");
  const uint32_t count = load_le32(in + 8);
  std::size_t at = kFixedBytes;  // every read below stays within bytes.size()
  for (uint32_t i = 0; i < count; ++i) {
    if (bytes.size() - at < 4) bad("stopword " + std::to_string(i) + " runs past the section");
    const uint32_t length = load_le32(in + at);
    at += 4;
    if (length == 0) bad("stopword " + std::to_string(i) + " is empty");
    if (length > bytes.size() - at) bad("stopword " + std::to_string(i) + " runs past the section");
    std::string word(reinterpret_cast<const char*>(in + at), length);
    at += length;
    if (!s.stopwords.empty() && word <= s.stopwords.back())
      bad("stopword " + std::to_string(i) + " is not above the previous one (ascending, each once)");
    s.stopwords.push_back(std::move(word));
  }
  if (bytes.size() != pad8(at))
    bad(std::to_string(bytes.size()) + " bytes, the entries end at " + std::to_string(at) +
        " (padded to a multiple of 8)");
  if (!std::all_of(in + at, in + bytes.size(), [](uint8_t b) { return b == 0; })) bad("padding not zero");
  return s;
}

}  // namespace simdex::format
