// An RGB raster with the few drawing primitives the plots need (pixels, rectangles, lines, 5×7
// text), written out as PNG through libpng.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace tg_samples {

using Color = std::array<uint8_t, 3>;
namespace colors {
inline constexpr Color white{255, 255, 255}, black{0, 0, 0}, grey{150, 150, 150}, lightGrey{225, 225, 225},
    blue{50, 100, 210}, red{215, 45, 40}, green{40, 150, 60}, orange{240, 140, 20}, purple{140, 70, 170},
    lightBlue{170, 195, 240};
}  // namespace colors
// The i-th colour of a small qualitative palette (series colours).
Color paletteColor(size_t i);
// A value in [0, 1] on a white → dark blue ramp (heatmaps).
Color rampColor(double t);

class Image {
 public:
  // Throws std::invalid_argument unless 0 < w, h ≤ 16384.
  Image(int w, int h, Color background = colors::white);
  int width() const { return w_; }
  int height() const { return h_; }
  void set(int x, int y, Color c);  // clipped
  Color at(int x, int y) const;     // throws std::out_of_range outside
  void fillRect(int x, int y, int w, int h, Color c);
  void line(double x0, double y0, double x1, double y1, Color c, int thickness = 1);
  void text(int x, int y, std::string_view s, Color c, int scale = 1);  // top-left at (x, y)
  static int textWidth(std::string_view s, int scale = 1);
  static int textHeight(int scale = 1) { return 7 * scale; }
  // Pastes `src` with its top-left at (x, y), clipped.
  void blit(const Image& src, int x, int y);
  const std::vector<uint8_t>& rgb() const { return rgb_; }

 private:
  int w_, h_;
  std::vector<uint8_t> rgb_;
};

// Throws std::runtime_error naming the file when libpng cannot write it.
void writePng(const std::filesystem::path& path, const Image& image);

}  // namespace tg_samples
