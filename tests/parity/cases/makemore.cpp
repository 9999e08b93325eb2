// samples/makemore at small sizes (cases/makemore.mjs is the upstream side).
#include <tensorgrad/models/makemore_batch.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

const tg_models::MakemoreConfig kConfig{
    .vocab = 27, .d = 32, .layers = 2, .heads = 2, .seqLen = 17, .batch = 16, .seed = 42};

// main.ts's makeBatch on random names of 2–12 letters ('.' = 0, 'a'..'z' = 1..26).
tg::Feed nameBatch(tg::Mulberry32& rng) {
  return tg_models::makemoreBatch(
      kConfig, [&] { return static_cast<size_t>(2 + static_cast<int64_t>(rng.next() * 11)); },
      [&](size_t) { return 1 + static_cast<int32_t>(rng.next() * 26); });
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
