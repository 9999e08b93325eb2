// samples/mnist-cnn at small sizes (cases/mnist_cnn.mjs is the upstream side; it says why these).
#include <tensorgrad/models/mnist_cnn.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

using tg_models::MnistCnn;

const tg_models::MnistCnnConfig kConfig{.batch = 16,
                                        .evalBatch = 32,
                                        .imageSize = 16,
                                        .classes = 10,
                                        .conv1Out = 4,
                                        .conv2Out = 8,
                                        .hidden = 16,
                                        .seed = 5};

Recorded run(const tg::RuntimeOptions& options) {
  const tg_models::MnistCnnConfig& c = kConfig;
  MnistCnn model(c);
  std::vector<ForwardProbe<MnistCnn>> forwards;
  forwards.push_back({"predict",
                      {.forward = tg_models::mnistCnnPredict, .inputs = tg_models::mnistCnnPredictInputs(c)},
                      [c](tg::Mulberry32& rng) {
                        return tg::Feed{{"x", pixels(rng, c.evalBatch * c.imageSize * c.imageSize)}};
                      }});
  return recordTraining(tg_models::mnistCnnSpec(model, c), 20, 11,
                        [c](tg::Mulberry32& rng) {
                          std::vector<float> x = pixels(rng, c.batch * c.imageSize * c.imageSize);
                          std::vector<int32_t> y = labels(rng, c.batch, static_cast<int32_t>(c.classes));
                          return tg::Feed{{"x", std::move(x)}, {"y", std::move(y)}};
                        },
                        std::move(forwards), options);
}

const Registrar registrar({"mnist_cnn", run});

}  // namespace
}  // namespace tg_parity
