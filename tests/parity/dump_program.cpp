// A user's program for the TENSORGRAD_DUMP tests (dump_test.cpp runs it under the variables): a
// small model of its own, compiled for training (one step), with an attached forward run once,
// and a standalone forward (or, with --fast, under the fast kernel set and then replaced). Exit 0
// when every call completed; it knows nothing of the dump.
#include <tensorgrad/tensorgrad.h>

#include <cstdio>
#include <string>

namespace {

struct Tiny : tg::Module {
  tg::Linear hidden{*this, "hidden", 2, 8};
  tg::Linear out{*this, "out", 8, 1};
};

tg::Tensor tinyPredict(const Tiny& m, const tg::Inputs& in) {
  return m.out.fwd(tg::relu(m.hidden.fwd(in["x"])));
}

tg::Tensor tinyLoss(const Tiny& m, const tg::Inputs& in) {
  const tg::Tensor d = tg::sub(tinyPredict(m, in), in["y"]);
  return tg::mean(tg::mul(d, d));
}

}  // namespace

// `--fast`: the fast kernel set, and a replaceModel after the step (a second training compile).
int main(int argc, char** argv) {
  const bool fast = argc > 1 && std::string(argv[1]) == "--fast";
  tg::RuntimeOptions options;
  if (fast) options.emit.kernels = tg::KernelSet::Fast;
  Tiny model, replacement;
  const tg::InputDecls inputs = {{"x", {{4, 2}}}, {"y", {{4, 1}}}};
  auto train = tg::compile(
      tg::TrainingSpec<Tiny>{
          .model = model, .loss = tinyLoss, .inputs = inputs, .optimizer = tg::Adam{}, .seed = 3},
      options);
  const tg::StepResult step = train
                                  .step({{"x", std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}},
                                         {"y", std::vector<float>{1, 2, 3, 4}}})
                                  .get();
  if (step.kind != tg::ResultKind::Completed) {
    std::fprintf(stderr, "step: %s\n", step.error.c_str());
    return 1;
  }
  if (fast) {
    train.replaceModel(replacement, {.seed = 4}).get();
    std::printf("loss %.6g\n", static_cast<double>(step.loss));
    return 0;
  }
  auto predict = train.attach({.forward = tinyPredict, .inputs = {{"x", {{tg::null, 2}}}}});
  const tg::RunResult run = predict.run({{"x", std::vector<float>{0.5f, 0.25f}}}).get();
  auto standalone = tg::compileForward(tg::ForwardSpec<Tiny>{
      .model = model, .forward = tinyPredict, .inputs = {{"x", {{3, 2}}}}, .seed = 5});
  const tg::RunResult alone = standalone.run({{"x", std::vector<float>(6, 1.0f)}}).get();
  if (run.kind != tg::ResultKind::Completed || alone.kind != tg::ResultKind::Completed) {
    std::fprintf(stderr, "run: %s%s\n", run.error.c_str(), alone.error.c_str());
    return 1;
  }
  std::printf("loss %.6g\n", static_cast<double>(step.loss));
  return 0;
}
