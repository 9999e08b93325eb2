// Reading .safetensors checkpoints into uploadParams-ready f32 arrays.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace tg {

struct SafetensorsData {
  std::map<std::string, std::vector<float>> tensors{};  // every F32 tensor
  // Every tensor's shape (a tg::Shape), skipped ones included. This header stands alone (no
  // ir.h) so the parser also builds by itself, for its fuzzer.
  std::map<std::string, std::vector<int64_t>> shapes{};
  std::map<std::string, std::string> skipped{};       // integer/bool tensors: name → dtype
};

// Follows the format strictly (an 8-byte little-endian header length, a JSON object header,
// entries {dtype, shape, data_offsets} whose [begin, end) ranges tile the data section in order
// with no holes, overlaps or trailing bytes, each shape product x dtype size bytes, and an
// optional "__metadata__" string map). Throws std::invalid_argument naming the problem and the
// tensor: a truncated file, a header length past the file, bad header JSON, a negative,
// fractional or overflowing dim, an unknown dtype, offsets out of order, overlapping or leaving
// a hole, a size that does not match the shape, or a float dtype other than F32 (convert
// f16/bf16 checkpoints offline). The path overload throws it too for a missing file, a directory
// or another non-regular file, and a read error.
SafetensorsData loadSafetensors(std::span<const uint8_t> bytes);
SafetensorsData loadSafetensors(const std::filesystem::path& file);

}  // namespace tg
