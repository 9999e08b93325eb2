#include "tensorgrad/safetensors.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

namespace tg {

namespace {
[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument("loadSafetensors: " + message);
}
}  // namespace

SafetensorsData loadSafetensors(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8) fail("buffer too small to hold the 8-byte header length");
  uint64_t headerLen = 0;
  std::memcpy(&headerLen, bytes.data(), 8);  // little-endian, as the format and our hosts are
  if (headerLen > bytes.size() - 8) {
    fail("header length " + std::to_string(headerLen) + " exceeds the buffer (" +
         std::to_string(bytes.size()) + " bytes)");
  }
  const uint64_t dataStart = 8 + headerLen;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + static_cast<std::ptrdiff_t>(dataStart));
  } catch (const std::exception& e) {
    fail(std::string("the header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail("the header is not a JSON object");
  static const std::set<std::string> integers = {"I64", "I32", "I16", "I8", "U8",
                                                 "U16", "U32", "U64", "BOOL"};
  SafetensorsData out;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    try {
      const std::string dtype = entry.at("dtype").get<std::string>();
      const Shape shape = entry.at("shape").get<Shape>();
      const auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
      out.shapes[name] = shape;
      if (dtype != "F32") {
        if (integers.count(dtype)) {
          out.skipped[name] = dtype;
          continue;
        }
        fail("tensor '" + name + "' has dtype " + dtype +
             "; tensorgrad is f32-only: convert the checkpoint to F32 before loading");
      }
      if (offsets.size() != 2 || offsets[0] > offsets[1] ||
          offsets[1] > bytes.size() - dataStart) {
        fail("tensor '" + name + "' has data_offsets out of range");
      }
      const uint64_t want = static_cast<uint64_t>(shapeSize(shape)) * 4;
      if (offsets[1] - offsets[0] != want) {
        fail("tensor '" + name + "' has " + std::to_string(offsets[1] - offsets[0]) +
             " bytes, but shape " + showShape(shape) + " needs " + std::to_string(want));
      }
      std::vector<float> values(static_cast<size_t>(want / 4));
      std::memcpy(values.data(), bytes.data() + dataStart + offsets[0], want);
      out.tensors[name] = std::move(values);
    } catch (const nlohmann::json::exception& e) {
      fail("tensor '" + name + "' has a malformed header entry: " + e.what());
    }
  }
  return out;
}

SafetensorsData loadSafetensors(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::invalid_argument("loadSafetensors: cannot open " + file.string());
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return loadSafetensors(bytes);
}

}  // namespace tg
