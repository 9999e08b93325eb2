// samples/nerf-tiny at small sizes (cases/nerf_tiny.mjs is the upstream side; it says why these).
#include <tensorgrad/models/nerf_tiny.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

using tg_models::NerfTiny;

const tg_models::NerfTinyConfig kConfig{
    .imageW = 16, .imageH = 16, .batch = 256, .freqs = 4, .hidden = 16, .seed = 9};

// The synthetic target: red and green ramps, blue a disc; RGB per pixel, row-major.
std::vector<float> targetImage(const tg_models::NerfTinyConfig& c) {
  std::vector<float> out;
  for (int64_t row = 0; row < c.imageH; ++row) {
    for (int64_t col = 0; col < c.imageW; ++col) {
      const double w = static_cast<double>(c.imageW), h = static_cast<double>(c.imageH);
      const double x = 2 * (static_cast<double>(col) + 0.5) / w - 1;
      const double y = 2 * (static_cast<double>(row) + 0.5) / h - 1;
      out.push_back(static_cast<float>((static_cast<double>(col) + 0.5) / w));
      out.push_back(static_cast<float>((static_cast<double>(row) + 0.5) / h));
      out.push_back(x * x + y * y < 0.5 ? 1.f : 0.2f);
    }
  }
  return out;
}

Recorded run(const tg::RuntimeOptions& options) {
  const tg_models::NerfTinyConfig& c = kConfig;
  NerfTiny model(c);
  const std::vector<float> freqs = tg_models::nerfFreqs(c);
  const std::vector<float> grid = tg_models::nerfGridCoords(c);
  const std::vector<float> target = targetImage(c);
  std::vector<ForwardProbe<NerfTiny>> forwards;
  forwards.push_back({"render",
                      {.forward = tg_models::nerfTinyPredict, .inputs = tg_models::nerfTinyPredictInputs(c)},
                      [&](tg::Mulberry32&) { return tg::Feed{{"coords", grid}, {"freqs", freqs}}; }});
  return recordTraining(tg_models::nerfTinySpec(model, c), 20, 15,
                        [&](tg::Mulberry32& rng) {
                          std::vector<float> coords(static_cast<size_t>(2 * c.batch));
                          std::vector<float> rgb(static_cast<size_t>(3 * c.batch));
                          for (size_t b = 0; b < static_cast<size_t>(c.batch); ++b) {
                            const auto idx = static_cast<size_t>(rng.next() * static_cast<double>(c.pixels()));
                            for (size_t k = 0; k < 2; ++k) coords[b * 2 + k] = grid[idx * 2 + k];
                            for (size_t k = 0; k < 3; ++k) rgb[b * 3 + k] = target[idx * 3 + k];
                          }
                          return tg::Feed{{"coords", std::move(coords)}, {"rgb", std::move(rgb)}, {"freqs", freqs}};
                        },
                        std::move(forwards), options);
}

const Registrar registrar({"nerf_tiny", run});

}  // namespace
}  // namespace tg_parity
