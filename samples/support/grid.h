// Pictures made of small grey images (samples, reconstructions) and labelled matrices
// (confusion matrices).
#pragma once

#include <string>
#include <vector>

#include "image.h"

namespace tg_samples {

struct GridSpec {
  int64_t tileH = 28, tileW = 28;  // one image's size
  int cols = 8;
  int scale = 2;                   // pixels per image pixel
  int gap = 2;
  std::string title;
  std::vector<std::string> rowLabels;  // optional, one per row, drawn left of it
};

// `images` holds n = images.size() / (tileH·tileW) grey images, values in [0, 1] (clamped),
// laid out row-major in `cols` columns. Throws std::invalid_argument when the size does not divide.
Image imageGrid(const std::vector<float>& images, const GridSpec& spec);

// An n×n matrix as coloured cells with the values printed in them, rows labelled on the left and
// columns along the top (counts: a confusion matrix with true classes as rows).
Image matrixPicture(const std::vector<int64_t>& values, int n, const std::vector<std::string>& labels,
                    const std::string& title, const std::string& rowAxis, const std::string& colAxis);

}  // namespace tg_samples
