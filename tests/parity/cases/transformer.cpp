// samples/transformer at small sizes (cases/transformer.mjs is the upstream side): d = 32,
// 2 layers of 2 heads, batch 16; random tokens and targets, the sample's result-digit mask; the
// sample's B = 1 inference graph attached as a forward.
#include <tensorgrad/models/transformer.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

tg_models::TransformerConfig config() {
  tg_models::TransformerConfig c;
  c.vocab = 12;
  c.d = 32;
  c.layers = 2;
  c.heads = 2;
  c.seqLen = 9;
  c.batch = 16;
  c.resultDigits = 3;
  return c;
}

Recorded run(const tg::RuntimeOptions& options) {
  const tg_models::TransformerConfig c = config();
  const tg_models::Transformer model(c);
  // The sample's RESULT_MASK: ones from RESULT_START − 1 = T − resultDigits to the end.
  std::vector<float> mask(static_cast<size_t>(c.t()), 0.f);
  for (int64_t t = c.t() - c.resultDigits; t < c.t(); ++t) mask[static_cast<size_t>(t)] = 1.f;

  std::vector<ForwardProbe<tg_models::Transformer>> forwards;
  forwards.push_back(
      {"predict",
       {.forward = [](const tg_models::Transformer& m, const tg::Inputs& in) {
          return tg_models::transformerForward(m, in["tokens"]);
        },
        .inputs = {{"tokens", {{1, c.t()}, tg::Dtype::I32}}}},
       [c](tg::Mulberry32& rng) { return tg::Feed{{"tokens", labels(rng, c.t(), static_cast<int32_t>(c.vocab))}}; }});
  return recordTraining(tg_models::transformerSpec(model), 20, 11,
                        [c, mask](tg::Mulberry32& rng) {
                          const auto vocab = static_cast<int32_t>(c.vocab);
                          // Separate statements: tokens are drawn before targets.
                          std::vector<int32_t> tokens = labels(rng, c.batch * c.t(), vocab);
                          std::vector<int32_t> targets = labels(rng, c.batch * c.t(), vocab);
                          return tg::Feed{{"tokens", std::move(tokens)},
                                          {"targets", std::move(targets)},
                                          {"mask", mask}};
                        },
                        std::move(forwards), options);
}

const Registrar registrar({"transformer", run});

}  // namespace
}  // namespace tg_parity
