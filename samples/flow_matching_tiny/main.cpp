// samples/flow-matching-tiny: rectified flow on Fashion-MNIST: the velocity x_1 − x_0 of the
// straight path from an image to graph-drawn noise regressed with MSE (tensorgrad/models/
// flow_matching_tiny.h), images scaled to [−1, 1] as main.ts does, time buckets uniform in 1..100.
// Two velocity networks (--arch):
//   unet      the default, ours (samples/flow_matching_tiny/unet.h): a two-level U-Net with He
//             init, Adam 1e-3 decayed by a cosine to a tenth over the run, at 28×28: it sees the
//             whole garment;
//   upstream  upstream's four 3×3 convolutions with a time embedding, Adam 2e-4: they see a 9×9
//             window, a third of a 28×28 image, and generate fragments there, so --image-size 14
//             (2×2 averages) lets the same model see most of a garment.
// Both clip gradients at norm 1. Generation is main.ts's Euler integration from noise (t = 1) to
// t = 0 in 25 steps, x ← x − v/25, the time snapped to the nearest bucket; the app integrates all
// samples in one batch through the attached predictor (upstream: one image at a time).
// Pictures: the loss curve, a grid of generated samples next to training images, and the
// integration of a few samples from noise to image.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include <tensorgrad/models/flow_matching_tiny.h>
#include "unet.h"
#include "support/app.h"
#include "support/fashion_mnist.h"
#include "support/grid.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/sampler.h"
#include "support/train_loop.h"

namespace {

using tg_models::FlowMatchingTiny;
using tg_models::FlowMatchingTinyConfig;

constexpr int kEulerSteps = 25;

std::vector<int32_t> buckets(tg::Mulberry32& rng, int64_t n, int64_t tSteps) {
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (int32_t& t : out) t = 1 + static_cast<int32_t>(rng.next() * static_cast<double>(tSteps));
  return out;
}

// tests/parity/cases/flow_matching_tiny.cpp: 16×16 images, T = 10, batch 16, 16 channels, seed 8,
// synthetic pixels and buckets from Mulberry32(14).
int parityRun(tg_samples::CommonOptions& o) {
  const FlowMatchingTinyConfig c{.imageH = 16, .imageW = 16, .tSteps = 10, .batch = 16, .convCh = 16, .embDim = 16, .seed = 8};
  o.steps = tg_samples::goldenSteps(o.parityGolden);
  tg_samples::startApp(o);
  FlowMatchingTiny model(c);
  auto train = tg::compile(tg_models::flowMatchingTinySpec(model, c), tg_samples::runtimeOptions(o));
  tg::Mulberry32 rng(14);
  const std::vector<float> table = tg_models::flowTNormTable(c);
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) {
    std::vector<float> x0 = tg_samples::synthetic::pixels(rng, c.batch * c.imageH * c.imageW);
    std::vector<int32_t> t = buckets(rng, c.batch, c.tSteps);
    return tg::Feed{{"x_0", std::move(x0)}, {"t", std::move(t)}, {"tNorm_table", table}};
  });
  return tg_samples::compareWithGolden(o.parityGolden, stats.losses);
}

// Standard normal draws (Box–Muller), as main.ts's fillRandn.
std::vector<float> normals(tg::Mulberry32& rng, size_t n) {
  std::vector<float> z(n);
  for (float& v : z) {
    const double u1 = std::max(1e-10, rng.next()), u2 = rng.next();
    v = static_cast<float>(std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2));
  }
  return z;
}

// The images at half their size: each pixel the mean of a 2×2 block.
tg_samples::ImageSet halve(const tg_samples::ImageSet& s) {
  tg_samples::ImageSet h{.count = s.count, .rows = s.rows / 2, .cols = s.cols / 2, .pixels = {}, .labels = s.labels};
  h.pixels.resize(static_cast<size_t>(h.count * h.rows * h.cols));
  for (int64_t i = 0; i < h.count; ++i)
    for (int64_t y = 0; y < h.rows; ++y)
      for (int64_t x = 0; x < h.cols; ++x) {
        const auto at = [&](int64_t dy, int64_t dx) {
          return s.pixels[static_cast<size_t>((i * s.rows + 2 * y + dy) * s.cols + 2 * x + dx)];
        };
        h.pixels[static_cast<size_t>((i * h.rows + y) * h.cols + x)] = (at(0, 0) + at(0, 1) + at(1, 0) + at(1, 1)) / 4;
      }
  return h;
}

// [0, 1] pixels → [−1, 1], the range main.ts trains on (matched to the unit-variance noise).
std::vector<float> toSigned(std::vector<float> p) {
  for (float& v : p) v = 2 * v - 1;
  return p;
}

template <class Net>
int trainAndSample(tg_samples::CommonOptions& o, const FlowMatchingTinyConfig& c, const std::string& arch,
                   const tg_samples::ImageSet& trainSet, int64_t samples, const std::string& adapter) {
  Net model(c);
  auto train = tg::compile(tg_models::flowMatchingTinySpec(model, c), tg_samples::runtimeOptions(o));
  const std::vector<float> table = tg_models::flowTNormTable(c);
  tg_samples::BatchSampler sampler(static_cast<size_t>(trainSet.count), o.seed);
  tg::Mulberry32 rng(o.seed ^ 0x9e3779b9u);
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) {
    std::vector<float> x0 = toSigned(tg_samples::gather(trainSet, sampler.next(static_cast<size_t>(c.batch))).pixels);
    return tg::Feed{{"x_0", std::move(x0)}, {"t", buckets(rng, c.batch, c.tSteps)}, {"tNorm_table", table}};
  });
  std::printf("final loss %.6g after %d steps (%.1f ms/step); first loss %.6g\n", static_cast<double>(stats.finalLoss()),
              o.steps, stats.msPerStep(), static_cast<double>(stats.losses.empty() ? NAN : stats.losses.front()));

  // Euler integration of all samples at once, frames kept for the trajectory picture.
  auto predict = train.attach({.forward = tg_models::flowMatchingPredict<Net>,
                               .inputs = tg_models::flowMatchingPredictInputs(c, samples)});
  const auto pixels = static_cast<size_t>(c.imageH * c.imageW);
  std::vector<float> x = normals(rng, static_cast<size_t>(samples) * pixels);
  std::vector<std::vector<float>> frames{x};
  std::vector<std::string> frameLabels{"T=1.00"};
  for (int i = 0; i < kEulerSteps; ++i) {
    const double tCont = 1 - static_cast<double>(i) / kEulerSteps;
    const auto bucket = static_cast<int32_t>(
        std::clamp<int64_t>(std::llround(tCont * static_cast<double>(c.tSteps)), 1, c.tSteps));
    const std::vector<float> v = tg_samples::checkRun(
        predict.run({{"x_t", x}, {"t", std::vector<int32_t>(static_cast<size_t>(samples), bucket)}}).get(), "velocity").f32();
    if (v.size() != x.size()) throw std::runtime_error("velocity: unexpected output size");
    for (size_t p = 0; p < x.size(); ++p) x[p] -= v[p] / kEulerSteps;
    if ((i + 1) % 5 == 0) {
      frames.push_back(x);
      char label[16];
      std::snprintf(label, sizeof label, "T=%.2f", 1 - static_cast<double>(i + 1) / kEulerSteps);
      frameLabels.emplace_back(label);
    }
  }
  // Back to [0, 1] for the pictures, clamped.
  for (auto& f : frames)
    for (float& v : f) v = std::clamp((v + 1) / 2, 0.f, 1.f);
  for (float& v : x) v = std::clamp((v + 1) / 2, 0.f, 1.f);
  // How far the samples' pixel statistics are from the data's (a crude check of learning).
  double meanGen = 0, meanData = 0;
  for (float v : x) meanGen += v / static_cast<double>(x.size());
  for (float v : trainSet.pixels) meanData += v / static_cast<double>(trainSet.pixels.size());
  std::printf("generated %lld samples in %d Euler steps; mean pixel %.3f (training data %.3f)\n",
              static_cast<long long>(samples), kEulerSteps, meanGen, meanData);

  tg_samples::Results results("flow_matching_tiny", o, adapter);
  results.loop(stats);
  results.metric("arch", arch);
  results.metric("imageSize", c.imageH);
  results.metric("samples", samples);
  results.metric("eulerSteps", kEulerSteps);
  results.metric("meanPixelGenerated", meanGen);
  results.metric("meanPixelData", meanData);
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "FLOW MATCHING: VELOCITY MSE");
  results.picture("loss.png", "training loss per step");
  std::vector<float> real;
  for (size_t i : tg_samples::BatchSampler(static_cast<size_t>(trainSet.count), o.seed + 1).next(8))
    real.insert(real.end(), trainSet.pixels.begin() + static_cast<ptrdiff_t>(i * pixels),
                trainSet.pixels.begin() + static_cast<ptrdiff_t>((i + 1) * pixels));
  std::vector<float> grid = x;
  grid.insert(grid.end(), real.begin(), real.end());
  const int cols = 8;
  std::vector<std::string> rows;
  for (int64_t r = 0; r < (samples + cols - 1) / cols; ++r) rows.emplace_back("GEN");
  rows.emplace_back("DATA");
  tg_samples::writePng(o.out / "samples.png",
                       tg_samples::imageGrid(grid, {.tileH = c.imageH, .tileW = c.imageW, .cols = cols, .scale = c.imageH == 14 ? 6 : 3, .title = "GENERATED (25 EULER STEPS) VS TRAINING IMAGES",
                                                    .rowLabels = rows}));
  results.picture("samples.png", "generated samples (clamped to the pixel range) above a row of training images");
  std::vector<float> traj;
  for (const auto& f : frames) traj.insert(traj.end(), f.begin(), f.begin() + static_cast<ptrdiff_t>(cols * pixels));
  tg_samples::writePng(o.out / "trajectory.png",
                       tg_samples::imageGrid(traj, {.tileH = c.imageH, .tileW = c.imageW, .cols = cols, .scale = c.imageH == 14 ? 4 : 2, .title = "EULER INTEGRATION FROM NOISE",
                                                    .rowLabels = frameLabels}));
  results.picture("trajectory.png", "the first 8 samples every 5 Euler steps, from noise (t = 1) to t = 0");
  std::printf("wrote %s, loss.png, samples.png, trajectory.png\n", results.write().string().c_str());
  return 0;
}

int run(tg_samples::CommonOptions& o, FlowMatchingTinyConfig c, const std::string& arch, const std::string& dataDir,
        int64_t trainImages, int64_t samples) {
  if (!o.parityGolden.empty()) return parityRun(o);
  if (samples % 8 != 0) throw std::invalid_argument("--samples " + std::to_string(samples) + " is not a multiple of 8");
  tg_samples::ImageSet trainSet = tg_samples::loadFashionMnist(tg_samples::Split::Train, dataDir, trainImages);
  std::printf("Fashion-MNIST: %lld training images\n", static_cast<long long>(trainSet.count));
  if (trainSet.rows != 28 || trainSet.cols != 28) throw std::runtime_error("Fashion-MNIST images are not 28×28");
  if (c.imageH == 14) trainSet = halve(trainSet);
  const std::string adapter = tg_samples::startApp(o);
  c.seed = o.seed;
  std::printf("velocity network: %s, %lld×%lld images, %lld channels, batch %lld, Adam %g%s\n", arch.c_str(),
              static_cast<long long>(c.imageH), static_cast<long long>(c.imageW), static_cast<long long>(c.convCh),
              static_cast<long long>(c.batch), c.lr, c.cosineSteps > 0 ? " (cosine decay to a tenth)" : "");
  if (arch == "unet") return trainAndSample<tg_models::FlowMatchingUnet>(o, c, arch, trainSet, samples, adapter);
  return trainAndSample<FlowMatchingTiny>(o, c, arch, trainSet, samples, adapter);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train a rectified-flow model (upstream's flow-matching-tiny sample, or by default a small U-Net) on "
               "Fashion-MNIST on a WebGPU (Vulkan) device, and generate images."};
  tg_samples::CommonOptions o{.steps = 4000, .seed = 42, .out = "out/flow_matching_tiny"};
  tg_samples::addCommonOptions(app, o);
  FlowMatchingTinyConfig c;  // upstream's batch 64 and 32 channels
  c.lr = 1e-3;
  std::string dataDir = tg_samples::kFashionMnistDir, arch = "unet";
  int64_t trainImages = 0, samples = 32, imageSize = 28;
  app.add_option("--arch", arch, "velocity network: unet (ours: sees the whole image) or upstream (four 3×3 convolutions)")
      ->capture_default_str()->check(CLI::IsMember({"unet", "upstream"}));
  app.add_option("--data", dataDir, "Fashion-MNIST folder (IDX files, gzipped or not)")->capture_default_str();
  app.add_option("--train-images", trainImages, "use the first N training images (0: all 60000)");
  app.add_option("--batch", c.batch, "training batch (upstream: 64)")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{4096}));
  app.add_option("--channels", c.convCh, "convolution channels (the U-Net's first level; upstream: 32)")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{512}));
  app.add_option("--lr", c.lr, "Adam's learning rate (default 1e-3; with --arch upstream on a GPU upstream's 2e-4)")->check(CLI::PositiveNumber);
  app.add_option("--image-size", imageSize, "28 (upstream) or 14 (2×2 means: upstream's 9×9 window sees most of a garment; --arch upstream only)")
      ->capture_default_str()->check(CLI::IsMember({int64_t{28}, int64_t{14}}));
  app.add_option("--samples", samples, "images to generate (a multiple of 8)")->capture_default_str()->check(CLI::Range(int64_t{8}, int64_t{1024}));
  app.footer("Upstream's sample as it is: --arch upstream (Adam 2e-4, 32 channels, batch 64). On a CPU device (lavapipe) "
             "the defaults are --arch upstream --image-size 14 --steps 1500 --batch 16 --channels 16 --lr 1e-3: the U-Net "
             "took 1.3 s a step there at batch 16.");
  CLI11_PARSE(app, argc, argv);
  if (o.parityGolden.empty() && tg_samples::onCpuDevice(o)) {
    tg_samples::useCpuDefault(app, "--arch", arch, std::string("upstream"));
    tg_samples::useCpuDefault(app, "--image-size", imageSize, int64_t{14});
    tg_samples::useCpuDefault(app, "--steps", o.steps, 1500);
    tg_samples::useCpuDefault(app, "--batch", c.batch, int64_t{16});
    tg_samples::useCpuDefault(app, "--channels", c.convCh, int64_t{16});
  } else if (app.count("--lr") == 0 && arch == "upstream") {
    c.lr = 2e-4;
  }
  if (arch == "unet" && imageSize % 4 != 0)
    return app.exit(CLI::ValidationError("--image-size", std::to_string(imageSize) + " needs --arch upstream (the U-Net pools twice)"));
  c.imageH = c.imageW = imageSize;
  if (arch == "unet") c.cosineSteps = o.steps;
  return tg_samples::runMain([&] { return run(o, c, arch, dataDir, trainImages, samples); });
}
