#include "idx.h"

#include <zlib.h>

#include <limits>
#include <memory>
#include <string>

#include "errors.h"

namespace tg_samples {

namespace {

// A file read through zlib (gzopen reads plain files as they are), counting bytes read.
class Reader {
 public:
  explicit Reader(const std::filesystem::path& path) : path_(path), file_(gzopen(path.c_str(), "rb"), gzclose) {
    if (!file_) throw DataError(path.string() + ": cannot open");
  }
  // Exactly n bytes, or DataError naming `what` and where the data stopped.
  void read(void* dst, size_t n, const char* what) {
    const size_t got = readSome(dst, n);
    if (got < n) {
      fail("truncated: " + std::string(what) + " needs " + std::to_string(n) + " bytes, the file ends after " +
           std::to_string(got));
    }
    offset_ += n;
  }
  // Appends exactly n bytes to `out`, growing it as data arrives (a corrupt header cannot make
  // us allocate more than the file holds).
  void append(std::vector<uint8_t>& out, uint64_t n, const char* what) {
    constexpr uint64_t kChunk = uint64_t{1} << 20;
    uint64_t got = 0;
    while (got < n) {
      const auto want = static_cast<size_t>(std::min(n - got, kChunk));
      const size_t at = out.size();
      out.resize(at + want);
      const size_t r = readSome(out.data() + at, want);
      out.resize(at + r);
      got += r;
      if (r < want) {
        fail("truncated: " + std::string(what) + " needs " + std::to_string(n) + " bytes, the file ends after " +
             std::to_string(got));
      }
    }
    offset_ += n;
  }
  bool atEnd() {
    uint8_t b;
    return readSome(&b, 1) == 0;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw DataError(path_.string() + ": byte " + std::to_string(offset_) + ": " + why);
  }
  uint64_t offset() const { return offset_; }

 private:
  // Up to n bytes; fewer only at the end of the data. A corrupt or cut-off gzip stream throws.
  size_t readSome(uint8_t* dst, size_t n) {
    size_t got = 0;
    while (got < n) {
      const auto chunk = static_cast<unsigned>(std::min<size_t>(n - got, size_t{1} << 30));
      const int r = gzread(file_.get(), dst + got, chunk);
      if (r <= 0) {
        int code = Z_OK;
        const char* message = gzerror(file_.get(), &code);
        if (code != Z_OK && code != Z_STREAM_END) {
          offset_ += got;
          fail(std::string(code == Z_BUF_ERROR ? "truncated compressed data" : "corrupt compressed data") + " (zlib: " +
               message + ")");
        }
        break;
      }
      got += static_cast<size_t>(r);
    }
    return got;
  }
  size_t readSome(void* dst, size_t n) { return readSome(static_cast<uint8_t*>(dst), n); }

  std::filesystem::path path_;
  std::unique_ptr<gzFile_s, decltype(&gzclose)> file_;
  uint64_t offset_ = 0;
};

}  // namespace

IdxArray readIdx(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw DataError(path.string() + ": no such file");
  Reader in(path);
  uint8_t magic[4];
  in.read(magic, 4, "the magic number");
  if (magic[0] != 0 || magic[1] != 0) {
    throw DataError(path.string() + ": byte 0: not an IDX file (magic starts " + std::to_string(magic[0]) + " " +
                    std::to_string(magic[1]) + ", expected 0 0)");
  }
  if (magic[2] != 0x08) {
    throw DataError(path.string() + ": byte 2: IDX type 0x" + [&] {
      char b[8];
      std::snprintf(b, sizeof b, "%02x", magic[2]);
      return std::string(b);
    }() + " is not supported (only unsigned bytes, 0x08)");
  }
  const int ndims = magic[3];
  if (ndims < 1 || ndims > 4) throw DataError(path.string() + ": byte 3: " + std::to_string(ndims) + " dimensions (expected 1 to 4)");
  IdxArray a;
  uint64_t total = 1;
  for (int d = 0; d < ndims; ++d) {
    const uint64_t at = in.offset();
    uint8_t b[4];
    in.read(b, 4, "a dimension");
    const uint32_t n = (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
    if (n == 0) throw DataError(path.string() + ": byte " + std::to_string(at) + ": dimension " + std::to_string(d) + " is 0");
    // 2^34 bytes (16 GiB) is far beyond any IDX file and keeps the product from overflowing.
    if (total > (uint64_t{1} << 34) / n)
      throw DataError(path.string() + ": byte " + std::to_string(at) + ": the dimensions' product is too large");
    total *= n;
    a.dims.push_back(n);
  }
  if (total > std::numeric_limits<size_t>::max()) throw DataError(path.string() + ": too large for this machine");
  a.data.reserve(static_cast<size_t>(std::min<uint64_t>(total, uint64_t{64} << 20)));
  in.append(a.data, total, "the data");
  if (!in.atEnd()) in.fail("trailing bytes after " + std::to_string(total) + " values");
  return a;
}

}  // namespace tg_samples
