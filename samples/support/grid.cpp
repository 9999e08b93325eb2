#include "grid.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tg_samples {

Image imageGrid(const std::vector<float>& images, const GridSpec& s) {
  const int64_t per = s.tileH * s.tileW;
  if (per <= 0 || s.cols <= 0 || s.scale <= 0 || images.empty() || images.size() % static_cast<size_t>(per) != 0)
    throw std::invalid_argument("imageGrid: " + std::to_string(images.size()) + " values are not whole " +
                                std::to_string(s.tileH) + "x" + std::to_string(s.tileW) + " images");
  const auto n = static_cast<int>(images.size() / static_cast<size_t>(per));
  const int rows = (n + s.cols - 1) / s.cols;
  int labelW = 0;
  for (const std::string& l : s.rowLabels) labelW = std::max(labelW, Image::textWidth(l) + 8);
  const int tw = static_cast<int>(s.tileW) * s.scale, th = static_cast<int>(s.tileH) * s.scale;
  const int top = s.title.empty() ? s.gap : 24;
  Image img(labelW + s.cols * (tw + s.gap) + s.gap, top + rows * (th + s.gap), colors::white);
  if (!s.title.empty()) img.text((img.width() - Image::textWidth(s.title, 2)) / 2, 4, s.title, colors::black, 2);
  for (int i = 0; i < n; ++i) {
    const int gx = labelW + s.gap + (i % s.cols) * (tw + s.gap), gy = top + (i / s.cols) * (th + s.gap);
    for (int64_t yy = 0; yy < s.tileH; ++yy) {
      for (int64_t xx = 0; xx < s.tileW; ++xx) {
        const float v = images[static_cast<size_t>(i * per + yy * s.tileW + xx)];
        const auto g = static_cast<uint8_t>(std::lround(255 * std::clamp(std::isfinite(v) ? v : 0.f, 0.f, 1.f)));
        img.fillRect(gx + static_cast<int>(xx) * s.scale, gy + static_cast<int>(yy) * s.scale, s.scale, s.scale, {g, g, g});
      }
    }
  }
  for (size_t r = 0; r < s.rowLabels.size() && static_cast<int>(r) < rows; ++r)
    img.text(4, top + static_cast<int>(r) * (th + s.gap) + th / 2 - 3, s.rowLabels[r], colors::black);
  return img;
}

Image matrixPicture(const std::vector<int64_t>& values, int n, const std::vector<std::string>& labels,
                    const std::string& title, const std::string& rowAxis, const std::string& colAxis) {
  if (n <= 0 || values.size() != static_cast<size_t>(n) * static_cast<size_t>(n))
    throw std::invalid_argument("matrixPicture: " + std::to_string(values.size()) + " values for a " + std::to_string(n) + "x" + std::to_string(n) + " matrix");
  constexpr int kCell = 40;
  int labelW = 0;
  for (const std::string& l : labels) labelW = std::max(labelW, Image::textWidth(l) + 10);
  const int left = labelW + 16, top = 60;
  Image img(left + n * kCell + 10, top + n * kCell + 10);
  img.text((img.width() - Image::textWidth(title, 2)) / 2, 4, title, colors::black, 2);
  img.text(left, 26, colAxis, colors::black);
  img.text(2, top - 12, rowAxis, colors::black);
  const int64_t maxV = std::max<int64_t>(1, *std::max_element(values.begin(), values.end()));
  for (int r = 0; r < n; ++r) {
    if (static_cast<size_t>(r) < labels.size()) img.text(left - 6 - Image::textWidth(labels[static_cast<size_t>(r)]), top + r * kCell + kCell / 2 - 3, labels[static_cast<size_t>(r)], colors::black);
    for (int c = 0; c < n; ++c) {
      const int64_t v = values[static_cast<size_t>(r * n + c)];
      const double t = std::sqrt(static_cast<double>(v) / static_cast<double>(maxV));
      img.fillRect(left + c * kCell, top + r * kCell, kCell - 1, kCell - 1, rampColor(t));
      const std::string s = std::to_string(v);
      img.text(left + c * kCell + (kCell - Image::textWidth(s)) / 2, top + r * kCell + kCell / 2 - 3, s, t > 0.5 ? colors::white : colors::black);
    }
  }
  for (int c = 0; c < n; ++c) {  // column labels: the first characters, to fit a cell
    if (static_cast<size_t>(c) >= labels.size()) break;
    const std::string s = labels[static_cast<size_t>(c)].substr(0, 6);
    img.text(left + c * kCell + (kCell - Image::textWidth(s)) / 2, top - 12, s, colors::black);
  }
  return img;
}

}  // namespace tg_samples
