#include "classify.h"

#include <algorithm>
#include <stdexcept>

namespace tg_samples {

Classification classify(const ImageSet& set, int64_t count, int64_t batch, int64_t classes,
                        const std::function<std::vector<float>(std::vector<float>)>& predict) {
  count = std::min(count, set.count);
  if (batch <= 0 || classes <= 0) throw std::invalid_argument("classify: batch and classes must be positive");
  Classification c;
  c.confusion.assign(static_cast<size_t>(classes * classes), 0);
  const int64_t per = set.pixelsPerImage();
  for (int64_t start = 0; start < count; start += batch) {
    const int64_t n = std::min(batch, count - start);
    std::vector<float> x(static_cast<size_t>(batch * per), 0.f);
    std::copy_n(set.pixels.begin() + start * per, n * per, x.begin());
    const std::vector<float> scores = predict(std::move(x));
    if (static_cast<int64_t>(scores.size()) != batch * classes)
      throw std::runtime_error("classify: the forward returned " + std::to_string(scores.size()) + " values, expected " +
                               std::to_string(batch * classes));
    for (int64_t i = 0; i < n; ++i) {
      const auto row = scores.begin() + i * classes;
      const auto guess = static_cast<int64_t>(std::max_element(row, row + classes) - row);
      const int32_t truth = set.labels[static_cast<size_t>(start + i)];
      c.correct += guess == truth ? 1 : 0;
      ++c.confusion[static_cast<size_t>(truth * classes + guess)];
      ++c.evaluated;
    }
  }
  return c;
}

}  // namespace tg_samples
