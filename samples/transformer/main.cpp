// samples/transformer: upstream's digit-addition transformer (tensorgrad/models/transformer.h: d 64,
// 3 pre-norm blocks of 4-head causal attention and a ReLU MLP, tied output embedding; AdamW with
// a linear LR schedule 0.005 → 0.0005 over 1500 steps, clipping at norm 1) learning "ab+cd=" →
// the three digits of the sum, least significant first, from batches of 128 random pairs. One
// pair in five ((a·100 + b)·31 + 7 ≡ 0 mod 5, upstream's rule) never appears in training: the
// exact-match accuracy on those held-out pairs, predicted autoregressively through the attached
// B = 1 inference graph as upstream's main.ts does, is the result.
#include <cstdio>

#include <tensorgrad/models/transformer.h>
#include "support/app.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/train_loop.h"

namespace {

using tg_models::Transformer;
using tg_models::TransformerConfig;

constexpr int32_t kPlus = 10, kEq = 11;

bool isTestPair(int a, int b) { return ((a * 100 + b) * 31 + 7) % 5 == 0; }

std::vector<int32_t> sequence(int a, int b) {
  const int sum = a + b;
  return {a / 10, a % 10, kPlus, b / 10, b % 10, kEq, sum % 10, sum / 10 % 10, sum / 100};
}

std::vector<float> resultMask(const TransformerConfig& c) {
  std::vector<float> mask(static_cast<size_t>(c.t()), 0.f);
  for (int64_t t = c.t() - c.resultDigits; t < c.t(); ++t) mask[static_cast<size_t>(t)] = 1.f;
  return mask;
}

// tests/parity/cases/transformer.cpp: d 32, 2 layers of 2 heads, batch 16; random tokens and
// targets from Mulberry32(11), the result-digit mask.
int parityRun(tg_samples::CommonOptions& o) {
  TransformerConfig c;
  c.d = 32, c.layers = 2, c.heads = 2, c.batch = 16;
  o.steps = tg_samples::goldenSteps(o.parityGolden);
  tg_samples::startApp(o);
  const Transformer model(c);
  auto train = tg::compile(tg_models::transformerSpec(model), tg_samples::runtimeOptions(o));
  const std::vector<float> mask = resultMask(c);
  tg::Mulberry32 rng(11);
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) {
    std::vector<int32_t> tokens = tg_samples::synthetic::labels(rng, c.batch * c.t(), static_cast<int32_t>(c.vocab));
    std::vector<int32_t> targets = tg_samples::synthetic::labels(rng, c.batch * c.t(), static_cast<int32_t>(c.vocab));
    return tg::Feed{{"tokens", std::move(tokens)}, {"targets", std::move(targets)}, {"mask", mask}};
  });
  return tg_samples::compareWithGolden(o.parityGolden, stats.losses);
}

// The learning-rate schedule: a warmup then a cosine decay to a tenth over the run's steps (the
// default), or upstream's (linear 5e-3 → 5e-4 over 1500 steps, whatever the run's length, no
// warmup). Upstream's never reached its end in the app's 600 steps, and its loss spiked after
// step 550 at a rate still near 3e-3: on the H200 its runs end at 88.2% (600 steps) and 94.0%
// (1500) exact-match on held-out pairs; the cosine schedule reaches 100.0% in 1500 steps.
struct Schedule {
  std::string kind = "cosine";
  double lr = 0.005;
  int warmup = 100;
};

int run(tg_samples::CommonOptions& o, const TransformerConfig& c, int evalPairs, int probePairs, const Schedule& sched) {
  if (!o.parityGolden.empty()) return parityRun(o);
  if (c.d % c.heads != 0)
    throw std::invalid_argument("--d " + std::to_string(c.d) + " is not a multiple of --heads " + std::to_string(c.heads));
  const std::string adapter = tg_samples::startApp(o);
  const Transformer model(c);
  tg::TrainingSpec<Transformer> spec = tg_models::transformerSpec(model);
  spec.seed = o.seed;
  if (sched.kind == "cosine") {
    const int warmup = std::min(sched.warmup, std::max(o.steps - 1, 0));
    std::get<tg::AdamW>(spec.optimizer).lr =
        tg::lr::warmup(sched.lr, warmup, tg::lr::cosineAnnealing(sched.lr, sched.lr / 10, std::max(o.steps - warmup, 1)));
  }
  auto train = tg::compile(spec, tg_samples::runtimeOptions(o));
  auto infer = train.attach({.forward = [](const Transformer& m, const tg::Inputs& in) {
                               return tg_models::transformerForward(m, in["tokens"]);
                             },
                             .inputs = {{"tokens", {{1, c.t()}, tg::Dtype::I32}}}});
  const auto T = static_cast<size_t>(c.t()), vocab = static_cast<size_t>(c.vocab);

  // Greedy digits, one inference run each: the logits at the last real position, over 0–9.
  auto predict = [&](int a, int b) {
    std::vector<int32_t> seq = sequence(a, b);
    seq.resize(6);
    for (int s = 0; s < 3; ++s) {
      std::vector<int32_t> tokens(T, 0);
      std::copy(seq.begin(), seq.end(), tokens.begin());
      const std::vector<float> logits = tg_samples::checkRun(infer.run({{"tokens", tokens}}).get(), "inference").f32();
      const size_t last = (seq.size() - 1) * vocab;
      seq.push_back(static_cast<int32_t>(std::max_element(logits.begin() + static_cast<ptrdiff_t>(last),
                                                          logits.begin() + static_cast<ptrdiff_t>(last + 10)) -
                                         (logits.begin() + static_cast<ptrdiff_t>(last))));
    }
    return seq[6] + 10 * seq[7] + 100 * seq[8];
  };
  // Exact-match accuracy on `n` pairs of one kind (held out or not), drawn from a fixed stream.
  auto accuracy = [&](int n, bool heldOut) {
    tg::Mulberry32 rng(heldOut ? 1001 : 1002);
    int correct = 0;
    for (int done = 0; done < n;) {
      const int a = static_cast<int>(rng.next() * 100), b = static_cast<int>(rng.next() * 100);
      if (isTestPair(a, b) != heldOut) continue;
      correct += predict(a, b) == a + b ? 1 : 0;
      ++done;
    }
    return static_cast<double>(correct) / n;
  };

  tg::Mulberry32 data(o.seed ^ 0x9e3779b9u);
  const std::vector<float> mask = resultMask(c);
  tg_samples::Series trainAcc{.label = "training pairs", .color = tg_samples::colors::blue};
  tg_samples::Series testAcc{.label = "held-out pairs", .color = tg_samples::colors::red};
  const int every = o.steps >= 8 ? o.steps / 8 : std::max(o.steps, 1);  // short runs: start and end only
  auto probe = [&](int step) {
    trainAcc.x.push_back(step), trainAcc.y.push_back(accuracy(probePairs, false));
    testAcc.x.push_back(step), testAcc.y.push_back(accuracy(probePairs, true));
  };
  probe(0);
  const auto stats = tg_samples::trainLoop(
      train, o.steps, o.logEvery,
      [&](int) {
        std::vector<int32_t> tokens, targets;
        for (int64_t bi = 0; bi < c.batch; ++bi) {
          int a = 0, b = 0;
          do {
            a = static_cast<int>(data.next() * 100), b = static_cast<int>(data.next() * 100);
          } while (isTestPair(a, b));
          const std::vector<int32_t> seq = sequence(a, b);
          tokens.insert(tokens.end(), seq.begin(), seq.end() - 1);
          targets.insert(targets.end(), seq.begin() + 1, seq.end());
        }
        return tg::Feed{{"tokens", std::move(tokens)}, {"targets", std::move(targets)}, {"mask", mask}};
      },
      [&](int i, float) {
        if ((i + 1) % every == 0) probe(i + 1);
      });
  const double heldOut = accuracy(evalPairs, true);
  std::printf("final loss %.6g after %d steps (%.1f ms/step)\n", static_cast<double>(stats.finalLoss()), o.steps,
              stats.msPerStep());
  std::printf("exact-match accuracy on %d held-out pairs: %.1f%%\n", evalPairs, 100 * heldOut);
  std::vector<std::string> examples;
  for (auto [a, b] : {std::pair{23, 45}, {99, 99}, {7, 58}, {50, 50}, {81, 36}, {4, 6}}) {
    const int got = predict(a, b);
    char line[96];
    std::snprintf(line, sizeof line, "%02d+%02d = %3d %s%s", a, b, got, got == a + b ? "ok" : "wrong",
                  isTestPair(a, b) ? " (held out)" : "");
    std::printf("  %s\n", line);
    examples.emplace_back(line);
  }

  tg_samples::Results results("transformer", o, adapter);
  results.loop(stats);
  results.metric("heldOutExactMatch", heldOut);
  results.metric("heldOutPairs", evalPairs);
  results.metric("examples", examples);
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "TRANSFORMER: LOSS ON THE SUM'S DIGITS");
  results.picture("loss.png", "training loss per step");
  tg_samples::writePng(o.out / "accuracy.png",
                       tg_samples::renderPlot({.title = "EXACT-MATCH ACCURACY OF A+B", .xLabel = "step",
                                               .yLabel = "accuracy", .yRange = std::pair{0.0, 1.0},
                                               .series = {trainAcc, testAcc}}));
  results.picture("accuracy.png", "exact-match accuracy of the predicted sums on --probe-pairs training and held-out pairs during training");
  std::printf("wrote %s, loss.png, accuracy.png\n", results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's transformer sample (learning two-digit addition) on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 1500, .seed = 1, .out = "out/transformer"};
  tg_samples::addCommonOptions(app, o);
  int evalPairs = 500, probePairs = 50;
  TransformerConfig c;  // upstream's sizes
  app.add_option("--d", c.d, "model width")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{4096}));
  app.add_option("--layers", c.layers, "transformer blocks")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{64}));
  app.add_option("--heads", c.heads, "attention heads (divides --d)")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{64}));
  app.add_option("--batch", c.batch, "training batch")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{65536}));
  app.add_option("--eval-pairs", evalPairs, "held-out pairs for the final accuracy")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--probe-pairs", probePairs, "pairs of each kind for the accuracy curve (9 points)")->capture_default_str()->check(CLI::PositiveNumber);
  Schedule sched;
  app.add_option("--schedule", sched.kind,
                 "learning-rate schedule: upstream (linear 5e-3 to 5e-4 over 1500 steps) or cosine (--warmup steps up "
                 "to --lr, then a cosine decay to a tenth of it at the last step)")
      ->check(CLI::IsMember({"upstream", "cosine"}))
      ->capture_default_str();
  app.add_option("--lr", sched.lr, "--schedule cosine: the peak learning rate")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--warmup", sched.warmup, "--schedule cosine: warmup steps")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.footer("On a CPU device (lavapipe) the defaults are --steps 300 --batch 64: the GPU defaults (1500 steps at batch 128) would take about 40 minutes there (the former 600-step default took 15).");
  CLI11_PARSE(app, argc, argv);
  if (o.parityGolden.empty() && tg_samples::onCpuDevice(o)) {
    tg_samples::useCpuDefault(app, "--steps", o.steps, 300);
    tg_samples::useCpuDefault(app, "--batch", c.batch, int64_t{64});
  }
  return tg_samples::runMain([&] { return run(o, c, evalPairs, probePairs, sched); });
}
