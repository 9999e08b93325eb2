// samples/flow-matching-tiny at small sizes (cases/flow_matching_tiny.mjs is the upstream side; it
// says why these).
#include <tensorgrad/models/flow_matching_tiny.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

using tg_models::FlowMatchingTiny;

const tg_models::FlowMatchingTinyConfig kConfig{
    .imageH = 16, .imageW = 16, .tSteps = 10, .batch = 16, .convCh = 16, .embDim = 16, .seed = 8};

// Time buckets uniform in 1..T.
std::vector<int32_t> buckets(tg::Mulberry32& rng, int64_t n, int64_t tSteps) {
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (int32_t& t : out) t = 1 + static_cast<int32_t>(rng.next() * static_cast<double>(tSteps));
  return out;
}

Recorded run(const tg::RuntimeOptions& options) {
  const tg_models::FlowMatchingTinyConfig& c = kConfig;
  FlowMatchingTiny model(c);
  std::vector<ForwardProbe<FlowMatchingTiny>> forwards;
  forwards.push_back({"predict",
                      {.forward = tg_models::flowMatchingPredict<tg_models::FlowMatchingTiny>,
                       .inputs = tg_models::flowMatchingPredictInputs(c)},
                      [c](tg::Mulberry32& rng) {
                        std::vector<float> xT = gauss(rng, c.imageH * c.imageW);
                        std::vector<int32_t> t = buckets(rng, 1, c.tSteps);
                        return tg::Feed{{"x_t", std::move(xT)}, {"t", std::move(t)}};
                      }});
  return recordTraining(tg_models::flowMatchingTinySpec(model, c), 20, 14,
                        [c, table = tg_models::flowTNormTable(c)](tg::Mulberry32& rng) {
                          std::vector<float> x0 = pixels(rng, c.batch * c.imageH * c.imageW);
                          std::vector<int32_t> t = buckets(rng, c.batch, c.tSteps);
                          return tg::Feed{{"x_0", std::move(x0)}, {"t", std::move(t)}, {"tNorm_table", table}};
                        },
                        std::move(forwards), options);
}

const Registrar registrar({"flow_matching_tiny", run});

}  // namespace
}  // namespace tg_parity
