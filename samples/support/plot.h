// Line and scatter plots with axes, ticks, labels and a legend; the loss curve every app draws.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "image.h"

namespace tg_samples {

struct Series {
  std::string label;  // empty: not in the legend
  std::vector<double> x, y;
  Color color = colors::blue;
  bool scatter = false;  // dots instead of a line
  int width = 2;
};

struct Plot {
  std::string title, xLabel, yLabel;
  bool logY = false;  // non-positive values are left out
  std::optional<std::pair<double, double>> xRange, yRange;  // default: the data's
  std::vector<Series> series;
};

// Draws `plot` into the rectangle (x, y, w, h) of `image`.
void drawPlot(Image& image, int x, int y, int w, int h, const Plot& plot);
Image renderPlot(const Plot& plot, int w = 640, int h = 420);

// "Nice" tick positions (1, 2 or 5 × 10^k apart) covering [lo, hi], about `count` of them.
std::vector<double> niceTicks(double lo, double hi, int count = 6);

// loss.png: the per-step loss (light) and its moving average (dark) against the step, on a log
// scale when the losses span more than a factor of 20.
void writeLossCurve(const std::filesystem::path& path, const std::vector<float>& losses, const std::string& title);

}  // namespace tg_samples
