// samples/pokeformer: the tiny Llama-style decoder of tensorgrad/models/pokeformer.h (RMSNorm,
// RoPE, causal attention, tied embedding; AdamW with a linear LR decay 5e-3 → 5e-4 over 1500
// steps, clipping at norm 1) trained on names. Upstream trains on Pokémon names; the app takes
// the proper names of wamerican's /usr/share/dict/words (one capital, then a–z, 2–14 letters;
// about 8,000), every tenth held out. Tokens 'a'..'z' = 0..25, EOS = 26 begins, ends and pads a
// name; the mask weights the valid positions to sum to 1 per batch. Names are sampled one letter
// at a time through the attached in-graph categorical sampler (B = 1, i32 output) as main.ts's
// sampleName, at two temperatures. Pictures: the loss curve and the held-out loss.
#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include <tensorgrad/models/pokeformer.h>
#include "support/app.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/results.h"
#include "support/train_loop.h"
#include "support/words.h"

namespace {

using tg_models::Pokeformer;
using tg_models::PokeformerConfig;

// main.ts's makeBatch: `batch` names from `name()` as EOS + letters + EOS padding; targets shifted
// by one; the mask 1/valid on each name's letters and its first EOS.
tg::Feed nameBatch(const PokeformerConfig& c, const std::function<std::vector<int32_t>()>& name) {
  const auto eos = static_cast<int32_t>(c.eos);
  std::vector<int32_t> tokens(static_cast<size_t>(c.batch * c.t)), targets(tokens.size());
  std::vector<float> mask(tokens.size(), 0.f);
  int64_t totalValid = 0;
  for (int64_t i = 0; i < c.batch; ++i) {
    const std::vector<int32_t> letters = name();
    const auto len = static_cast<int64_t>(letters.size());
    std::vector<int32_t> seq{eos};
    seq.insert(seq.end(), letters.begin(), letters.end());
    while (static_cast<int64_t>(seq.size()) < c.t + 1) seq.push_back(eos);
    const int64_t valid = std::min(len + 1, c.t);
    for (int64_t j = 0; j < c.t; ++j) {
      const auto at = static_cast<size_t>(i * c.t + j);
      tokens[at] = seq[static_cast<size_t>(j)];
      targets[at] = seq[static_cast<size_t>(j + 1)];
      if (j < valid) mask[at] = 1.f, ++totalValid;
    }
  }
  const double inv = 1.0 / static_cast<double>(totalValid);
  for (float& m : mask) m = static_cast<float>(static_cast<double>(m) * inv);
  return {{"tokens", std::move(tokens)}, {"targets", std::move(targets)}, {"mask", std::move(mask)}};
}

// tests/parity/cases/pokeformer.cpp: d 32, 2 heads, batch 16, seed 42, random names of
// 2..t−2 letters from Mulberry32(12).
int parityRun(tg_samples::CommonOptions& o) {
  const PokeformerConfig c{.vocab = 27, .eos = 26, .t = 16, .d = 32, .layers = 2, .heads = 2, .batch = 16, .batchInfer = 1, .seed = 42};
  o.steps = tg_samples::goldenSteps(o.parityGolden);
  tg_samples::startApp(o);
  Pokeformer model(c);
  auto train = tg::compile(tg_models::pokeformerSpec(model, c), tg_samples::runtimeOptions(o));
  tg::Mulberry32 rng(12);
  const auto stats = tg_samples::trainLoop(train, o.steps, o.logEvery, [&](int) {
    return nameBatch(c, [&] {
      const int64_t len = 2 + static_cast<int64_t>(rng.next() * static_cast<double>(c.t - 3));
      std::vector<int32_t> letters;
      for (int64_t k = 0; k < len; ++k) letters.push_back(static_cast<int32_t>(rng.next() * 26));
      return letters;
    });
  });
  return tg_samples::compareWithGolden(o.parityGolden, stats.losses);
}

std::vector<int32_t> encode(const std::string& w) {
  std::vector<int32_t> out;
  for (char ch : w) out.push_back(ch - 'a');
  return out;
}

int run(tg_samples::CommonOptions& o, PokeformerConfig c, const std::string& wordsFile, int samples,
        const std::vector<double>& temperatures) {
  if (!o.parityGolden.empty()) return parityRun(o);
  if (c.d % c.heads != 0 || c.dHead() % 2 != 0)
    throw std::invalid_argument("--d " + std::to_string(c.d) + " / --heads " + std::to_string(c.heads) +
                                " must give an even head size (RoPE rotates pairs)");
  const std::vector<std::string> names = tg_samples::readWords(wordsFile, "wamerican", 2, static_cast<size_t>(c.t - 2),
                                                               tg_samples::WordCase::Capitalised);
  std::vector<std::string> trainNames, heldOut;
  for (size_t i = 0; i < names.size(); ++i) (i % 10 == 9 ? heldOut : trainNames).push_back(names[i]);
  if (trainNames.empty() || heldOut.empty()) throw std::runtime_error(wordsFile + ": too few proper names to split");
  std::printf("proper names: %zu for training, %zu held out (%s)\n", trainNames.size(), heldOut.size(), wordsFile.c_str());
  const std::string adapter = tg_samples::startApp(o);
  c.seed = o.seed;
  c.batchInfer = 1;
  Pokeformer model(c);
  auto train = tg::compile(tg_models::pokeformerSpec(model, c), tg_samples::runtimeOptions(o));
  auto sampler = train.attach(tg_models::pokeformerSampler(c));
  auto lossOf = train.attach({.forward = tg_models::pokeformerLoss, .inputs = tg_models::pokeformerInputs(c)});
  tg::Mulberry32 rng(o.seed ^ 0x9e3779b9u);
  const auto pick = [](const std::vector<std::string>& pool, tg::Mulberry32& r) {
    return encode(pool[static_cast<size_t>(r.next() * static_cast<double>(pool.size()))]);
  };
  // Held-out loss: the mean over 8 fixed batches of held-out names.
  const auto heldOutLoss = [&] {
    tg::Mulberry32 r(1234);
    double sum = 0;
    for (int b = 0; b < 8; ++b)
      sum += tg_samples::checkRun(lossOf.run(nameBatch(c, [&] { return pick(heldOut, r); })).get(), "held-out loss").f32().at(0) / 8;
    return sum;
  };
  tg_samples::Series val{.label = "held-out names", .color = tg_samples::colors::red};
  const int every = o.steps >= 10 ? o.steps / 10 : std::max(o.steps, 1);
  val.x.push_back(0), val.y.push_back(heldOutLoss());
  const auto stats = tg_samples::trainLoop(
      train, o.steps, o.logEvery, [&](int) { return nameBatch(c, [&] { return pick(trainNames, rng); }); },
      [&](int i, float) {
        if ((i + 1) % every == 0) val.x.push_back(i + 1), val.y.push_back(heldOutLoss());
      });
  std::printf("final loss %.6g after %d steps (%.1f ms/step); held-out loss %.4f → %.4f\n",
              static_cast<double>(stats.finalLoss()), o.steps, stats.msPerStep(), val.y.front(), val.y.back());

  // main.ts's sampleName: fill position p from the sampler's output at p − 1 until EOS.
  const std::unordered_set<std::string> known(names.begin(), names.end());
  const auto sampleName = [&](double temperature) {
    std::vector<int32_t> tokens(static_cast<size_t>(c.t), static_cast<int32_t>(c.eos));
    const std::vector<float> temp{static_cast<float>(std::max(0.05, temperature))};
    std::string name;
    for (int64_t p = 1; p < c.t; ++p) {
      const std::vector<int32_t> next =
          tg_samples::checkRun(sampler.run({{"tokens", tokens}, {"temperature", temp}}).get(), "sample").i32();
      const int32_t id = next.at(static_cast<size_t>(p - 1));
      if (id < 0 || id >= 26) break;  // EOS (or out of range) ends the name
      tokens[static_cast<size_t>(p)] = id;
      name.push_back(static_cast<char>('a' + id));
    }
    return name;
  };
  nlohmann::json sampled = nlohmann::json::object();
  for (double temperature : temperatures) {
    std::vector<std::string> out;
    int novel = 0;
    std::string line;
    for (int i = 0; i < samples; ++i) {
      std::string n = sampleName(temperature);
      if (!n.empty()) n[0] = static_cast<char>(n[0] - 'a' + 'A');
      std::string lower = n;
      if (!lower.empty()) lower[0] = static_cast<char>(lower[0] - 'A' + 'a');
      novel += known.count(lower) ? 0 : 1;
      line += (i ? ", " : "") + n;
      out.push_back(n);
    }
    std::printf("temperature %.2f (%d of %d not in the word list): %s\n", temperature, novel, samples, line.c_str());
    char key[32];
    std::snprintf(key, sizeof key, "%.2f", temperature);
    sampled[key] = {{"names", out}, {"novel", novel}};
  }

  tg_samples::Results results("pokeformer", o, adapter);
  results.loop(stats);
  results.metric("heldOutLossStart", val.y.front());
  results.metric("heldOutLoss", val.y.back());
  results.metric("samples", sampled);
  tg_samples::writeLossCurve(o.out / "loss.png", stats.losses, "POKEFORMER: NEXT-LETTER CROSS-ENTROPY");
  results.picture("loss.png", "training loss per step");
  tg_samples::Series trainS{.label = "training loss", .color = tg_samples::colors::lightBlue, .width = 1};
  for (size_t i = 0; i < stats.losses.size(); ++i) trainS.x.push_back(static_cast<double>(i + 1)), trainS.y.push_back(stats.losses[i]);
  tg_samples::writePng(o.out / "validation.png",
                       tg_samples::renderPlot({.title = "POKEFORMER: TRAINING AND HELD-OUT LOSS", .xLabel = "step",
                                               .yLabel = "loss per letter", .series = {trainS, val}}));
  results.picture("validation.png", "training loss and the loss on held-out names");
  std::printf("wrote %s, loss.png, validation.png\n", results.write().string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train upstream's pokeformer sample (a tiny Llama-style decoder) on proper names from a word list on a WebGPU (Vulkan) device."};
  tg_samples::CommonOptions o{.steps = 300, .seed = 42, .out = "out/pokeformer"};
  tg_samples::addCommonOptions(app, o);
  PokeformerConfig c;  // upstream's sizes
  std::string wordsFile = tg_samples::kWordsFile;
  int samples = 12;
  std::vector<double> temperatures{0.5, 1.0};
  app.add_option("--words", wordsFile, "word list, one a line (its capitalised words are the names)")->capture_default_str();
  app.add_option("--samples", samples, "names to sample at each temperature")->capture_default_str()->check(CLI::Range(0, 10000));
  app.add_option("--temperatures", temperatures, "sampling temperatures")->capture_default_str()->check(CLI::Range(0.01, 100.0));
  app.add_option("--d", c.d, "model width")->capture_default_str()->check(CLI::Range(int64_t{2}, int64_t{4096}));
  app.add_option("--layers", c.layers, "decoder blocks")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{64}));
  app.add_option("--heads", c.heads, "attention heads (d / heads even)")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{64}));
  app.add_option("--batch", c.batch, "training batch")->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{65536}));
  CLI11_PARSE(app, argc, argv);
  return tg_samples::runMain([&] { return run(o, c, wordsFile, samples, temperatures); });
}
