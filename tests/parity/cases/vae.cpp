// samples/vae at small sizes (cases/vae.mjs is the upstream side; it says why these).
#include <tensorgrad/models/vae.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

using tg_models::Vae;

const tg_models::VaeConfig kConfig{.inputDim = 64, .latent = 8, .hidden = 256, .batch = 32, .seed = 6};

Recorded run(const tg::RuntimeOptions& options) {
  const tg_models::VaeConfig& c = kConfig;
  Vae model(c);
  const tg::AttachSpec<Vae> encode{.forward = tg_models::vaeEncode, .inputs = tg_models::vaeEncodeInputs(c)};
  const tg::AttachSpec<Vae> decode{.forward = tg_models::vaeDecode, .inputs = tg_models::vaeDecodeInputs(c)};
  std::vector<ForwardProbe<Vae>> forwards;
  forwards.push_back({"encode", encode, [c](tg::Mulberry32& rng) {
                        return tg::Feed{{"x", pixels(rng, 2 * c.inputDim)}};
                      }});
  forwards.push_back({"decode_grid", decode, [c](tg::Mulberry32& rng) {
                        return tg::Feed{{"z", gauss(rng, 9 * c.latent)}};
                      }});
  forwards.push_back({"decode_one", decode, [c](tg::Mulberry32& rng) {
                        return tg::Feed{{"z", gauss(rng, c.latent)}};
                      }});
  return recordTraining(tg_models::vaeSpec(model, c), 20, 12,
                        [c](tg::Mulberry32& rng) {
                          return tg::Feed{{"x", pixels(rng, c.batch * c.inputDim)}};
                        },
                        std::move(forwards), options);
}

const Registrar registrar({"vae", run});

}  // namespace
}  // namespace tg_parity
