// samples/mlp-sin (cases/mlp_sin.mjs is the upstream side).
#include <cmath>

#include <tensorgrad/models/mlp_sin.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

constexpr int64_t kBatch = 256;

Recorded run(const tg::RuntimeOptions& options) {
  tg_models::MLP model;
  std::vector<ForwardProbe<tg_models::MLP>> forwards;
  forwards.push_back(
      {"predict",
       {.forward = [](const tg_models::MLP& m, const tg::Inputs& in) { return tg_models::mlpForward(m, in["x"]); },
        .inputs = {{"x", {{tg::null, 1}}}}},
       [](tg::Mulberry32& rng) { return tg::Feed{{"x", uniform(rng, 50, -M_PI, M_PI)}}; }});
  return recordTraining(tg_models::mlpSpec(model, kBatch), 30, 7,
                        [](tg::Mulberry32& rng) {
                          tg_models::SineBatch b = tg_models::sineBatch(rng, kBatch);
                          return tg::Feed{{"x", std::move(b.x)}, {"y", std::move(b.y)}};
                        },
                        std::move(forwards), options);
}

const Registrar registrar({"mlp_sin", run});

}  // namespace
}  // namespace tg_parity
