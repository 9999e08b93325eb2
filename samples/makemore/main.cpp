// samples/makemore: upstream's character-level name generator (tensorgrad/models/makemore.h: a
// pre-LayerNorm decoder transformer, d 64, 3 layers of 4 heads, tied output embedding; masked
// per-token cross-entropy; AdamW with a linear LR decay and clipping) on real words: wamerican's
// /usr/share/dict/words (lowercase a–z, 2–15 letters) instead of upstream's names.txt, split 90/10
// by upstream's stable name hash. Batches as main.ts's makeBatch; the validation loss through the
// attached loss forward; new words sampled at temperature 1 through the attached B = 1 forward.
#include <cmath>
#include <cstdio>
#include <unordered_set>

#include <tensorgrad/models/makemore_batch.h>
#include "support/app.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/train_loop.h"
#include "support/words.h"

namespace {

using tg_models::Makemore;
using tg_models::MakemoreConfig;

// main.ts's isTestName: a stable 32-bit hash, one word in ten held out.
bool isTestWord(const std::string& w) {
  int32_t h = 0;
  for (char ch : w) h = static_cast<int32_t>(static_cast<uint32_t>(h) * 31u + static_cast<uint32_t>(ch));
  return ((h % 10) + 10) % 10 == 0;
}

// tests/parity/cases/makemore.cpp: d 32, 2 layers of 2 heads, batch 16, seed 42; random names
// of 2–12 letters from Mulberry32(11), drawn letter by letter.
int parityRun(tg_samples::CommonOptions& o) {
  const MakemoreConfig c{.vocab = 27, .d = 32, .layers = 2, .heads = 2, .seqLen = 17, .batch = 16, .seed = 42};
  o.steps = tg_samples::goldenSteps(o.parityGolden);
  tg_samples::startApp(o);
  Makemore model(c);
  auto train = tg::compile(tg_models::makemoreSpec(model, c), tg_samples::runtimeOptions(o));
  tg::Mulberry32 rng(11);
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) {
    return tg_models::makemoreBatch(
        c, [&] { return static_cast<size_t>(2 + static_cast<int64_t>(rng.next() * 11)); },
        [&](size_t) { return 1 + static_cast<int32_t>(rng.next() * 26); });
  });
  return tg_samples::compareWithGolden(o.parityGolden, stats.losses);
}

int run(tg_samples::CommonOptions& o, MakemoreConfig c, const std::string& wordsFile, int samples) {
  if (!o.parityGolden.empty()) return parityRun(o);
  if (c.d % c.heads != 0)
    throw std::invalid_argument("--d " + std::to_string(c.d) + " is not a multiple of --heads " + std::to_string(c.heads));
  c.seed = o.seed;
  const std::vector<std::string> words =
      tg_samples::readWords(wordsFile, "wamerican", 2, static_cast<size_t>(c.seqLen - 2));
  std::vector<std::string> trainWords, testWords;
  for (const std::string& w : words) (isTestWord(w) ? testWords : trainWords).push_back(w);
  if (trainWords.empty() || testWords.empty()) throw std::runtime_error(wordsFile + ": too few words to split");
  std::printf("words: %zu for training, %zu held out (%s)\n", trainWords.size(), testWords.size(), wordsFile.c_str());
  const std::string adapter = tg_samples::startApp(o);

  Makemore model(c);
  auto train = tg::compile(tg_models::makemoreSpec(model, c), tg_samples::runtimeOptions(o));
  auto sampler = train.attach(tg_models::makemoreSampler(c));
  auto valLoss = train.attach(tg_models::makemoreValLoss(c));
  auto batchOf = [&](const std::vector<std::string>& pool, tg::Mulberry32& rng) {
    const std::string* w = nullptr;
    return tg_models::makemoreBatch(
        c,
        [&] {
          w = &pool[static_cast<size_t>(rng.next() * static_cast<double>(pool.size()))];
          return w->size();
        },
        [&](size_t i) { return tg_samples::letterToken((*w)[i]); });
  };
  // The validation loss: the mean over 4 fixed held-out batches.
  auto validate = [&] {
    tg::Mulberry32 rng(77);
    double sum = 0;
    for (int k = 0; k < 4; ++k) sum += tg_samples::checkRun(valLoss.run(batchOf(testWords, rng)).get(), "val loss").f32()[0];
    return sum / 4;
  };
  tg::Mulberry32 data(o.seed ^ 0x85ebca6bu);
  tg_samples::Series val{.label = "validation loss (held-out words)", .color = tg_samples::colors::red};
  const int every = o.steps >= 10 ? o.steps / 10 : std::max(o.steps, 1);  // short runs: start and end only
  val.x.push_back(0), val.y.push_back(validate());
  const auto stats = tg_samples::trainLoop(
      train, o.steps, o.logEvery, [&](int) { return batchOf(trainWords, data); },
      [&](int i, float) {
        if ((i + 1) % every == 0) val.x.push_back(i + 1), val.y.push_back(validate());
      });

  // Sampling at temperature 1 (softmax on the host, as upstream).
  tg::Mulberry32 srng(o.seed + 7);
  const std::unordered_set<std::string> known(trainWords.begin(), trainWords.end());
  std::vector<std::string> generated;
  int novel = 0;
  for (int s = 0; s < samples; ++s) {
    std::string word;
    while (static_cast<int64_t>(word.size()) + 1 < c.t()) {
      std::vector<int32_t> tokens(static_cast<size_t>(c.t()), 0);
      for (size_t i = 0; i < word.size(); ++i) tokens[i + 1] = tg_samples::letterToken(word[i]);
      const std::vector<float> logits = tg_samples::checkRun(sampler.run({{"tokens", tokens}}).get(), "sampler").f32();
      const size_t at = word.size() * static_cast<size_t>(c.vocab);
      const float peak = *std::max_element(logits.begin() + static_cast<ptrdiff_t>(at), logits.begin() + static_cast<ptrdiff_t>(at) + c.vocab);
      std::vector<double> p(static_cast<size_t>(c.vocab));
      double z = 0;
      for (size_t v = 0; v < p.size(); ++v) z += p[v] = std::exp(static_cast<double>(logits[at + v] - peak));
      double r = srng.next() * z, acc = 0;
      size_t next = p.size() - 1;
      for (size_t v = 0; v < p.size(); ++v) {
        acc += p[v];
        if (r < acc) {
          next = v;
          break;
        }
      }
      if (next == 0) break;
      word.push_back(tg_samples::tokenLetter(static_cast<int32_t>(next)));
    }
    novel += known.count(word) ? 0 : 1;
    generated.push_back(word);
  }
  const double finalVal = val.y.back();
  std::printf("final loss %.6g after %d steps (%.1f ms/step); validation loss %.4f (uniform: %.4f)\n",
              static_cast<double>(stats.finalLoss()), o.steps, stats.msPerStep(), finalVal, std::log(27.0));
  std::printf("%d sampled words (%d not in the training list):", samples, novel);
  for (const std::string& w : generated) std::printf(" %s", w.c_str());
  std::printf("\n");

  tg_samples::Results results("makemore", o, adapter);
  results.loop(stats);
  results.metric("validationLoss", finalVal);
  results.metric("samples", generated);
  results.metric("novelSamples", novel);
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "MAKEMORE: PER-TOKEN CROSS-ENTROPY");
  results.picture("loss.png", "training loss per step");
  tg_samples::Series trainCurve{.label = "training loss", .color = tg_samples::colors::lightBlue, .width = 1};
  for (size_t i = 0; i < stats.losses.size(); ++i) trainCurve.x.push_back(static_cast<double>(i)), trainCurve.y.push_back(stats.losses[i]);
  tg_samples::writePng(o.out / "validation.png",
                       tg_samples::renderPlot({.title = "MAKEMORE: TRAINING VS HELD-OUT LOSS", .xLabel = "step",
                                               .yLabel = "nats per token", .series = {trainCurve, val}}));
  results.picture("validation.png", "training loss and the loss on held-out words during training");
  std::printf("wrote %s, loss.png, validation.png\n", results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's makemore sample (a character-level transformer) on a word list on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 800, .seed = 42, .out = "out/makemore"};
  tg_samples::addCommonOptions(app, o);
  std::string wordsFile = tg_samples::kWordsFile;
  int samples = 20;
  MakemoreConfig c;  // upstream's sizes
  app.add_option("--d", c.d, "model width")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{4096}));
  app.add_option("--layers", c.layers, "transformer blocks")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{64}));
  app.add_option("--heads", c.heads, "attention heads (divides --d)")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{64}));
  app.add_option("--batch", c.batch, "training batch")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{65536}));
  app.add_option("--words", wordsFile, "word list, one a line")->capture_default_str();
  app.add_option("--samples", samples, "words to generate")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.footer("On a CPU device (lavapipe) the defaults are --steps 400 --layers 1: the GPU defaults take about 10 minutes there.");
  CLI11_PARSE(app, argc, argv);
  if (o.parityGolden.empty() && tg_samples::onCpuDevice(o)) {
    tg_samples::useCpuDefault(app, "--steps", o.steps, 400);
    tg_samples::useCpuDefault(app, "--layers", c.layers, int64_t{1});
  }
  return tg_samples::runMain([&] { return run(o, c, wordsFile, samples); });
}
