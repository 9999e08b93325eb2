// Uniform random f32 inputs in [-1, 1) for kernel tests and benches, reproducible by seed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace test_support {

inline std::vector<float> uniformValues(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace test_support
