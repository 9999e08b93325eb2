// main.ts's makeBatch for makemore: `c.batch` words, each '.'-framed and '.'-padded to the model's
// positions as token / next-token pairs, with a mask over the predicted positions 0..len
// normalised to sum to 1 over the batch. The app feeds real words; the parity case random names.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include <tensorgrad/models/makemore.h>

namespace tg_models {

// `length()` gives the next word's length and `letter(i)` its i-th letter (1..26), called in order.
inline tg::Feed makemoreBatch(const MakemoreConfig& c, const std::function<size_t()>& length,
                              const std::function<int32_t(size_t)>& letter) {
  const int64_t b = c.batch, t = c.t();
  std::vector<int32_t> tokens(static_cast<size_t>(b * t)), targets(tokens.size());
  std::vector<float> mask(tokens.size(), 0.f);
  std::vector<int32_t> full(static_cast<size_t>(c.seqLen));
  int valid = 0;
  for (int64_t bi = 0; bi < b; ++bi) {
    const size_t len = length();
    std::fill(full.begin(), full.end(), 0);
    for (size_t i = 0; i < len && static_cast<int64_t>(i + 1) < c.seqLen; ++i) full[i + 1] = letter(i);
    const int64_t lastValid = std::min(static_cast<int64_t>(len), t - 1);
    for (int64_t j = 0; j < t; ++j) {
      const auto at = static_cast<size_t>(bi * t + j);
      tokens[at] = full[static_cast<size_t>(j)];
      targets[at] = full[static_cast<size_t>(j + 1)];
      if (j <= lastValid) {
        mask[at] = 1.f;
        ++valid;
      }
    }
  }
  const double inv = 1.0 / valid;
  for (float& m : mask) m = static_cast<float>(static_cast<double>(m) * inv);
  return {{"tokens", std::move(tokens)}, {"targets", std::move(targets)}, {"mask", std::move(mask)}};
}

}  // namespace tg_models
