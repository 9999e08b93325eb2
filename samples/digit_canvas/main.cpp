// samples/digit-canvas: the MLP classifier behind upstream's draw-a-digit page
// (tensorgrad/models/digit_canvas.h: 784 → hidden → 10, ReLU, dropout 0.1 in training, cross-entropy,
// AdamW with weight decay 0.01 and clipping at norm 1), trained on Fashion-MNIST in shuffled
// batches of 64, weights at He's scale (--init-gain; upstream's N(0, 0.02²) with 0). As main.ts
// does from its controls, the app changes the run between phases:
//   1. hidden --hidden at --lr for --steps;
//   2. setLR(--lr2) and --steps/2 more steps of the same model;
//   3. replaceModel with hidden --hidden2 (a fresh model, same loss and optimizer), setLR(--lr),
//      --steps steps;
//   4. setLR(--lr2) again and --steps/2 more (1.8 points for the replaced model on lavapipe's
//      default run; phase 2's lower rate adds 0.5 to the first).
// After each phase it evaluates the test set through the attached predictor (parametric batch,
// here 256) and plays the canvas: a stream of single images sent to the same predictor at B = 1
// through tg::singleFlight without waiting (latest wins: superseded calls come back aborted), then
// one image at a time to check that B = 1 and B = 256 predict the same classes.
// Pictures: the loss curve over all phases and the canvas images with their predictions.
#include <tensorgrad/single_flight.h>

#include <algorithm>
#include <cstdio>

#include <tensorgrad/models/digit_canvas.h>
#include "support/app.h"
#include "support/classify.h"
#include "support/grid.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/sampler.h"
#include "support/train_loop.h"

namespace {

using tg_models::DigitCanvasConfig;
using tg_models::DigitMlp;

// tests/parity/cases/digit_canvas.cpp: hidden 16, batch 16, seed 7, synthetic pixels and labels
// from Mulberry32(13).
int parityRun(tg_samples::CommonOptions& o) {
  const DigitCanvasConfig c{.inputDim = 784, .hidden = 16, .classes = 10, .batch = 16, .evalBatch = 32, .seed = 7};
  o.steps = tg_samples::goldenSteps(o.parityGolden);
  tg_samples::startApp(o);
  DigitMlp model(c);
  auto train = tg::compile(tg_models::digitCanvasSpec(model, c), tg_samples::runtimeOptions(o));
  tg::Mulberry32 rng(13);
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) {
    std::vector<float> x = tg_samples::synthetic::pixels(rng, c.batch * c.inputDim);
    std::vector<int32_t> y = tg_samples::synthetic::labels(rng, c.batch, static_cast<int32_t>(c.classes));
    return tg::Feed{{"x", std::move(x)}, {"y", std::move(y)}};
  });
  return tg_samples::compareWithGolden(o.parityGolden, stats.losses);
}

struct Phase {
  std::string name;
  int64_t hidden;
  double lr;
  int steps;
  double accuracy = 0;
  int streamed = 0, completed = 0, aborted = 0, agree = 0, checked = 0;
};

size_t argmax(const std::vector<float>& p, size_t from, size_t n) {
  return static_cast<size_t>(std::max_element(p.begin() + static_cast<ptrdiff_t>(from),
                                              p.begin() + static_cast<ptrdiff_t>(from + n)) -
                             (p.begin() + static_cast<ptrdiff_t>(from)));
}

struct Settings {
  std::string dataDir;
  int64_t trainImages = 0, testImages = 10000, hidden2 = 128;
  double lr = 1e-3, lr2 = 5e-4;
  double initGain = 1.4142135623730951;  // √2: He's gain for ReLU
  int canvasImages = 64;
};

int run(tg_samples::CommonOptions& o, DigitCanvasConfig c, const Settings& s) {
  if (!o.parityGolden.empty()) return parityRun(o);
  const tg_samples::ImageSet trainSet = tg_samples::loadFashionMnist(tg_samples::Split::Train, s.dataDir, s.trainImages);
  const tg_samples::ImageSet testSet = tg_samples::loadFashionMnist(tg_samples::Split::Test, s.dataDir, s.testImages);
  std::printf("Fashion-MNIST: %lld training and %lld test images\n", static_cast<long long>(trainSet.count),
              static_cast<long long>(testSet.count));
  if (trainSet.pixelsPerImage() != c.inputDim) throw std::runtime_error("Fashion-MNIST images are not 28×28");
  const std::string adapter = tg_samples::startApp(o);
  c.seed = o.seed;
  c.lr = s.lr;
  if (s.initGain > 0) c.initGain = s.initGain;
  DigitMlp model(c);
  auto train = tg::compile(tg_models::digitCanvasSpec(model, c), tg_samples::runtimeOptions(o));
  // One predictor for both batch sizes (B = evalBatch for the test set, B = 1 for the canvas);
  // it stays attached across replaceModel and recompiles for the new model on its next run.
  auto predict = train.attach({.forward = tg_models::digitCanvasPredict, .inputs = tg_models::digitCanvasPredictInputs(c)});
  auto canvas = tg::singleFlight([&](tg::Feed f) { return predict.run(std::move(f)); });
  const auto px = static_cast<size_t>(c.inputDim);
  const auto image = [&](int64_t i) {
    return std::vector<float>(testSet.pixels.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(i) * px),
                              testSet.pixels.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(i + 1) * px));
  };

  std::vector<Phase> phases{{"hidden " + std::to_string(c.hidden) + ", lr " + std::to_string(s.lr).substr(0, 6), c.hidden, s.lr, o.steps},
                            {"setLR " + std::to_string(s.lr2).substr(0, 6), c.hidden, s.lr2, std::max(1, o.steps / 2)},
                            {"replaceModel hidden " + std::to_string(s.hidden2), s.hidden2, s.lr, o.steps},
                            {"setLR " + std::to_string(s.lr2).substr(0, 6), s.hidden2, s.lr2, std::max(1, o.steps / 2)}};
  std::vector<float> losses;
  double seconds = 0;
  std::vector<double> boundaries;
  std::unique_ptr<DigitMlp> replaced;
  tg_samples::BatchSampler sampler(static_cast<size_t>(trainSet.count), o.seed);
  std::vector<float> lastProbs;  // the canvas images' probabilities after the last phase
  for (size_t k = 0; k < phases.size(); ++k) {
    Phase& ph = phases[k];
    if (k == 1 || k == 3) train.setLR(tg::LR(ph.lr)).get();
    if (k == 2) {
      DigitCanvasConfig c2 = c;
      c2.hidden = ph.hidden;
      replaced = std::make_unique<DigitMlp>(c2);  // outlives the handle's use of it
      train.replaceModel(*replaced, {.seed = o.seed + 1}).get();
      train.setLR(tg::LR(ph.lr)).get();
    }
    std::printf("phase %zu: %s, %d steps\n", k + 1, ph.name.c_str(), ph.steps);
    const auto stats = tg_samples::trainLoop(train, ph.steps, o.logEvery, [&](int) {
      tg_samples::ImageBatch b = tg_samples::gather(trainSet, sampler.next(static_cast<size_t>(c.batch)));
      return tg::Feed{{"x", std::move(b.pixels)}, {"y", std::move(b.labels)}};
    });
    losses.insert(losses.end(), stats.losses.begin(), stats.losses.end());
    seconds += stats.seconds;
    boundaries.push_back(static_cast<double>(losses.size()));

    ph.accuracy = tg_samples::classify(testSet, testSet.count, c.evalBatch, c.classes, [&](std::vector<float> x) {
                    return tg_samples::checkRun(predict.run({{"x", std::move(x)}}).get(), "predict").f32();
                  }).accuracy();
    // The canvas: single images as fast as strokes would send them, nobody waiting in between.
    const int64_t n = std::min<int64_t>(s.canvasImages, testSet.count);
    std::vector<std::future<tg::SingleFlightResult<tg::RunResult>>> pending;
    for (int64_t i = 0; i < n; ++i) pending.push_back(canvas({{"x", image(i)}}));
    for (auto& f : pending) {
      const tg::SingleFlightResult<tg::RunResult> r = f.get();
      ++ph.streamed;
      if (r.kind == tg::ResultKind::Completed) {
        tg_samples::checkRun(*r.value, "canvas predict");
        ++ph.completed;
      } else {
        ++ph.aborted;
      }
    }
    if (pending.empty() || ph.completed == 0)
      throw std::runtime_error("canvas: the latest single-image prediction did not complete");
    // Then one image at a time (each awaited): B = 1 must pick the class B = evalBatch picks.
    const std::vector<float> batchProbs = [&] {
      std::vector<float> x;
      for (int64_t i = 0; i < n; ++i) {
        const std::vector<float> one = image(i);
        x.insert(x.end(), one.begin(), one.end());
      }
      return tg_samples::checkRun(predict.run({{"x", std::move(x)}}).get(), "predict").f32();
    }();
    lastProbs.clear();
    for (int64_t i = 0; i < n; ++i) {
      const tg::SingleFlightResult<tg::RunResult> r = canvas({{"x", image(i)}}).get();
      if (r.kind != tg::ResultKind::Completed) throw std::runtime_error("canvas: an awaited prediction was aborted");
      const std::vector<float> p = tg_samples::checkRun(*r.value, "canvas predict").f32();
      ++ph.checked;
      ph.agree += argmax(p, 0, 10) == argmax(batchProbs, static_cast<size_t>(i) * 10, 10) ? 1 : 0;
      lastProbs.insert(lastProbs.end(), p.begin(), p.end());
    }
    std::printf("  test accuracy %.2f%%; canvas stream: %d sent, %d completed, %d superseded; B=1 agrees with "
                "B=%lld on %d of %d images\n",
                100 * ph.accuracy, ph.streamed, ph.completed, ph.aborted, static_cast<long long>(c.evalBatch), ph.agree,
                ph.checked);
    if (ph.agree != ph.checked) throw std::runtime_error("canvas: B = 1 and batched predictions disagree");
  }
  const tg_samples::LoopStats all{.losses = losses, .seconds = seconds};
  std::printf("%zu steps in all (%.1f ms/step)\n", losses.size(), all.msPerStep());

  tg_samples::Results results("digit_canvas", o, adapter);
  results.loop(all);
  nlohmann::json jp = nlohmann::json::array();
  for (const Phase& ph : phases)
    jp.push_back({{"phase", ph.name}, {"hidden", ph.hidden}, {"lr", ph.lr}, {"steps", ph.steps},
                  {"testAccuracy", ph.accuracy}, {"canvasStreamed", ph.streamed}, {"canvasCompleted", ph.completed},
                  {"canvasSuperseded", ph.aborted}, {"batch1AgreesWithBatched", ph.agree}});
  results.metric("phases", jp);
  results.metric("testAccuracy", phases.back().accuracy);

  // loss.png with the phase boundaries marked.
  tg_samples::Plot plot{.title = "DIGIT-CANVAS: LOSS (PHASES: LR, SETLR, REPLACEMODEL, SETLR)", .xLabel = "step", .yLabel = "loss"};
  tg_samples::Series raw{.label = "loss", .color = tg_samples::colors::lightBlue, .width = 1};
  for (size_t i = 0; i < losses.size(); ++i) raw.x.push_back(static_cast<double>(i + 1)), raw.y.push_back(losses[i]);
  plot.series.push_back(raw);
  const double top = *std::max_element(losses.begin(), losses.end());
  for (size_t k = 0; k + 1 < boundaries.size(); ++k)
    plot.series.push_back({.label = k == 0 ? "phase change" : "", .x = {boundaries[k], boundaries[k]}, .y = {0, top},
                           .color = tg_samples::colors::red, .width = 1});
  tg_samples::writePng(o.out / "loss.png", tg_samples::renderPlot(plot));
  results.picture("loss.png", "training loss over the four phases (red: setLR, replaceModel, setLR)");

  // canvas.png: the first 32 canvas images with the final model's B = 1 prediction.
  const int shown = static_cast<int>(std::min<int64_t>(32, static_cast<int64_t>(lastProbs.size() / 10))), cols = 8;
  const int tile = 28 * 3, cellW = tile + 40, cellH = tile + 30;
  tg_samples::Image pic(cols * cellW + 10, ((shown + cols - 1) / cols) * cellH + 30);
  pic.text(8, 8, "B=1 PREDICTIONS OF THE REPLACED MODEL (GREEN RIGHT, RED WRONG)", tg_samples::colors::black);
  for (int i = 0; i < shown; ++i) {
    const tg_samples::Image one =
        tg_samples::imageGrid(image(i), {.tileH = 28, .tileW = 28, .cols = 1, .scale = 3, .gap = 0});
    const int x = 10 + (i % cols) * cellW, y = 26 + (i / cols) * cellH;
    pic.blit(one, x, y);
    const size_t cls = argmax(lastProbs, static_cast<size_t>(i) * 10, 10);
    const bool right = static_cast<int32_t>(cls) == testSet.labels[static_cast<size_t>(i)];
    char label[48];
    std::snprintf(label, sizeof label, "%.*s %.0f%%", 8, std::string(tg_samples::kFashionClasses[cls]).c_str(),
                  100.0 * lastProbs[static_cast<size_t>(i) * 10 + cls]);
    pic.text(x, y + one.height() + 4, label, right ? tg_samples::colors::green : tg_samples::colors::red);
  }
  tg_samples::writePng(o.out / "canvas.png", pic);
  results.picture("canvas.png", "test images sent one at a time (B = 1) with the final model's predicted class");
  std::printf("final test accuracy %.2f%%\nwrote %s, loss.png, canvas.png\n", 100 * phases.back().accuracy,
              results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's digit-canvas sample (an MLP with dropout) on Fashion-MNIST, changing the learning "
               "rate and the model between phases, on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 2000, .seed = 42, .out = "out/digit_canvas"};
  tg_samples::addCommonOptions(app, o);
  DigitCanvasConfig c;
  Settings s{.dataDir = tg_samples::kFashionMnistDir};
  app.add_option("--data", s.dataDir, "Fashion-MNIST folder (IDX files, gzipped or not)")->capture_default_str();
  app.add_option("--train-images", s.trainImages, "use the first N training images (0: all 60000)");
  app.add_option("--test-images", s.testImages, "evaluate on the first N test images")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--hidden", c.hidden, "hidden units of phases 1 and 2")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{65536}));
  app.add_option("--hidden2", s.hidden2, "hidden units of the model replaceModel swaps in")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{65536}));
  app.add_option("--lr", s.lr, "learning rate of phases 1 and 3")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--lr2", s.lr2, "learning rate setLR sets for phases 2 and 4")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--init-gain", s.initGain, "weights N(0, gain²/fan_in) (√2: He's); 0: upstream's N(0, 0.02²)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--batch", c.batch, "training batch (upstream: 64)")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{65536}));
  app.add_option("--eval-batch", c.evalBatch, "the predictor's batch for the test set")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{65536}));
  app.add_option("--canvas-images", s.canvasImages, "single images streamed through singleFlight per phase")->capture_default_str()->check(CLI::Range(1, 10000));
  CLI11_PARSE(app, argc, argv);
  return tg_samples::runMain([&] { return run(o, c, s); });
}
