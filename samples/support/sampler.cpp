#include "sampler.h"

#include <numeric>
#include <stdexcept>

namespace tg_samples {

BatchSampler::BatchSampler(size_t count, uint32_t seed) : rng_(seed), order_(count) {
  if (count == 0) throw std::invalid_argument("BatchSampler: an empty data set");
  std::iota(order_.begin(), order_.end(), size_t{0});
  shuffle();
}

void BatchSampler::shuffle() {
  for (size_t i = order_.size() - 1; i > 0; --i) {
    const auto j = static_cast<size_t>(rng_.next() * static_cast<double>(i + 1));
    std::swap(order_[i], order_[j]);
  }
}

std::vector<size_t> BatchSampler::next(size_t batch) {
  std::vector<size_t> out;
  out.reserve(batch);
  while (out.size() < batch) {
    if (cursor_ == order_.size()) {
      shuffle();
      cursor_ = 0;
      ++epoch_;
    }
    out.push_back(order_[cursor_++]);
  }
  return out;
}

ImageBatch gather(const ImageSet& set, const std::vector<size_t>& indices) {
  const auto per = static_cast<size_t>(set.pixelsPerImage());
  ImageBatch b;
  b.pixels.reserve(indices.size() * per);
  for (size_t i : indices) {
    if (i >= static_cast<size_t>(set.count)) throw std::out_of_range("gather: image " + std::to_string(i) + " of " + std::to_string(set.count));
    b.pixels.insert(b.pixels.end(), set.pixels.begin() + static_cast<ptrdiff_t>(i * per),
                    set.pixels.begin() + static_cast<ptrdiff_t>((i + 1) * per));
    b.labels.push_back(set.labels[i]);
  }
  return b;
}

}  // namespace tg_samples
