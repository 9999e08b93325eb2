// The README's sine MLP, trained natively: 1 → 64 → 64 → 1 with ReLU, MSE, Adam 0.005, batches of
// 256 points x ∈ [−π, π) drawn from Mulberry32(7) (upstream's data protocol), seed 42. Prints a
// progress bar (or `step <n> loss <value>` lines), the final loss, and plots the fit as a PNG.
#include <png.h>
#include <tensorgrad/tensorgrad.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>

namespace {

struct MLP : tg::Module {                // class MLP extends Module {
  tg::Linear l1{*this, "l1", 1, 64};     //   l1 = new Linear(1, 64)
  tg::Linear l2{*this, "l2", 64, 64};    //   l2 = new Linear(64, 64)
  tg::Linear l3{*this, "l3", 64, 1};     //   l3 = new Linear(64, 1)
};                                       // }

tg::Tensor forward(const MLP& m, const tg::Inputs& in) {
  return m.l3.fwd(tg::relu(m.l2.fwd(tg::relu(m.l1.fwd(in["x"])))));
}

tg::Tensor loss(const MLP& m, const tg::Inputs& in) {
  const tg::Tensor diff = tg::sub(forward(m, in), in["y"]);
  return tg::mean(tg::mul(diff, diff));
}

// One batch: x = f32((2u − 1)π), y = f32(sin(x)) with sin taken in double.
tg::Feed nextBatch(tg::Mulberry32& rng, int batch) {
  std::vector<float> x(static_cast<size_t>(batch)), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>((2 * rng.next() - 1) * std::numbers::pi);
    y[i] = static_cast<float>(std::sin(static_cast<double>(x[i])));
  }
  return {{"x", std::move(x)}, {"y", std::move(y)}};
}

void progress(int step, int steps, float value) {
  constexpr int kWidth = 40;
  const int filled = steps ? kWidth * step / steps : kWidth;
  std::fprintf(stderr, "\r[%s%s] %d/%d  loss %.6f", std::string(static_cast<size_t>(filled), '#').c_str(),
               std::string(static_cast<size_t>(kWidth - filled), '.').c_str(), step, steps, value);
}

// A 640×400 plot: sin(x) in blue under the fitted curve in red, with axes.
bool writePlot(const std::string& path, const std::vector<float>& xs, const std::vector<float>& fit) {
  constexpr int W = 640, H = 400, margin = 20;
  std::vector<uint8_t> rgb(W * H * 3, 255);
  auto px = [&](double x) { return margin + (x + std::numbers::pi) / (2 * std::numbers::pi) * (W - 2 * margin); };
  auto py = [&](double y) { return H / 2.0 - y / 1.25 * (H / 2.0 - margin); };
  auto dot = [&](double fx, double fy, std::array<uint8_t, 3> c, int r) {
    for (int dy = -r; dy <= r; ++dy) {
      for (int dx = -r; dx <= r; ++dx) {
        const int x = static_cast<int>(std::lround(fx)) + dx, y = static_cast<int>(std::lround(fy)) + dy;
        if (x < 0 || y < 0 || x >= W || y >= H) continue;
        std::copy(c.begin(), c.end(), rgb.begin() + (y * W + x) * 3);
      }
    }
  };
  auto curve = [&](auto f, std::array<uint8_t, 3> c, int r) {
    for (int i = 0; i + 1 < static_cast<int>(xs.size()); ++i) {
      for (int s = 0; s < 16; ++s) {  // dense samples along each segment: a connected line
        const double t = s / 16.0;
        dot(px(xs[static_cast<size_t>(i)] * (1 - t) + xs[static_cast<size_t>(i + 1)] * t),
            py(f(i) * (1 - t) + f(i + 1) * t), c, r);
      }
    }
  };
  for (int x = margin; x < W - margin; ++x) dot(x, py(0), {160, 160, 160}, 0);
  for (int y = margin; y < H - margin; ++y) dot(px(0), y, {160, 160, 160}, 0);
  curve([&](int i) { return std::sin(static_cast<double>(xs[static_cast<size_t>(i)])); }, {60, 110, 220}, 2);
  curve([&](int i) { return static_cast<double>(fit[static_cast<size_t>(i)]); }, {220, 40, 40}, 1);
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = W;
  image.height = H;
  image.format = PNG_FORMAT_RGB;
  return png_image_write_to_file(&image, path.c_str(), 0, rgb.data(), W * 3, nullptr) != 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train the README's sine MLP with tensorgrad on a WebGPU (Vulkan) device."};
  int steps = 1000, logEvery = 0;
  uint32_t seed = 42;
  std::string device, plot = "mlp_sin.png";
  app.add_option("--steps", steps, "training steps")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", seed, "parameter-init seed");
  app.add_option("--device", device, "adapter name (substring, case-insensitive); default: the best adapter");
  app.add_option("--log-every", logEvery, "print `step <n> loss <value>` every K steps instead of a progress bar")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--plot", plot, "PNG file for the fitted curve (empty: no plot)");
  CLI11_PARSE(app, argc, argv);

  const tg::WebGPUSupport gpu = tg::checkWebGPU({.device = device});
  if (!gpu.ok) {
    std::fprintf(stderr, "%s\n", gpu.message.c_str());
    return 1;
  }
  std::printf("device: %s\n", gpu.adapter.c_str());

  MLP model;
  constexpr int kBatch = 256;
  const auto t0 = std::chrono::steady_clock::now();
  auto train = tg::compile(tg::TrainingSpec<MLP>{.model = model,
                                                 .loss = loss,
                                                 .inputs = {{"x", {{kBatch, 1}}}, {"y", {{kBatch, 1}}}},
                                                 .optimizer = tg::Adam{{}, 0.005},
                                                 .seed = seed},
                           {.device = device});
  const auto t1 = std::chrono::steady_clock::now();
  const auto kernels = train.kernels();
  std::printf("compiled %zu kernels in %.1f ms\n",
              static_cast<size_t>(std::count_if(kernels.begin(), kernels.end(),
                                                [](const tg::KernelSpec& k) { return !k.wgsl.empty(); })),
              std::chrono::duration<double, std::milli>(t1 - t0).count());

  tg::Mulberry32 data(7);
  float last = NAN;
  for (int step = 0; step < steps; ++step) {
    const tg::StepResult r = train.step(nextBatch(data, kBatch)).get();
    if (r.kind != tg::ResultKind::Completed) {
      std::fprintf(stderr, "\nstep %d %s: %s\n", step, std::string(tg::resultKindName(r.kind)).c_str(), r.error.c_str());
      return 1;
    }
    last = r.loss;
    if (logEvery > 0 && step % logEvery == 0) std::printf("step %d loss %.17g\n", step, static_cast<double>(r.loss));
    if (logEvery == 0 && (step % 10 == 0 || step + 1 == steps)) progress(step + 1, steps, r.loss);
  }
  const auto t2 = std::chrono::steady_clock::now();
  if (logEvery == 0 && steps > 0) std::fprintf(stderr, "\n");
  std::printf("final loss %.17g after %d steps (%.3f ms/step)\n", static_cast<double>(last), steps,
              steps ? std::chrono::duration<double, std::milli>(t2 - t1).count() / steps : 0.0);

  if (!plot.empty()) {
    constexpr int kPoints = 200;
    std::vector<float> xs(kPoints);
    for (int i = 0; i < kPoints; ++i)
      xs[static_cast<size_t>(i)] = static_cast<float>(-std::numbers::pi + 2 * std::numbers::pi * i / (kPoints - 1));
    auto predict = train.attach({.forward = forward, .inputs = {{"x", {{kPoints, 1}}}}});
    const tg::RunResult r = predict.run({{"x", xs}}).get();
    if (r.kind != tg::ResultKind::Completed) {
      std::fprintf(stderr, "plot: %s\n", r.error.c_str());
      return 1;
    }
    if (!writePlot(plot, xs, r.output.f32())) {
      std::fprintf(stderr, "plot: could not write %s\n", plot.c_str());
      return 1;
    }
    std::printf("plot: %s (blue: sin x, red: the fit)\n", plot.c_str());
  }
  return 0;
}
