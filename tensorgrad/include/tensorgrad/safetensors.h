// Reading .safetensors checkpoints into uploadParams-ready f32 arrays.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "tensorgrad/ir.h"

namespace tg {

struct SafetensorsData {
  std::map<std::string, std::vector<float>> tensors;  // every F32 tensor
  std::map<std::string, Shape> shapes;                // every tensor, skipped ones included
  std::map<std::string, std::string> skipped;         // integer/bool tensors: name → dtype
};

// Throws std::invalid_argument naming the problem: a truncated file, bad header JSON, offsets
// out of range, a size that does not match the shape, or a float dtype other than F32 (convert
// f16/bf16 checkpoints offline).
SafetensorsData loadSafetensors(std::span<const uint8_t> bytes);
SafetensorsData loadSafetensors(const std::filesystem::path& file);

}  // namespace tg
