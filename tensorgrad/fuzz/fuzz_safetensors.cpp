// libFuzzer target over the safetensors parser: any input must end in either SafetensorsData or
// a std::invalid_argument — never a crash, a hang, a sanitizer report or another exception.
// Whatever it accepts must also keep the format's promises (checked below).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>

#include "tensorgrad/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const tg::SafetensorsData out = tg::loadSafetensors(std::span<const uint8_t>(data, size));
    size_t bytes = 0;
    for (const auto& [name, values] : out.tensors) {
      int64_t n = 1;
      for (int64_t d : out.shapes.at(name)) n *= d;  // accepted shapes never overflow
      if (static_cast<size_t>(n) != values.size()) std::abort();
      bytes += values.size() * 4;
    }
    if (bytes > size) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
