// Folds whose kernel stands at one op (its place) and computes others that then run no kernel of
// their own: causal attention (fold_attention.h) and a softmax computed by its product
// (fold_row_softmax.h).
#pragma once

#include <cstddef>
#include <vector>

namespace tg::detail {

template <class Fold>
struct PlacedFolds {
  std::vector<int> at;       // by op index: the fold whose kernel stands there, else -1
  std::vector<bool> folded;  // by op index: computed by a fold's kernel standing elsewhere
  std::vector<Fold> folds;

  PlacedFolds() = default;
  explicit PlacedFolds(size_t ops) : at(ops, -1), folded(ops, false) {}

  // Op `m` is in no fold yet.
  bool free(int m) const {
    return !folded[static_cast<size_t>(m)] && at[static_cast<size_t>(m)] < 0;
  }
  // `fold`'s kernel stands at `place` and computes `ops` (the place among them or not).
  void add(Fold fold, int place, const std::vector<int>& ops) {
    at[static_cast<size_t>(place)] = static_cast<int>(folds.size());
    for (const int m : ops)
      if (m != place) folded[static_cast<size_t>(m)] = true;
    folds.push_back(std::move(fold));
  }
};

}  // namespace tg::detail
