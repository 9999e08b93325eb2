// samples/makemore at small sizes (cases/makemore.mjs is the upstream side).
#include <algorithm>

#include "../../../samples/models/makemore.h"
#include "../parity_case.h"

namespace tg_parity {
namespace {

const tg_models::MakemoreConfig kConfig{
    .vocab = 27, .d = 32, .layers = 2, .heads = 2, .seqLen = 17, .batch = 16, .seed = 42};

// main.ts's makeBatch on random names of 2–12 letters ('.' = 0, 'a'..'z' = 1..26).
tg::Feed nameBatch(tg::Mulberry32& rng) {
  const int64_t b = kConfig.batch, t = kConfig.t();
  std::vector<int32_t> tokens(static_cast<size_t>(b * t)), targets(tokens.size());
  std::vector<float> mask(tokens.size(), 0.f);
  std::vector<int32_t> full(static_cast<size_t>(kConfig.seqLen));
  int valid = 0;
  for (int64_t bi = 0; bi < b; ++bi) {
    const int64_t len = 2 + static_cast<int64_t>(rng.next() * 11);
    std::fill(full.begin(), full.end(), 0);
    for (int64_t i = 0; i < len; ++i)
      full[static_cast<size_t>(i + 1)] = 1 + static_cast<int32_t>(rng.next() * 26);
    const int64_t lastValid = std::min(len, t - 1);
    for (int64_t j = 0; j < t; ++j) {
      const auto at = static_cast<size_t>(bi * t + j);
      tokens[at] = full[static_cast<size_t>(j)];
      targets[at] = full[static_cast<size_t>(j + 1)];
      if (j <= lastValid) {
        mask[at] = 1.f;
        ++valid;
      }
    }
  }
  const double inv = 1.0 / valid;
  for (float& m : mask) m = static_cast<float>(static_cast<double>(m) * inv);
  return {
      {"tokens", std::move(tokens)}, {"targets", std::move(targets)}, {"mask", std::move(mask)}};
}

// The sampler's input: '.' then 0–7 letters generated so far, '.'-padded.
tg::Feed partialName(tg::Mulberry32& rng) {
  std::vector<int32_t> tokens(static_cast<size_t>(kConfig.t()), 0);
  const int64_t len = static_cast<int64_t>(rng.next() * 8);
  for (int64_t i = 0; i < len; ++i)
    tokens[static_cast<size_t>(i + 1)] = 1 + static_cast<int32_t>(rng.next() * 26);
  return {{"tokens", std::move(tokens)}};
}

Recorded run(const tg::RuntimeOptions& options) {
  tg_models::Makemore model(kConfig);
  std::vector<ForwardProbe<tg_models::Makemore>> forwards;
  forwards.push_back({"sample", tg_models::makemoreSampler(kConfig), partialName});
  forwards.push_back({"valLoss", tg_models::makemoreValLoss(kConfig), nameBatch});
  return recordTraining(tg_models::makemoreSpec(model, kConfig), 20, 11, nameBatch,
                        std::move(forwards), options);
}

const Registrar registrar({"makemore", run});

}  // namespace
}  // namespace tg_parity
