// samples/nerf-tiny: an implicit neural representation of one 64×64 picture
// (tensorgrad/models/nerf_tiny.h: Fourier features of (x, y) with 8 frequencies π·2^k, an MLP
// 32 → 64 → 64 → 64 → 3 with a sigmoid, MSE, Adam 1e-3) fitted on batches of 1024 random pixels
// of a scene the app draws itself (scene.h, upstream's default picture). The view is rendered
// through the predictor attached at every pixel, as main.ts does. Pictures: the loss curve and
// ground truth | rendered view | error, with the PSNR.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <tensorgrad/models/nerf_tiny.h>
#include "scene.h"
#include "support/app.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/train_loop.h"

namespace {

using tg_models::NerfTiny;
using tg_models::NerfTinyConfig;

// tests/parity/cases/nerf_tiny.cpp's synthetic target: red and green ramps, blue a disc.
std::vector<float> parityTarget(const NerfTinyConfig& c) {
  std::vector<float> out;
  for (int64_t row = 0; row < c.imageH; ++row)
    for (int64_t col = 0; col < c.imageW; ++col) {
      const double w = static_cast<double>(c.imageW), h = static_cast<double>(c.imageH);
      const double x = 2 * (static_cast<double>(col) + 0.5) / w - 1, y = 2 * (static_cast<double>(row) + 0.5) / h - 1;
      out.push_back(static_cast<float>((static_cast<double>(col) + 0.5) / w));
      out.push_back(static_cast<float>((static_cast<double>(row) + 0.5) / h));
      out.push_back(x * x + y * y < 0.5 ? 1.f : 0.2f);
    }
  return out;
}

// `batch` random pixels (one draw each) of `target` with their coordinates.
tg::Feed pixelBatch(const NerfTinyConfig& c, tg::Mulberry32& rng, const std::vector<float>& grid,
                    const std::vector<float>& target, const std::vector<float>& freqs) {
  std::vector<float> coords(static_cast<size_t>(2 * c.batch)), rgb(static_cast<size_t>(3 * c.batch));
  for (size_t b = 0; b < static_cast<size_t>(c.batch); ++b) {
    const auto idx = static_cast<size_t>(rng.next() * static_cast<double>(c.pixels()));
    for (size_t k = 0; k < 2; ++k) coords[b * 2 + k] = grid.at(idx * 2 + k);
    for (size_t k = 0; k < 3; ++k) rgb[b * 3 + k] = target.at(idx * 3 + k);
  }
  return {{"coords", std::move(coords)}, {"rgb", std::move(rgb)}, {"freqs", freqs}};
}

// An [h, w, 3] picture in [0, 1] as an image, each pixel `scale`² screen pixels.
tg_samples::Image toImage(const std::vector<float>& rgb, int64_t w, int64_t h, int scale) {
  tg_samples::Image im(static_cast<int>(w) * scale, static_cast<int>(h) * scale);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      tg_samples::Color c;
      for (size_t k = 0; k < 3; ++k)
        c[k] = static_cast<uint8_t>(std::lround(255 * std::clamp(rgb.at(static_cast<size_t>((y * w + x) * 3) + k), 0.f, 1.f)));
      im.fillRect(static_cast<int>(x) * scale, static_cast<int>(y) * scale, scale, scale, c);
    }
  return im;
}

int run(tg_samples::CommonOptions& o, NerfTinyConfig c) {
  const bool parity = !o.parityGolden.empty();
  if (parity) {
    // tests/parity/cases/nerf_tiny.cpp: 16×16, batch 256, 4 frequencies, hidden 16, seed 9, pixels from Mulberry32(15).
    c = {.imageW = 16, .imageH = 16, .batch = 256, .freqs = 4, .hidden = 16, .seed = 9};
    o.steps = tg_samples::goldenSteps(o.parityGolden);
  } else {
    c.seed = o.seed;
  }
  const std::vector<float> target = parity ? parityTarget(c) : tg_samples::nerf::renderScene(c.imageW, c.imageH);
  const std::string adapter = tg_samples::startApp(o);
  NerfTiny model(c);
  auto train = tg::compile(tg_models::nerfTinySpec(model, c), tg_samples::runtimeOptions(o));
  const std::vector<float> freqs = tg_models::nerfFreqs(c), grid = tg_models::nerfGridCoords(c);
  tg::Mulberry32 rng(parity ? 15 : o.seed ^ 0x9e3779b9u);
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) { return pixelBatch(c, rng, grid, target, freqs); });
  if (parity) return tg_samples::compareWithGolden(o.parityGolden, stats.losses);

  auto render = train.attach({.forward = tg_models::nerfTinyPredict, .inputs = tg_models::nerfTinyPredictInputs(c)});
  const std::vector<float> view = tg_samples::checkRun(render.run({{"coords", grid}, {"freqs", freqs}}).get(), "render").f32();
  if (view.size() != target.size()) throw std::runtime_error("render: unexpected output size");
  double mse = 0;
  std::vector<float> error(view.size());
  for (size_t i = 0; i < view.size(); ++i) {
    const double d = view[i] - target[i];
    mse += d * d / static_cast<double>(view.size());
    error[i] = static_cast<float>(std::min(1.0, 4 * std::abs(d)));
  }
  const double psnr = 10 * std::log10(1 / std::max(mse, 1e-12));
  std::printf("final loss %.6g after %d steps (%.1f ms/step); rendered view: MSE %.6g, PSNR %.2f dB\n",
              static_cast<double>(stats.finalLoss()), o.steps, stats.msPerStep(), mse, psnr);

  tg_samples::Results results("nerf_tiny", o, adapter);
  results.loop(stats);
  results.metric("renderMse", mse);
  results.metric("psnrDb", psnr);
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "NERF-TINY: PIXEL MSE");
  results.picture("loss.png", "training loss per step");
  const int scale = 4, gap = 12;
  const int side = static_cast<int>(c.imageW) * scale, tall = static_cast<int>(c.imageH) * scale;
  tg_samples::Image pic(3 * side + 4 * gap, tall + 44);
  char title[96];
  std::snprintf(title, sizeof title, "GROUND TRUTH | RENDERED (PSNR %.1f DB) | ERROR X4", psnr);
  pic.text(gap, 8, title, tg_samples::colors::black);
  pic.blit(toImage(target, c.imageW, c.imageH, scale), gap, 30);
  pic.blit(toImage(view, c.imageW, c.imageH, scale), 2 * gap + side, 30);
  pic.blit(toImage(error, c.imageW, c.imageH, scale), 3 * gap + 2 * side, 30);
  tg_samples::writePng(o.out / "view.png", pic);
  results.picture("view.png", "the scene, the network's rendering of every pixel, and 4 x |error|");
  std::printf("wrote %s, loss.png, view.png\n", results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's nerf-tiny sample (an MLP on Fourier features fitting a 64x64 picture) on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 1000, .seed = 42, .out = "out/nerf_tiny"};
  tg_samples::addCommonOptions(app, o);
  NerfTinyConfig c;  // upstream's sizes
  app.add_option("--batch", c.batch, "random pixels per step (upstream: 1024)")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_option("--hidden", c.hidden, "hidden width (upstream: 64)")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{4096}));
  app.add_option("--size", c.imageW, "image width and height (upstream: 64)")->capture_default_str()->check(CLI::Range(int64_t{16}, int64_t{512}));
  CLI11_PARSE(app, argc, argv);
  c.imageH = c.imageW;
  return tg_samples::runMain([&] { return run(o, c); });
}
