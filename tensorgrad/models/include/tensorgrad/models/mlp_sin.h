// samples/mlp-sin, ported line by line from upstream's sample.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cmath>
#include <vector>

namespace tg_models {

// samples/mlp-sin: 1 → 64 → 64 → 1, ReLU, MSE; Adam lr 0.005; B = 256. Other widths are
// step_bench's size sweep (1 → H → H → 1).
struct MLP : tg::Module {
  explicit MLP(int64_t hidden = 64)
      : l1(*this, "l1", 1, hidden), l2(*this, "l2", hidden, hidden), l3(*this, "l3", hidden, 1) {}
  tg::Linear l1, l2, l3;
};

inline tg::Tensor mlpForward(const MLP& p, const tg::Tensor& x) {
  return p.l3.fwd(tg::relu(p.l2.fwd(tg::relu(p.l1.fwd(x)))));
}

inline tg::Tensor mlpLoss(const MLP& p, const tg::Inputs& in) {
  const tg::Tensor diff = tg::sub(mlpForward(p, in["x"]), in["y"]);
  return tg::mean(tg::mul(diff, diff));
}

// The MLP's data protocol (upstream's sample): x = f32((2u − 1)π) drawn from one Mulberry32
// stream (seed 7), y = f32(sin(x)) with sin taken in double.
struct SineBatch {
  std::vector<float> x, y;
};
inline SineBatch sineBatch(tg::Mulberry32& rng, int64_t batch) {
  SineBatch b{std::vector<float>(static_cast<size_t>(batch)),
              std::vector<float>(static_cast<size_t>(batch))};
  for (size_t i = 0; i < b.x.size(); ++i) {
    b.x[i] = static_cast<float>((2 * rng.next() - 1) * 3.141592653589793);
    b.y[i] = static_cast<float>(std::sin(static_cast<double>(b.x[i])));
  }
  return b;
}

inline tg::TrainingSpec<MLP> mlpSpec(const MLP& model, int64_t batch = 256) {
  return {.model = model,
          .loss = mlpLoss,
          .inputs = {{"x", {{batch, 1}}}, {"y", {{batch, 1}}}},
          .optimizer = tg::Adam{{}, 0.005},
          .seed = 42};
}

}  // namespace tg_models
