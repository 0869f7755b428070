#include "reader/mapped_file.h"

#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>
#include <filesystem>
#include <system_error>

#include "simdex/error.h"

namespace simdex::reader {

namespace bip = boost::interprocess;

struct MappedFile::Impl {
  bip::file_mapping file;
  bip::mapped_region region;
};

MappedFile::MappedFile(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw Error(errc::io, "cannot open index '" + path + "': no such file");
  if (!std::filesystem::is_regular_file(status)) throw Error(errc::io, "index '" + path + "' is not a regular file");
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) throw Error(errc::io, "cannot stat index '" + path + "': " + ec.message());
  if (bytes == 0) return;  // nothing to map; the parser reports the file as too small
  try {
    impl_ = std::make_unique<Impl>();
    impl_->file = bip::file_mapping(path.c_str(), bip::read_only);
    impl_->region = bip::mapped_region(impl_->file, bip::read_only);
  } catch (const bip::interprocess_exception& e) {
    throw Error(errc::io, "cannot map index '" + path + "': " + e.what());
  }
  data_ = static_cast<const uint8_t*>(impl_->region.get_address());
  size_ = impl_->region.get_size();
  advise(Access::random);
}

void MappedFile::advise(Access access) const {
  // Advice only: a kernel that declines it changes the speed, never the answers.
  if (impl_)
    impl_->region.advise(access == Access::random ? bip::mapped_region::advice_random : bip::mapped_region::advice_sequential);
}

MappedFile::~MappedFile() = default;

}  // namespace simdex::reader
