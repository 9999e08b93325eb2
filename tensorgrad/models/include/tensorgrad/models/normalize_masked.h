// The variance reduction upstream's REINFORCE samples (cartpole, tic-tac-toe) apply to their
// per-slot weights: over the slots the mask keeps, subtract the mean and divide by the standard
// deviation (population, plus 1e-8), in double as main.ts computes it in JS numbers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tg_models {

inline void normalizeMasked(std::vector<float>& values, const std::vector<float>& mask) {
  int64_t count = 0;
  double sum = 0;
  for (size_t i = 0; i < values.size(); ++i)
    if (mask[i] != 0.f) sum += static_cast<double>(values[i]), ++count;
  const double mean = count > 0 ? sum / static_cast<double>(count) : 0;
  double var = 0;
  for (size_t i = 0; i < values.size(); ++i)
    if (mask[i] != 0.f) var += (static_cast<double>(values[i]) - mean) * (static_cast<double>(values[i]) - mean);
  const double sd = std::sqrt(var / static_cast<double>(std::max<int64_t>(1, count))) + 1e-8;
  for (size_t i = 0; i < values.size(); ++i)
    if (mask[i] != 0.f) values[i] = static_cast<float>((static_cast<double>(values[i]) - mean) / sd);
}

}  // namespace tg_models
