#include "image.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tg_samples {

Color paletteColor(size_t i) {
  constexpr Color kPalette[] = {colors::blue, colors::red, colors::green, colors::orange, colors::purple,
                                {30, 160, 170}, {200, 80, 150}, {120, 120, 40}};
  return kPalette[i % std::size(kPalette)];
}

Color rampColor(double t) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  auto mix = [&](double a, double b) { return static_cast<uint8_t>(std::lround(a + (b - a) * t)); };
  return {mix(255, 20), mix(255, 50), mix(255, 140)};
}

Image::Image(int w, int h, Color background) : w_(w), h_(h) {
  if (w <= 0 || h <= 0 || w > 16384 || h > 16384)
    throw std::invalid_argument("image size " + std::to_string(w) + "x" + std::to_string(h) + " is not in 1..16384");
  rgb_.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
  for (size_t i = 0; i < rgb_.size(); i += 3) std::copy(background.begin(), background.end(), rgb_.begin() + static_cast<ptrdiff_t>(i));
}

void Image::set(int x, int y, Color c) {
  if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
  std::copy(c.begin(), c.end(), rgb_.begin() + (static_cast<ptrdiff_t>(y) * w_ + x) * 3);
}

Color Image::at(int x, int y) const {
  if (x < 0 || y < 0 || x >= w_ || y >= h_) throw std::out_of_range("pixel outside the image");
  const auto* p = rgb_.data() + (static_cast<size_t>(y) * static_cast<size_t>(w_) + static_cast<size_t>(x)) * 3;
  return {p[0], p[1], p[2]};
}

void Image::fillRect(int x, int y, int w, int h, Color c) {
  const int x0 = std::max(x, 0), y0 = std::max(y, 0), x1 = std::min(x + w, w_), y1 = std::min(y + h, h_);
  for (int yy = y0; yy < y1; ++yy) {
    for (int xx = x0; xx < x1; ++xx) set(xx, yy, c);
  }
}

void Image::line(double x0, double y0, double x1, double y1, Color c, int thickness) {
  if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1)) return;
  const double len = std::max(std::abs(x1 - x0), std::abs(y1 - y0));
  if (len > 4 * (w_ + h_)) return;  // far off the picture: not worth walking
  const int n = std::max(1, static_cast<int>(std::ceil(len)));
  const int r0 = -(thickness - 1) / 2, r1 = thickness / 2;
  for (int i = 0; i <= n; ++i) {
    const double t = static_cast<double>(i) / n;
    const int x = static_cast<int>(std::lround(x0 + (x1 - x0) * t)), y = static_cast<int>(std::lround(y0 + (y1 - y0) * t));
    for (int dy = r0; dy <= r1; ++dy) {
      for (int dx = r0; dx <= r1; ++dx) set(x + dx, y + dy, c);
    }
  }
}

void Image::blit(const Image& src, int x, int y) {
  for (int yy = 0; yy < src.h_; ++yy) {
    for (int xx = 0; xx < src.w_; ++xx) set(x + xx, y + yy, src.at(xx, yy));
  }
}

void writePng(const std::filesystem::path& path, const Image& image) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width());
  png.height = static_cast<png_uint_32>(image.height());
  png.format = PNG_FORMAT_RGB;
  if (png_image_write_to_file(&png, path.c_str(), 0, image.rgb().data(), image.width() * 3, nullptr) == 0) {
    const std::string why = png.message;
    png_image_free(&png);
    throw std::runtime_error("cannot write " + path.string() + ": " + why);
  }
}

}  // namespace tg_samples
