// SHA-256 as lowercase hex, for tests comparing parameters with the digests REFERENCE.md lists
// for upstream (the implementation is the parity library's).
#pragma once

#include <string>
#include <vector>

#include "tensorgrad/parity.h"

namespace tg_test {

inline std::string sha256Hex(const uint8_t* data, size_t size) {
  return tg::parity::sha256Hex(data, size);
}
inline std::string sha256Hex(const std::vector<float>& values) {
  return tg::parity::sha256Hex(values.data(), values.size() * sizeof(float));  // little-endian host
}

}  // namespace tg_test
