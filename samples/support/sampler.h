// Epoch-shuffled mini-batches over a data set, deterministic for a seed: each epoch is a fresh
// Fisher–Yates permutation drawn from Mulberry32(seed), as upstream's samples shuffle.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <vector>

#include "fashion_mnist.h"

namespace tg_samples {

class BatchSampler {
 public:
  BatchSampler(size_t count, uint32_t seed);  // throws std::invalid_argument when count is 0
  std::vector<size_t> next(size_t batch);     // the next `batch` indices, crossing epochs
  size_t epoch() const { return epoch_; }

 private:
  void shuffle();
  tg::Mulberry32 rng_;
  std::vector<size_t> order_;
  size_t cursor_ = 0, epoch_ = 0;
};

// The pixels ([n, rows·cols]) and labels ([n]) of the images at `indices`.
struct ImageBatch {
  std::vector<float> pixels;
  std::vector<int32_t> labels;
};
ImageBatch gather(const ImageSet& set, const std::vector<size_t>& indices);

}  // namespace tg_samples
