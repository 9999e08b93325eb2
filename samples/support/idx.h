// The IDX format of (Fashion-)MNIST: a big-endian header — two zero bytes, a type byte, a
// dimension count, one u32 per dimension — then the values row-major. Files may be gzipped
// (Debian ships them as .gz). Only unsigned bytes (type 0x08), the type of every MNIST file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace tg_samples {

struct IdxArray {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;  // product(dims) bytes
};

// Reads a .idx or gzipped .idx file. Throws DataError naming the file and the byte offset (in the
// uncompressed stream) of the first thing wrong: bad magic, an unsupported type, a zero or
// overflowing size, truncation, trailing bytes, a corrupt gzip stream. A missing file throws
// DataError too; callers that know the package turn that into MissingData.
IdxArray readIdx(const std::filesystem::path& path);

}  // namespace tg_samples
