// Op coverage, matrices and convolution (cases/ops_linalg.mjs is the upstream side; it lists
// what is covered).
#include "../parity_case.h"

namespace tg_parity {
namespace {

struct Net : tg::Module {
  Net() {
    W1 = param("W1", {300, 5});
    B2 = param("B2", {2, 16, 16});
    B3 = param("B3", {2, 5, 7});
    Wc = param("Wc", {4, 1, 3, 3}, {.init = tg::init::kaiming()});
  }
  tg::Tensor W1, B2, B3, Wc;
};

tg::Tensor loss(const Net& m, const tg::Inputs& in) {
  using namespace tg;
  const Tensor h1 = matmul(in["x"], m.W1);
  const Tensor h2 = matmul(in["a"], m.B2);
  const Tensor h3 = matmul(in["c"], m.B3);
  const Tensor conv = conv2d(in["img"], m.Wc, {.stride = 2, .padding = 1, .groups = 2});
  const Tensor pooled = maxPool2d(relu(conv), 2, {.stride = 1, .padding = 1});
  const Tensor l1 = mean(square(h1));
  const Tensor l2 = mean(square(h2));
  const Tensor s12 = add(l1, l2);
  const Tensor l3 = mean(square(h3));
  const Tensor s123 = add(s12, l3);
  return add(s123, mean(pooled));
}

Recorded run(const tg::RuntimeOptions& options) {
  Net model;
  tg::SGD sgd;
  sgd.lr = 0.05;
  sgd.momentum = 0.9;
  sgd.nesterov = true;
  sgd.weightDecay = 0.01;
  sgd.clipGradNorm = 1.0;
  return recordTraining(
      tg::TrainingSpec<Net>{.model = model,
                            .loss = loss,
                            .inputs = {{"x", {{4, 300}}}, {"a", {{2, 16, 16}}}, {"c", {{2, 3, 5}}}, {"img", {{1, 2, 5, 5}}}},
                            .optimizer = sgd,
                            .seed = 4},
      3, 22,
      [](tg::Mulberry32& rng) {
        tg::Feed f;
        f["x"] = uniform(rng, 4 * 300);
        f["a"] = uniform(rng, 2 * 16 * 16);
        f["c"] = uniform(rng, 2 * 3 * 5);
        f["img"] = uniform(rng, 2 * 5 * 5, 0, 1);
        return f;
      },
      {}, options);
}

const Registrar registrar({"ops_linalg", run});

}  // namespace
}  // namespace tg_parity
