// samples/kan-tiny at upstream's sizes (cases/kan_tiny.mjs is the upstream side).
#include <cmath>

#include <tensorgrad/models/kan_tiny.h>
#include <tensorgrad/models/taylor_trig.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

using tg_models::sinSeries;

const tg_models::KanConfig kConfig{.grid = 5, .degree = 3, .hidden = 4, .batch = 256, .seed = 42};
constexpr int64_t kPlotPoints = 200;

// main.ts's makeBatch: x uniform in [-1, 1), y = sin(πx).
tg::Feed sineBatch(tg::Mulberry32& rng) {
  std::vector<float> x(static_cast<size_t>(kConfig.batch)), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = rng.next() * 2 - 1;
    x[i] = static_cast<float>(v);
    y[i] = static_cast<float>(sinSeries(M_PI * v));
  }
  return {{"x", std::move(x)}, {"y", std::move(y)}};
}

// main.ts's plot grid: 200 points from -1 to 1.
tg::Feed plotGrid(tg::Mulberry32&) {
  std::vector<float> x(static_cast<size_t>(kPlotPoints));
  for (int64_t i = 0; i < kPlotPoints; ++i)
    x[static_cast<size_t>(i)] = static_cast<float>(-1.0 + 2.0 * static_cast<double>(i) /
                                                              static_cast<double>(kPlotPoints - 1));
  return {{"x", std::move(x)}};
}

Recorded run(const tg::RuntimeOptions& options) {
  tg_models::Kan model(kConfig);
  std::vector<ForwardProbe<tg_models::Kan>> forwards;
  forwards.push_back({"predict", tg_models::kanPredictor(), plotGrid});
  return recordTraining(tg_models::kanSpec(model, kConfig), 30, 13, sineBatch, std::move(forwards),
                        options);
}

const Registrar registrar({"kan_tiny", run});

}  // namespace
}  // namespace tg_parity
