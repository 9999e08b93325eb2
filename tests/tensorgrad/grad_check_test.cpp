// Finite-difference checks of every differentiable op's adjoint rule: the analytic gradient of
// loss = sum(f(inputs) · w) (w fixed and random) against central differences on the CPU
// evaluator, over several shapes, broadcasting and negative axes.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include <tensorgrad/tensorgrad.h>

namespace {

using tg::Shape;
using tg::Tensor;
using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Input {
  Shape shape;
  double lo = -1, hi = 1;  // values drawn from ±[lo, hi] (lo > 0 keeps away from zero)
  bool positive = false;   // draw from [lo, hi] only
};

std::vector<float> draw(const Input& in, std::mt19937& rng) {
  std::uniform_real_distribution<double> mag(in.lo > 0 ? in.lo : 0, in.hi);
  std::vector<float> v(static_cast<size_t>(tg::shapeSize(in.shape)));
  for (float& x : v) {
    const double m =
        in.lo > 0 ? mag(rng) : std::uniform_real_distribution<double>(in.lo, in.hi)(rng);
    x = static_cast<float>(in.positive || in.lo <= 0 ? m : (rng() % 2 ? m : -m));
  }
  return v;
}

// `extra` feeds non-differentiable inputs the function declares itself (i32 indices).
void checkGradients(const std::vector<Input>& inputs, const Fn& f, double tol = 2e-2,
                    const std::map<std::string, tg::HostTensor>& extra = {}) {
  std::mt19937 rng(1234);
  tg::Graph graph;
  std::vector<std::string> names;
  Shape outShape;
  graph = tg::traceFn([&] {
    std::vector<Tensor> xs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      names.push_back(std::string("x").append(std::to_string(i)));
      xs.push_back(tg::paramInput(names.back(), inputs[i].shape));
    }
    const Tensor out = f(xs);
    outShape = out.shape();
    const Tensor w = tg::tensorInput("w", outShape);
    return std::vector<Tensor>{tg::sum(tg::mul(out, w))};
  });
  const tg::GradResult grads = tg::appendGrad(graph);

  tg::EvalInputs env;
  for (size_t i = 0; i < inputs.size(); ++i)
    env.params[names[i]] = tg::HostTensor::f32(inputs[i].shape, draw(inputs[i], rng));
  Input wIn{outShape, -1, 1};
  env.inputs["w"] = tg::HostTensor::f32(outShape, draw(wIn, rng));
  env.inputs[tg::kPrngSeedInput] = tg::HostTensor::i32({}, {7});
  for (const auto& [name, value] : extra) env.inputs[name] = value;

  const auto values = tg::evaluate(graph, env);
  const int lossId = grads.loss;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& analytic = values[static_cast<size_t>(grads.paramGrads[i].second)].f;
    auto& x = env.params[names[i]].f;
    for (size_t k = 0; k < x.size(); ++k) {
      const float saved = x[k];
      const float h = std::max(1e-2f, std::abs(saved) * 1e-2f);
      x[k] = saved + h;
      const double up = tg::evaluate(graph, env)[static_cast<size_t>(lossId)].f[0];
      x[k] = saved - h;
      const double down = tg::evaluate(graph, env)[static_cast<size_t>(lossId)].f[0];
      x[k] = saved;
      const double numeric = (up - down) / (2.0 * h);
      EXPECT_NEAR(analytic[k], numeric, tol * std::max(1.0, std::abs(numeric)))
          << "input " << i << " element " << k;
    }
  }
}

// Values away from 0 (kinks of relu/abs, poles of div/log) and positive where the domain needs it.
const Input away(Shape s) {
  return {std::move(s), 0.2, 1.0};
}
const Input pos(Shape s) {
  return {std::move(s), 0.3, 1.5, true};
}
const Input any(Shape s) {
  return {std::move(s), -1, 1};
}

TEST(GradCheck, Add) {
  checkGradients({any({2, 3}), any({2, 3})}, [](auto& x) { return tg::add(x[0], x[1]); });
  checkGradients({any({2, 3, 4}), any({4})}, [](auto& x) { return tg::add(x[0], x[1]); });
  checkGradients({any({3, 1}), any({2, 3, 4})}, [](auto& x) { return tg::add(x[0], x[1]); });
  checkGradients({any({3})}, [](auto& x) { return tg::add(2.5, x[0]); });
}
TEST(GradCheck, Sub) {
  checkGradients({any({2, 3}), any({3})}, [](auto& x) { return tg::sub(x[0], x[1]); });
  checkGradients({any({4})}, [](auto& x) { return tg::sub(1.0, x[0]); });
}
TEST(GradCheck, Mul) {
  checkGradients({any({2, 3}), any({1, 3})}, [](auto& x) { return tg::mul(x[0], x[1]); });
  checkGradients({any({5})}, [](auto& x) { return tg::mul(x[0], -3.0); });
  checkGradients({any({2, 2})}, [](auto& x) { return tg::square(x[0]); });
}
TEST(GradCheck, Div) {
  checkGradients({any({2, 3}), away({3})}, [](auto& x) { return tg::div(x[0], x[1]); });
  checkGradients({away({4})}, [](auto& x) { return tg::div(2.0, x[0]); });
  checkGradients({any({4})}, [](auto& x) { return tg::div(x[0], 4.0); });
}
TEST(GradCheck, MinMaxClamp) {
  // Operands kept apart (by ±3) so the differences never cross a tie; both sides win somewhere.
  checkGradients({any({6}), any({6})}, [](auto& x) { return tg::min(x[0], tg::add(x[1], 3.0)); });
  checkGradients({any({6}), any({6})}, [](auto& x) { return tg::min(tg::add(x[0], 3.0), x[1]); });
  checkGradients({any({2, 3}), any({3})},
                 [](auto& x) { return tg::max(x[0], tg::add(x[1], 3.0)); });
  checkGradients({any({2, 3}), any({3})},
                 [](auto& x) { return tg::max(tg::add(x[0], 3.0), x[1]); });
  checkGradients({away({8})}, [](auto& x) { return tg::clamp(x[0], -0.5, 0.5); });
}
TEST(GradCheck, Unary) {
  checkGradients({pos({5})}, [](auto& x) { return tg::sqrt(x[0]); });
  checkGradients({pos({5})}, [](auto& x) { return tg::rsqrt(x[0]); });
  checkGradients({pos({5})}, [](auto& x) { return tg::log(x[0]); });
  checkGradients({any({5})}, [](auto& x) { return tg::exp(x[0]); });
  checkGradients({away({6})}, [](auto& x) { return tg::relu(x[0]); });
  checkGradients({any({5})}, [](auto& x) { return tg::neg(x[0]); });
  checkGradients({away({6})}, [](auto& x) { return tg::abs(x[0]); });
  checkGradients({any({5})}, [](auto& x) { return tg::tanh(x[0]); });
  checkGradients({any({5})}, [](auto& x) { return tg::sigmoid(x[0]); });
  checkGradients({any({5})}, [](auto& x) { return tg::erf(x[0]); });
  checkGradients({any({5})}, [](auto& x) { return tg::sin(x[0]); });
  checkGradients({any({5})}, [](auto& x) { return tg::cos(x[0]); });
}
TEST(GradCheck, Composites) {
  checkGradients({any({2, 3})}, [](auto& x) { return tg::gelu(x[0]); });
  checkGradients({any({2, 3})}, [](auto& x) { return tg::gelu(x[0], tg::GeluApprox::Tanh); });
  checkGradients({any({5})}, [](auto& x) { return tg::silu(x[0]); });
  checkGradients({away({6})}, [](auto& x) { return tg::leakyRelu(x[0], 0.1); });
  checkGradients({away({6})}, [](auto& x) { return tg::softplus(x[0]); });
}
TEST(GradCheck, Reductions) {
  checkGradients({any({2, 3, 4})}, [](auto& x) { return tg::mean(x[0], -1, {.keepDims = true}); });
  checkGradients({any({2, 3, 4})}, [](auto& x) { return tg::mean(x[0], 1); });
  checkGradients({any({2, 3, 4})}, [](auto& x) { return tg::sum(x[0], 0, {.keepDims = true}); });
  checkGradients({any({3, 4})}, [](auto& x) { return tg::sum(x[0], -2); });
  checkGradients({any({3, 4})}, [](auto& x) { return tg::mean(x[0]); });
}
TEST(GradCheck, ShapeOps) {
  checkGradients({any({2, 6})}, [](auto& x) { return tg::reshape(x[0], {3, -1}); });
  checkGradients({any({2, 3, 4})}, [](auto& x) { return tg::permute(x[0], {2, 0, 1}); });
  checkGradients({any({2, 3, 4})}, [](auto& x) { return tg::swapAxes(x[0], -1, 0); });
  checkGradients({any({3})}, [](auto& x) { return tg::broadcastTo(x[0], {2, 3}); });
  checkGradients({any({2, 3})}, [](auto& x) { return tg::sumToShape(x[0], {1, 3}); });
  checkGradients({any({2, 4, 6})}, [](auto& x) { return tg::mergeHeads(tg::splitHeads(x[0], 2)); });
}
TEST(GradCheck, Matmul) {
  checkGradients({any({3, 4}), any({4, 2})}, [](auto& x) { return tg::matmul(x[0], x[1]); });
  checkGradients({any({2, 3, 4}), any({4, 5})}, [](auto& x) { return tg::matmul(x[0], x[1]); });
  checkGradients({any({2, 3, 4}), any({2, 4, 2})}, [](auto& x) { return tg::matmul(x[0], x[1]); });
}
TEST(GradCheck, SoftmaxFamily) {
  checkGradients({any({2, 5})}, [](auto& x) { return tg::logSoftmax(x[0]); });
  checkGradients({any({3, 4})}, [](auto& x) { return tg::logSoftmax(x[0], 0); });
  checkGradients({any({2, 5})}, [](auto& x) { return tg::softmax(x[0], -1); });
  checkGradients({any({2, 4, 4})}, [](auto& x) { return tg::softmaxCausal(x[0]); });
  checkGradients({any({3, 3})}, [](auto& x) { return tg::whereCausal(x[0], -5.0); });
}
TEST(GradCheck, Selection) {
  checkGradients({away({2, 3}), any({2, 3}), any({3})},
                 [](auto& x) { return tg::where(tg::less(x[0], 0.0), x[1], x[2]); });
}
TEST(GradCheck, SlicingAndJoining) {
  checkGradients({any({3, 5})}, [](auto& x) { return tg::narrow(x[0], -1, 1, 3); });
  checkGradients({any({2, 3}), any({2, 2})}, [](auto& x) { return tg::concat({x[0], x[1]}, 1); });
  checkGradients({any({2, 3}), any({2, 3})}, [](auto& x) { return tg::stack({x[0], x[1]}, 0); });
  std::vector<Input> many(9, any({1, 2}));
  checkGradients(many, [](auto& x) { return tg::concat(x, 0); });  // past the binding cap
  checkGradients({any({2, 6})}, [](auto& x) { return tg::split(x[0], {2, 4}, -1)[1]; });
}
TEST(GradCheck, IndexingAndLosses) {
  const std::map<std::string, tg::HostTensor> idx = {
      {"idx", tg::HostTensor::i32({2, 3}, {0, 4, 2, 1, 1, 3})}};
  const auto index = [] { return tg::tensorInput("idx", {2, 3}, tg::Dtype::I32); };
  checkGradients(
      {any({5, 4})}, [&](auto& x) { return tg::embedding(x[0], index()); }, 2e-2, idx);
  checkGradients(
      {any({2, 3, 5})}, [&](auto& x) { return tg::crossEntropy(x[0], index()); }, 2e-2, idx);
  checkGradients(
      {any({2, 3, 5})},
      [&](auto& x) { return tg::crossEntropy(x[0], index(), {tg::Reduction::Sum}); }, 2e-2, idx);
  checkGradients(
      {any({2, 3, 5})},
      [&](auto& x) { return tg::crossEntropy(x[0], index(), {tg::Reduction::None}); }, 2e-2, idx);
  const std::map<std::string, tg::HostTensor> along = {
      {"along", tg::HostTensor::i32({2, 2}, {2, 0, 1, 1})}};
  checkGradients(
      {any({2, 3})},
      [](auto& x) {
        return tg::takeAlongAxis(x[0], tg::tensorInput("along", {2, 2}, tg::Dtype::I32), 1);
      },
      2e-2, along);
  checkGradients({any({2, 4, 6}), any({2, 4, 6})}, [](auto& x) {
    auto r = tg::rope(x[0], x[1]);
    return tg::add(r[0], r[1]);
  });
}
TEST(GradCheck, ConvAndPool) {
  checkGradients({any({1, 2, 5, 5}), any({3, 2, 3, 3})},
                 [](auto& x) { return tg::conv2d(x[0], x[1]); });
  checkGradients({any({2, 2, 5, 4}), any({2, 2, 2, 2})}, [](auto& x) {
    return tg::conv2d(x[0], x[1], {.stride = {2, 1}, .padding = {1, 1}});
  });
  checkGradients({any({1, 4, 4, 4}), any({4, 2, 3, 3})}, [](auto& x) {
    return tg::conv2d(x[0], x[1], {.stride = {1, 1}, .padding = {1, 1}, .groups = 2});
  });
  checkGradients({any({1, 2, 4, 4})}, [](auto& x) { return tg::maxPool2d(x[0], {2, 2}); });
  checkGradients({any({1, 1, 5, 5})}, [](auto& x) {
    return tg::maxPool2d(x[0], {3, 3}, {.stride = {{2, 2}}, .padding = {1, 1}});
  });
  checkGradients({any({1, 2, 2, 3})}, [](auto& x) { return tg::nearestUpsample2d(x[0], 2); });
}
TEST(GradCheck, DropoutUsesTheForwardMask) {
  checkGradients({any({4, 8})}, [](auto& x) { return tg::dropout(x[0], 0.3); });
}
TEST(GradCheck, Layers) {
  checkGradients({any({2, 3, 4}), pos({4}), any({4})}, [](auto& x) {
    const Tensor m = tg::mean(x[0], -1, {.keepDims = true});
    const Tensor c = tg::sub(x[0], m);
    const Tensor v = tg::mean(tg::mul(c, c), -1, {.keepDims = true});
    return tg::add(tg::mul(tg::div(c, tg::sqrt(tg::add(v, 1e-5))), x[1]), x[2]);
  });
}

}  // namespace
