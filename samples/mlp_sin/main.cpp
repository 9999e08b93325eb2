// samples/mlp-sin: the README's sine MLP (tensorgrad/models/mlp_sin.h) — 1 → 64 → 64 → 1 with ReLU,
// MSE, Adam 0.005, batches of 256 points x ∈ [−π, π) drawn from Mulberry32(7) (upstream's data
// protocol), parameter seed 42. Pictures: the loss curve and the fit against sin x.
#include <cmath>
#include <cstdio>
#include <numbers>

#include <tensorgrad/models/mlp_sin.h>
#include "support/app.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/train_loop.h"

namespace {

constexpr int64_t kBatch = 256;
constexpr uint32_t kDataSeed = 7;

int run(tg_samples::CommonOptions& o) {
  const bool parity = !o.parityGolden.empty();
  if (parity) {
    o.steps = tg_samples::goldenSteps(o.parityGolden);
    o.seed = 42;  // tests/parity/cases/mlp_sin.cpp: the sample's own configuration
  }
  const std::string adapter = tg_samples::startApp(o);
  tg_models::MLP model;
  tg::TrainingSpec<tg_models::MLP> spec = tg_models::mlpSpec(model, kBatch);
  spec.seed = o.seed;
  auto train = tg::compile(spec, tg_samples::runtimeOptions(o));

  tg::Mulberry32 data(kDataSeed);
  const tg_samples::LoopStats stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) {
    tg_models::SineBatch b = tg_models::sineBatch(data, kBatch);
    return tg::Feed{{"x", std::move(b.x)}, {"y", std::move(b.y)}};
  });
  if (parity) return tg_samples::compareWithGolden(o.parityGolden, stats.losses);

  // The fit on 200 evenly spaced points, through the attached B = null forward.
  constexpr int kPoints = 200;
  std::vector<float> xs(kPoints);
  for (int i = 0; i < kPoints; ++i)
    xs[static_cast<size_t>(i)] = static_cast<float>(-std::numbers::pi + 2 * std::numbers::pi * i / (kPoints - 1));
  auto predict = train.attach({.forward = [](const tg_models::MLP& m, const tg::Inputs& in) { return tg_models::mlpForward(m, in["x"]); },
                               .inputs = {{"x", {{tg::null, 1}}}}});
  const std::vector<float> fit = tg_samples::checkRun(predict.run({{"x", xs}}).get(), "predict").f32();
  double mse = 0;
  tg_samples::Series truth{.label = "sin x", .color = tg_samples::colors::blue, .width = 3};
  tg_samples::Series fitted{.label = "fit", .color = tg_samples::colors::red, .width = 1};
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i], y = std::sin(x);
    mse += (fit[i] - y) * (fit[i] - y) / kPoints;
    truth.x.push_back(x), truth.y.push_back(y);
    fitted.x.push_back(x), fitted.y.push_back(fit[i]);
  }
  std::printf("final loss %.9g after %d steps (%.3f ms/step); MSE on a 200-point grid %.6g\n",
              static_cast<double>(stats.finalLoss()), o.steps, stats.msPerStep(), mse);

  tg_samples::Results results("mlp_sin", o, adapter);
  results.loop(stats);
  results.metric("gridMse", mse);
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "MLP-SIN: TRAINING LOSS (MSE)");
  results.picture("loss.png", "training loss per step");
  tg_samples::writePng(o.out / "fit.png",
                       tg_samples::renderPlot({.title = "SIN X AND THE MLP'S FIT", .xLabel = "x", .yLabel = "y",
                                               .series = {truth, fitted}}));
  results.picture("fit.png", "sin x (blue) and the trained MLP's prediction (red) on [-pi, pi]");
  std::printf("wrote %s, loss.png, fit.png\n", results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's mlp-sin sample (1-64-64-1 MLP fitting sin x) on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 1000, .seed = 42, .out = "out/mlp_sin"};
  tg_samples::addCommonOptions(app, o);
  CLI11_PARSE(app, argc, argv);
  return tg_samples::runMain([&] { return run(o); });
}
