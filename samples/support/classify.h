// Test accuracy and the confusion matrix of an image classifier, through a forward that takes
// fixed-size batches (the last one padded with blank images whose outputs are dropped).
#pragma once

#include <functional>
#include <vector>

#include "fashion_mnist.h"

namespace tg_samples {

struct Classification {
  int64_t evaluated = 0, correct = 0;
  std::vector<int64_t> confusion;  // [classes, classes]: true class rows, predicted columns
  double accuracy() const { return evaluated ? static_cast<double>(correct) / static_cast<double>(evaluated) : 0; }
};

// `predict(pixels)` gets `batch` images ([batch, rows·cols]) and returns [batch, classes] scores
// (logits or probabilities: the argmax is what counts). The first `count` images of `set`.
Classification classify(const ImageSet& set, int64_t count, int64_t batch, int64_t classes,
                        const std::function<std::vector<float>(std::vector<float>)>& predict);

}  // namespace tg_samples
