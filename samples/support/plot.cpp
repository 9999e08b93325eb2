#include "plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tg_samples {

std::vector<double> niceTicks(double lo, double hi, int count) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  const double raw = (hi - lo) / std::max(count - 1, 1);
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  // The 1, 2 or 5 × 10^k step whose tick count is closest to `count`.
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (std::abs((hi - lo) / (m * mag) - (count - 1)) < std::abs((hi - lo) / step - (count - 1))) step = m * mag;
  }
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9 && ticks.size() < 50; t += step)
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

namespace {

std::string tickLabel(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

void drawPlot(Image& img, int x, int y, int w, int h, const Plot& plot) {
  // Data ranges.
  auto ty = [&](double v) { return plot.logY ? std::log10(v) : v; };
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const Series& s : plot.series) {
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (plot.logY && s.y[i] <= 0)) continue;
      xlo = std::min(xlo, s.x[i]);
      xhi = std::max(xhi, s.x[i]);
      ylo = std::min(ylo, ty(s.y[i]));
      yhi = std::max(yhi, ty(s.y[i]));
    }
  }
  if (plot.xRange) std::tie(xlo, xhi) = *plot.xRange;
  if (plot.yRange) {
    ylo = ty(plot.yRange->first);
    yhi = ty(plot.yRange->second);
  }
  if (!std::isfinite(xlo) || !std::isfinite(xhi)) xlo = 0, xhi = 1;
  if (!std::isfinite(ylo) || !std::isfinite(yhi)) ylo = 0, yhi = 1;
  if (xhi <= xlo) xhi = xlo + 1;
  if (yhi <= ylo) {
    const double pad = std::max(std::abs(ylo) * 0.1, 1e-6);
    ylo -= pad, yhi += pad;
  }
  if (!plot.yRange) {
    const double pad = (yhi - ylo) * 0.05;
    ylo -= pad, yhi += pad;
  }
  // Frame: room for the title above, tick labels and the axis labels left and below.
  const int left = x + 58, right = x + w - 12, top = y + (plot.title.empty() ? 10 : 26), bottom = y + h - 36;
  if (right - left < 20 || bottom - top < 20) return;
  auto px = [&](double v) { return left + (v - xlo) / (xhi - xlo) * (right - left); };
  auto py = [&](double v) { return bottom - (v - ylo) / (yhi - ylo) * (bottom - top); };
  if (!plot.title.empty()) img.text(x + (w - Image::textWidth(plot.title, 2)) / 2, y + 4, plot.title, colors::black, 2);
  // Grid and ticks.
  for (double t : niceTicks(xlo, xhi)) {
    const int gx = static_cast<int>(std::lround(px(t)));
    img.line(gx, top, gx, bottom, colors::lightGrey);
    const std::string s = tickLabel(t);
    img.text(gx - Image::textWidth(s) / 2, bottom + 5, s, colors::black);
  }
  std::vector<double> yt;
  if (plot.logY) {
    for (double e = std::floor(ylo); e <= std::ceil(yhi); e += 1) {
      if (e >= ylo && e <= yhi) yt.push_back(e);
      for (double m : {2.0, 5.0}) {
        const double v = e + std::log10(m);
        if (v >= ylo && v <= yhi && (yhi - ylo) < 3) yt.push_back(v);
      }
    }
    if (yt.size() < 2) yt = niceTicks(ylo, yhi);
  } else {
    yt = niceTicks(ylo, yhi);
  }
  for (double t : yt) {
    const int gy = static_cast<int>(std::lround(py(t)));
    img.line(left, gy, right, gy, colors::lightGrey);
    const std::string s = tickLabel(plot.logY ? std::pow(10, t) : t);
    img.text(left - 5 - Image::textWidth(s), gy - 3, s, colors::black);
  }
  img.line(left, top, left, bottom, colors::black);
  img.line(left, bottom, right, bottom, colors::black);
  if (!plot.xLabel.empty()) img.text((left + right - Image::textWidth(plot.xLabel)) / 2, bottom + 18, plot.xLabel, colors::black);
  if (!plot.yLabel.empty()) img.text(x + 2, top - 12 + (plot.title.empty() ? 6 : 0), plot.yLabel, colors::black);
  // Series, clipped to the frame.
  auto inside = [&](double a, double b) { return a >= left - 1 && a <= right + 1 && b >= top - 1 && b <= bottom + 1; };
  for (const Series& s : plot.series) {
    bool havePrev = false;
    double prevX = 0, prevY = 0;
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (plot.logY && s.y[i] <= 0)) {
        havePrev = false;
        continue;
      }
      const double cx = px(s.x[i]), cy = py(ty(s.y[i]));
      if (s.scatter) {
        if (inside(cx, cy)) img.fillRect(static_cast<int>(cx) - s.width / 2, static_cast<int>(cy) - s.width / 2, s.width, s.width, s.color);
      } else if (havePrev && inside(cx, cy) && inside(prevX, prevY)) {
        img.line(prevX, prevY, cx, cy, s.color, s.width);
      }
      havePrev = true;
      prevX = cx, prevY = cy;
    }
  }
  // Legend, top right.
  int ly = top + 6;
  for (const Series& s : plot.series) {
    if (s.label.empty()) continue;
    const int lx = right - 8 - Image::textWidth(s.label) - 22;
    img.fillRect(lx - 4, ly - 3, Image::textWidth(s.label) + 30, 13, colors::white);
    img.fillRect(lx, ly + 2, 16, 3, s.color);
    img.text(lx + 20, ly, s.label, colors::black);
    ly += 14;
  }
}

Image renderPlot(const Plot& plot, int w, int h) {
  Image img(w, h);
  drawPlot(img, 0, 0, w, h, plot);
  return img;
}

void writeLossCurve(const std::filesystem::path& path, const std::vector<float>& losses, const std::string& title) {
  Series raw{.label = "loss", .color = colors::lightBlue, .width = 1};
  Series avg{.label = "moving average", .color = colors::blue, .width = 2};
  const size_t window = std::max<size_t>(1, losses.size() / 50);
  double sum = 0, lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (size_t i = 0; i < losses.size(); ++i) {
    const double v = losses[i];
    raw.x.push_back(static_cast<double>(i));
    raw.y.push_back(v);
    sum += v;
    if (i >= window) sum -= losses[i - window];
    avg.x.push_back(static_cast<double>(i));
    avg.y.push_back(sum / static_cast<double>(std::min(i + 1, window)));
    if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  Plot p{.title = title, .xLabel = "step", .yLabel = "loss", .logY = hi > 20 * lo && lo > 0};
  p.series = {raw, avg};
  writePng(path, renderPlot(p));
}

}  // namespace tg_samples
