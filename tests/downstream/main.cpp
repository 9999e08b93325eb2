// A user's program against an installed tensorgrad: the README's API, designated initializers
// that leave members out included, two training steps on the default device (lavapipe on a CPU
// machine), and a forward attached with a parametric batch; then a model of the installed zoo
// (tensorgrad::models) by name, traced without a device. Prints each loss, the prediction and the
// zoo model's kernel count.
#include <tensorgrad/models/registry.h>
#include <tensorgrad/tensorgrad.h>

#include <cstdio>
#include <vector>

struct Net : tg::Module {
  tg::Linear l1{*this, "l1", 1, 16};
  tg::Linear l2{*this, "l2", 16, 1, {.bias = false}};
};

tg::Tensor forward(const Net& m, const tg::Inputs& in) {
  return m.l2.fwd(tg::relu(m.l1.fwd(in["x"])));
}
tg::Tensor loss(const Net& m, const tg::Inputs& in) {
  const tg::Tensor diff = tg::sub(forward(m, in), in["y"]);
  return tg::mean(tg::mul(diff, diff));
}

int main() {
  const tg::WebGPUSupport support = tg::checkWebGPU();
  if (!support.ok) {
    std::fprintf(stderr, "%s\n", support.message.c_str());
    return 1;
  }
  Net model;
  auto train = tg::compile(tg::TrainingSpec<Net>{
      .model = model, .loss = loss, .inputs = {{"x", {{8, 1}}}, {"y", {{8, 1}}}}, .seed = 42});
  train.replaceModel(model, {.seed = 42}).get();
  std::vector<float> xs, ys;
  for (int i = 0; i < 8; ++i) {
    xs.push_back(static_cast<float>(i) / 8.0f);
    ys.push_back(2.0f * xs.back());
  }
  for (int step = 1; step <= 2; ++step) {
    const tg::StepResult r = train.step({{"x", xs}, {"y", ys}}).get();
    if (r.kind != tg::ResultKind::Completed) {
      std::fprintf(stderr, "step %d: %s\n", step, r.error.c_str());
      return 1;
    }
    std::printf("step %d loss %.9g\n", step, static_cast<double>(r.loss));
  }
  auto predict = train.attach({.forward = forward, .inputs = {{"x", {{tg::null, 1}}}}});
  const tg::RunResult out = predict.run({{"x", std::vector<float>{0.5f, 1.0f}}}).get();
  if (out.kind != tg::ResultKind::Completed) {
    std::fprintf(stderr, "run: %s\n", out.error.c_str());
    return 1;
  }
  std::printf("predict %.9g %.9g\n", static_cast<double>(out.output.f32()[0]),
              static_cast<double>(out.output.f32()[1]));
  const tg_models::SampleEntry& entry = tg_models::findSample("mlp-sin");
  std::printf("zoo mlp-sin: %zu kernels\n", entry.make(entry.defaults()).trace().kernels.size());
  return 0;
}
