// samples/vae: upstream's variational autoencoder (tensorgrad/models/vae.h: 784 → 256 → 256 → μ,
// log σ² of 8 latents; 8 → 256 → 256 → 784 sigmoid; the reparameterization's ε drawn in the
// graph by randn; loss = summed squared error + KL, per image; Adam 1e-3, clipping at norm 1)
// on Fashion-MNIST in shuffled batches of 128. main.ts's encode (x → μ) and decode (z → image)
// forwards are attached with a parametric batch. Pictures: test images over their
// reconstructions (decode(μ)), and images decoded from latents drawn from N(0, 1).
#include <cmath>
#include <cstdio>
#include <numbers>

#include <tensorgrad/models/vae.h>
#include "support/app.h"
#include "support/fashion_mnist.h"
#include "support/grid.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/sampler.h"
#include "support/train_loop.h"

namespace {

using tg_models::Vae;
using tg_models::VaeConfig;

// tests/parity/cases/vae.cpp: 64-pixel inputs, batch 32, seed 6; synthetic pixels from
// Mulberry32(12).
int parityRun(tg_samples::CommonOptions& o) {
  const VaeConfig c{.inputDim = 64, .latent = 8, .hidden = 256, .batch = 32, .seed = 6};
  o.steps = tg_samples::goldenSteps(o.parityGolden);
  tg_samples::startApp(o);
  Vae model(c);
  auto train = tg::compile(tg_models::vaeSpec(model, c), tg_samples::runtimeOptions(o));
  tg::Mulberry32 rng(12);
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) {
    return tg::Feed{{"x", tg_samples::synthetic::pixels(rng, c.batch * c.inputDim)}};
  });
  return tg_samples::compareWithGolden(o.parityGolden, stats.losses);
}

// Standard normal draws (Box–Muller), as main.ts samples its latents.
std::vector<float> normals(tg::Mulberry32& rng, size_t n) {
  std::vector<float> z(n);
  for (float& v : z) {
    const double u1 = std::max(1e-10, rng.next()), u2 = rng.next();
    v = static_cast<float>(std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2));
  }
  return z;
}

int run(tg_samples::CommonOptions& o, VaeConfig c, const std::string& dataDir, int64_t trainImages, int64_t testImages) {
  if (!o.parityGolden.empty()) return parityRun(o);
  const tg_samples::ImageSet trainSet = tg_samples::loadFashionMnist(tg_samples::Split::Train, dataDir, trainImages);
  const tg_samples::ImageSet testSet = tg_samples::loadFashionMnist(tg_samples::Split::Test, dataDir, testImages);
  std::printf("Fashion-MNIST: %lld training and %lld test images\n", static_cast<long long>(trainSet.count),
              static_cast<long long>(testSet.count));
  const std::string adapter = tg_samples::startApp(o);
  c.seed = o.seed;
  Vae model(c);
  auto train = tg::compile(tg_models::vaeSpec(model, c), tg_samples::runtimeOptions(o));
  auto encode = train.attach({.forward = tg_models::vaeEncode, .inputs = tg_models::vaeEncodeInputs(c)});
  auto decode = train.attach({.forward = tg_models::vaeDecode, .inputs = tg_models::vaeDecodeInputs(c)});

  tg_samples::BatchSampler sampler(static_cast<size_t>(trainSet.count), o.seed);
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) {
    return tg::Feed{{"x", tg_samples::gather(trainSet, sampler.next(static_cast<size_t>(c.batch))).pixels}};
  });

  // Reconstruction error of the test images through the means: decode(encode(x)), summed squared
  // error per image (the loss's reconstruction term without sampling).
  const auto per = static_cast<size_t>(c.inputDim);
  const std::vector<float> mu = tg_samples::checkRun(encode.run({{"x", testSet.pixels}}).get(), "encode").f32();
  const std::vector<float> recon = tg_samples::checkRun(decode.run({{"z", mu}}).get(), "decode").f32();
  double sse = 0;
  for (size_t i = 0; i < recon.size(); ++i) sse += (recon[i] - testSet.pixels[i]) * (recon[i] - testSet.pixels[i]);
  const double testRecon = sse / static_cast<double>(testSet.count);
  std::printf("final loss %.6g after %d steps (%.1f ms/step)\n", static_cast<double>(stats.finalLoss()), o.steps,
              stats.msPerStep());
  std::printf("test reconstruction error (summed squared error per image, through the means) %.3f on %lld images\n",
              testRecon, static_cast<long long>(testSet.count));

  tg_samples::Results results("vae", o, adapter);
  results.loop(stats);
  results.metric("testReconstructionSse", testRecon);
  results.metric("testImages", testSet.count);
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "VAE: RECONSTRUCTION + KL PER IMAGE");
  results.picture("loss.png", "training loss per step");
  // Reconstructions: 2 rows of originals, each over its reconstruction.
  const int64_t shown = std::min<int64_t>(10, testSet.count);
  std::vector<float> tiles;
  for (int64_t half = 0; half < 2 && half * 5 < shown; ++half) {
    for (const std::vector<float>* src : {&testSet.pixels, &recon}) {
      for (int64_t i = half * 5; i < std::min(shown, half * 5 + 5); ++i)
        tiles.insert(tiles.end(), src->begin() + static_cast<ptrdiff_t>(static_cast<size_t>(i) * per),
                     src->begin() + static_cast<ptrdiff_t>(static_cast<size_t>(i + 1) * per));
    }
  }
  tg_samples::writePng(o.out / "reconstructions.png",
                       tg_samples::imageGrid(tiles, {.cols = static_cast<int>(std::min<int64_t>(shown, 5)), .scale = 3,
                                                     .title = "TEST IMAGES / RECONSTRUCTIONS",
                                                     .rowLabels = {"input", "recon", "input", "recon"}}));
  results.picture("reconstructions.png", "test images (rows 1, 3) over their reconstructions decode(mu) (rows 2, 4)");
  tg::Mulberry32 zrng(o.seed + 1);
  const std::vector<float> samples =
      tg_samples::checkRun(decode.run({{"z", normals(zrng, static_cast<size_t>(32 * c.latent))}}).get(), "decode").f32();
  tg_samples::writePng(o.out / "samples.png",
                       tg_samples::imageGrid(samples, {.cols = 8, .scale = 3, .title = "DECODED Z ~ N(0, I)"}));
  results.picture("samples.png", "32 images decoded from latents drawn from the prior N(0, I)");
  std::printf("wrote %s, loss.png, reconstructions.png, samples.png\n", results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's vae sample (a variational autoencoder) on Fashion-MNIST on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 1500, .seed = 42, .out = "out/vae"};
  tg_samples::addCommonOptions(app, o);
  std::string dataDir = tg_samples::kFashionMnistDir;
  int64_t trainImages = 0, testImages = 2000;
  VaeConfig c;  // upstream's sizes
  app.add_option("--hidden", c.hidden, "hidden width of encoder and decoder")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{65536}));
  app.add_option("--latent", c.latent, "latent dimensions")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{4096}));
  app.add_option("--batch", c.batch, "training batch")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{65536}));
  app.add_option("--data", dataDir, "Fashion-MNIST folder (IDX files, gzipped or not)")->capture_default_str();
  app.add_option("--train-images", trainImages, "use the first N training images (0: all 60000)");
  app.add_option("--test-images", testImages, "evaluate on the first N test images")->capture_default_str()->check(CLI::PositiveNumber);
  app.footer("On a CPU device (lavapipe) the defaults are --steps 800 --batch 32: the GPU defaults take about 20 minutes there.");
  CLI11_PARSE(app, argc, argv);
  if (o.parityGolden.empty() && tg_samples::onCpuDevice(o)) {
    tg_samples::useCpuDefault(app, "--steps", o.steps, 800);
    tg_samples::useCpuDefault(app, "--batch", c.batch, int64_t{32});
  }
  return tg_samples::runMain([&] { return run(o, c, dataDir, trainImages, testImages); });
}
