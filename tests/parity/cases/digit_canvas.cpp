// samples/digit-canvas at small sizes (cases/digit_canvas.mjs is the upstream side; it says why
// these).
#include <tensorgrad/models/digit_canvas.h>
#include "../parity_case.h"

namespace tg_parity {
namespace {

using tg_models::DigitMlp;

const tg_models::DigitCanvasConfig kConfig{
    .inputDim = 784, .hidden = 16, .classes = 10, .batch = 16, .evalBatch = 32, .seed = 7};

Recorded run(const tg::RuntimeOptions& options) {
  const tg_models::DigitCanvasConfig& c = kConfig;
  DigitMlp model(c);
  const tg::AttachSpec<DigitMlp> predict{.forward = tg_models::digitCanvasPredict,
                                         .inputs = tg_models::digitCanvasPredictInputs(c)};
  std::vector<ForwardProbe<DigitMlp>> forwards;
  forwards.push_back({"predict_canvas", predict, [c](tg::Mulberry32& rng) {
                        return tg::Feed{{"x", pixels(rng, c.inputDim)}};
                      }});
  forwards.push_back({"predict_eval", predict, [c](tg::Mulberry32& rng) {
                        return tg::Feed{{"x", pixels(rng, c.evalBatch * c.inputDim)}};
                      }});
  return recordTraining(tg_models::digitCanvasSpec(model, c), 20, 13,
                        [c](tg::Mulberry32& rng) {
                          std::vector<float> x = pixels(rng, c.batch * c.inputDim);
                          std::vector<int32_t> y = labels(rng, c.batch, static_cast<int32_t>(c.classes));
                          return tg::Feed{{"x", std::move(x)}, {"y", std::move(y)}};
                        },
                        std::move(forwards), options);
}

const Registrar registrar({"digit_canvas", run});

}  // namespace
}  // namespace tg_parity
