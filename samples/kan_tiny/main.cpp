// samples/kan-tiny: the Kolmogorov-Arnold network of tensorgrad/models/kan_tiny.h (1 → 4 → 1, every
// edge a cubic B-spline on 8 knots plus a SiLU residual) fitting y = sin(πx) on [−1, 1) with MSE
// and Adam 0.005, batches of 256 points drawn from Mulberry32 as upstream's main.ts. Pictures: the
// loss curve, target against fit on 200 points (through the attached B = null forward), and the
// learned spline part of every edge, evaluated on the host from the downloaded coefficients.
#include <cmath>
#include <cstdio>
#include <numbers>

#include <tensorgrad/models/kan_tiny.h>
#include <tensorgrad/models/taylor_trig.h>
#include "support/app.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/train_loop.h"

namespace {

using tg_models::sinSeries;

using tg_models::Kan;
using tg_models::KanConfig;

constexpr int kPoints = 200;

// main.ts's makeBatch: x uniform in [−1, 1), y = sin(πx).
tg::Feed sineBatch(tg::Mulberry32& rng, int64_t batch) {
  std::vector<float> x(static_cast<size_t>(batch)), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = rng.next() * 2 - 1;
    x[i] = static_cast<float>(v);
    y[i] = static_cast<float>(sinSeries(std::numbers::pi * v));
  }
  return {{"x", std::move(x)}, {"y", std::move(y)}};
}

// The uniform cubic B-spline N(u) on the host (the model's kanBsplineBasis).
double basis(double u) {
  const double a = std::abs(u);
  if (a < 1) return 0.5 * a * a * a - a * a + 2.0 / 3.0;
  if (a < 2) return (2 - a) * (2 - a) * (2 - a) / 6;
  return 0;
}

// The spline part of edge (o, i) of a layer with coefficients C [O, I, knots] at x ∈ [−1, 1].
double edgeSpline(const std::vector<float>& C, int64_t inputs, int64_t knots, int64_t o, int64_t i, double x) {
  const double xs = (x + 1) * static_cast<double>(knots - 1) / 2;
  double sum = 0;
  for (int64_t k = 0; k < knots; ++k)
    sum += C.at(static_cast<size_t>((o * inputs + i) * knots + k)) * basis(xs - static_cast<double>(k));
  return sum;
}

const std::vector<float>& param(const tg::ParamMap& params, const std::string& name) {
  const auto it = params.find(name);
  if (it == params.end()) throw std::runtime_error("downloaded parameters lack '" + name + "'");
  return it->second;
}

// edges.png: layer 1's edges (x → hidden o) on the top row, layer 2's (hidden i → y) below.
void writeEdges(const std::filesystem::path& path, const tg::ParamMap& params, const KanConfig& c) {
  const std::vector<float>& c1 = param(params, "l1.C");
  const std::vector<float>& c2 = param(params, "l2.C");
  const int cols = static_cast<int>(c.hidden), panelW = 220, panelH = 170;
  tg_samples::Image image(cols * panelW, 2 * panelH + 24);
  image.text(8, 8, "LEARNED EDGE SPLINES - TOP: LAYER 1, X TO HIDDEN, BOTTOM: LAYER 2, HIDDEN TO Y",
             tg_samples::colors::black);
  for (int row = 0; row < 2; ++row)
    for (int e = 0; e < cols; ++e) {
      tg_samples::Series s{.color = tg_samples::colors::blue};
      for (int j = 0; j < 60; ++j) {
        const double x = -1 + 2.0 * j / 59;
        s.x.push_back(x);
        s.y.push_back(row == 0 ? edgeSpline(c1, 1, c.knots(), e, 0, x) : edgeSpline(c2, c.hidden, c.knots(), 0, e, x));
      }
      const std::string title = row == 0 ? "L1: X -> H" + std::to_string(e) : "L2: H" + std::to_string(e) + " -> Y";
      tg_samples::drawPlot(image, e * panelW, 24 + row * panelH, panelW, panelH, {.title = title, .series = {s}});
    }
  tg_samples::writePng(path, image);
}

int run(tg_samples::CommonOptions& o) {
  const bool parity = !o.parityGolden.empty();
  if (parity) {
    o.steps = tg_samples::goldenSteps(o.parityGolden);
    o.seed = 42;  // tests/parity/cases/kan_tiny.cpp: upstream's sizes, parameter seed 42, data seed 13
  }
  const std::string adapter = tg_samples::startApp(o);
  const KanConfig c{.seed = o.seed};
  Kan model(c);
  auto train = tg::compile(tg_models::kanSpec(model, c), tg_samples::runtimeOptions(o));
  tg::Mulberry32 data(parity ? 13 : o.seed ^ 0x9e3779b9u);
  const tg_samples::LoopStats stats =
      tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) { return sineBatch(data, c.batch); });
  if (parity) return tg_samples::compareWithGolden(o.parityGolden, stats.losses);

  auto predict = train.attach(tg_models::kanPredictor());
  std::vector<float> xs(kPoints);
  for (int i = 0; i < kPoints; ++i) xs[static_cast<size_t>(i)] = static_cast<float>(-1.0 + 2.0 * i / (kPoints - 1));
  const std::vector<float> fit = tg_samples::checkRun(predict.run({{"x", xs}}).get(), "predict").f32();
  double mse = 0;
  tg_samples::Series truth{.label = "sin(pi x)", .color = tg_samples::colors::blue, .width = 3};
  tg_samples::Series fitted{.label = "KAN fit", .color = tg_samples::colors::red, .width = 1};
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i], y = std::sin(std::numbers::pi * x);
    mse += (fit.at(i) - y) * (fit.at(i) - y) / kPoints;
    truth.x.push_back(x), truth.y.push_back(y);
    fitted.x.push_back(x), fitted.y.push_back(fit[i]);
  }
  std::printf("final loss %.6g after %d steps (%.2f ms/step); MSE on a 200-point grid %.6g\n",
              static_cast<double>(stats.finalLoss()), o.steps, stats.msPerStep(), mse);

  tg_samples::Results results("kan_tiny", o, adapter);
  results.loop(stats);
  results.metric("gridMse", mse);
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "KAN-TINY: TRAINING LOSS (MSE)");
  results.picture("loss.png", "training loss per step");
  tg_samples::writePng(o.out / "fit.png",
                       tg_samples::renderPlot({.title = "SIN(PI X) AND THE KAN'S FIT", .xLabel = "x", .yLabel = "y",
                                               .series = {truth, fitted}}));
  results.picture("fit.png", "target sin(pi x) (blue) and the KAN's prediction (red) on [-1, 1]");
  writeEdges(o.out / "edges.png", train.downloadParams().get(), c);
  results.picture("edges.png", "the spline part of every learned edge function over [-1, 1]");
  std::printf("wrote %s, loss.png, fit.png, edges.png\n", results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's kan-tiny sample (a Kolmogorov-Arnold network fitting sin(pi x)) on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 1000, .seed = 42, .out = "out/kan_tiny"};
  tg_samples::addCommonOptions(app, o);
  CLI11_PARSE(app, argc, argv);
  return tg_samples::runMain([&] { return run(o); });
}
