#include "scene.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "support/image.h"

namespace tg_samples::nerf {

std::vector<float> renderScene(int64_t w, int64_t h) {
  if (w < 16 || h < 16 || w > 4096 || h > 4096)
    throw std::invalid_argument("nerf scene: " + std::to_string(w) + "×" + std::to_string(h) +
                                " is outside 16×16 to 4096×4096");
  constexpr double inner[3] = {0xf9, 0x73, 0x16}, outer[3] = {0x1e, 0x29, 0x3b};
  const double cx = static_cast<double>(w) / 2, cy = static_cast<double>(h) / 2;
  const double r0 = 4, r1 = static_cast<double>(w) * 0.7;
  Image image(static_cast<int>(w), static_cast<int>(h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double r = std::hypot(x + 0.5 - cx, y + 0.5 - cy);
      const double t = std::clamp((r - r0) / (r1 - r0), 0.0, 1.0);
      Color c;
      for (size_t k = 0; k < 3; ++k) c[k] = static_cast<uint8_t>(std::lround(inner[k] + t * (outer[k] - inner[k])));
      image.set(x, y, c);
    }
  const std::string word = "TENSORGRAD";
  image.text((static_cast<int>(w) - Image::textWidth(word)) / 2, (static_cast<int>(h) - Image::textHeight()) / 2, word,
             colors::white);
  std::vector<float> rgb(image.rgb().size());
  std::transform(image.rgb().begin(), image.rgb().end(), rgb.begin(), [](uint8_t v) { return static_cast<float>(v) / 255.f; });
  return rgb;
}

}  // namespace tg_samples::nerf
