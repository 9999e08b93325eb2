// samples/pokeformer at small sizes (cases/pokeformer.mjs is the upstream side).
#include <algorithm>

#include <tensorgrad/models/pokeformer.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

const tg_models::PokeformerConfig kConfig{.vocab = 27,
                                          .eos = 26,
                                          .t = 16,
                                          .d = 32,
                                          .layers = 2,
                                          .heads = 2,
                                          .batch = 16,
                                          .batchInfer = 1,
                                          .seed = 42};

// main.ts's makeBatch on random names of 2..t−2 letters ('a'..'z' = 0..25, EOS = 26).
tg::Feed nameBatch(tg::Mulberry32& rng) {
  const int64_t b = kConfig.batch, t = kConfig.t;
  const auto eos = static_cast<int32_t>(kConfig.eos);
  std::vector<int32_t> tokens(static_cast<size_t>(b * t)), targets(tokens.size());
  std::vector<float> mask(tokens.size(), 0.f);
  int totalValid = 0;
  for (int64_t i = 0; i < b; ++i) {
    const int64_t len = 2 + static_cast<int64_t>(rng.next() * static_cast<double>(t - 3));
    std::vector<int32_t> seq{eos};
    for (int64_t c = 0; c < len; ++c) seq.push_back(static_cast<int32_t>(rng.next() * 26));
    while (static_cast<int64_t>(seq.size()) < t + 1) seq.push_back(eos);
    const int64_t validCount = std::min(len + 1, t);
    for (int64_t j = 0; j < t; ++j) {
      const auto at = static_cast<size_t>(i * t + j);
      tokens[at] = seq[static_cast<size_t>(j)];
      targets[at] = seq[static_cast<size_t>(j + 1)];
      if (j < validCount) {
        mask[at] = 1.f;
        ++totalValid;
      }
    }
  }
  const double inv = 1.0 / totalValid;
  for (float& m : mask) m = static_cast<float>(static_cast<double>(m) * inv);
  return {
      {"tokens", std::move(tokens)}, {"targets", std::move(targets)}, {"mask", std::move(mask)}};
}

// sampleName's input: EOS, 0–7 letters sampled so far, EOS fill; temperature 0.8.
tg::Feed partialName(tg::Mulberry32& rng) {
  std::vector<int32_t> tokens(static_cast<size_t>(kConfig.batchInfer * kConfig.t),
                              static_cast<int32_t>(kConfig.eos));
  const int64_t len = static_cast<int64_t>(rng.next() * 8);
  for (int64_t i = 0; i < len; ++i)
    tokens[static_cast<size_t>(i + 1)] = static_cast<int32_t>(rng.next() * 26);
  return {{"tokens", std::move(tokens)},
          {"temperature", std::vector<float>{static_cast<float>(0.8)}}};
}

Recorded run(const tg::RuntimeOptions& options) {
  tg_models::Pokeformer model(kConfig);
  std::vector<ForwardProbe<tg_models::Pokeformer>> forwards;
  forwards.push_back({"sample", tg_models::pokeformerSampler(kConfig), partialName});
  return recordTraining(tg_models::pokeformerSpec(model, kConfig), 20, 12, nameBatch,
                        std::move(forwards), options);
}

const Registrar registrar({"pokeformer", run});

}  // namespace
}  // namespace tg_parity
