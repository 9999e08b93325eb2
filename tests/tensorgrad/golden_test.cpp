// Forward values of the ops, optimizer trajectories and LR schedules against PyTorch golden
// values (tests/tensorgrad/golden/gen_golden.py writes them with Debian's python3-torch; the
// committed JSON is all the tests read).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "cpu_trainer.h"

namespace {

using tg::Tensor;
using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

nlohmann::json load(const char* file) {
  return nlohmann::json::parse(std::ifstream(std::string(TG_GOLDEN_DIR) + "/" + file));
}

// The tensorgrad spelling of each golden case (names match gen_golden.py).
const std::map<std::string, Fn>& ports() {
  using namespace tg;
  static const std::map<std::string, Fn> table = {
      {"add_broadcast", [](auto& x) { return add(x[0], x[1]); }},
      {"sub_broadcast", [](auto& x) { return sub(x[0], x[1]); }},
      {"mul_broadcast", [](auto& x) { return mul(x[0], x[1]); }},
      {"div_broadcast", [](auto& x) { return div(x[0], x[1]); }},
      {"min", [](auto& x) { return min(x[0], x[1]); }},
      {"max", [](auto& x) { return max(x[0], x[1]); }},
      {"rsub_scalar", [](auto& x) { return sub(2.0, x[0]); }},
      {"rdiv_scalar", [](auto& x) { return div(3.0, x[0]); }},
      {"div_scalar", [](auto& x) { return div(x[0], 4.0); }},
      {"clamp", [](auto& x) { return clamp(x[0], -0.5, 0.5); }},
      {"sqrt", [](auto& x) { return sqrt(x[0]); }},
      {"rsqrt", [](auto& x) { return rsqrt(x[0]); }},
      {"log", [](auto& x) { return log(x[0]); }},
      {"exp", [](auto& x) { return exp(x[0]); }},
      {"relu", [](auto& x) { return relu(x[0]); }},
      {"neg", [](auto& x) { return neg(x[0]); }},
      {"abs", [](auto& x) { return abs(x[0]); }},
      {"tanh", [](auto& x) { return tanh(x[0]); }},
      {"sigmoid", [](auto& x) { return sigmoid(x[0]); }},
      {"erf", [](auto& x) { return erf(x[0]); }},
      {"sin", [](auto& x) { return sin(x[0]); }},
      {"cos", [](auto& x) { return cos(x[0]); }},
      {"gelu", [](auto& x) { return gelu(x[0]); }},
      {"gelu_tanh", [](auto& x) { return gelu(x[0], GeluApprox::Tanh); }},
      {"silu", [](auto& x) { return silu(x[0]); }},
      {"softplus", [](auto& x) { return softplus(x[0]); }},
      {"leaky_relu", [](auto& x) { return leakyRelu(x[0], 0.1); }},
      {"square", [](auto& x) { return square(x[0]); }},
      {"mean_axis1_keepdims", [](auto& x) { return mean(x[0], 1, {.keepDims = true}); }},
      {"sum_last", [](auto& x) { return sum(x[0], -1); }},
      {"sum_axis0_keepdims", [](auto& x) { return sum(x[0], 0, {.keepDims = true}); }},
      {"mean_all", [](auto& x) { return mean(x[0]); }},
      {"sum_all", [](auto& x) { return sum(x[0]); }},
      {"argmax_axis1", [](auto& x) { return argmax(x[0], 1); }},
      {"argmin_axis0", [](auto& x) { return argmin(x[0], 0); }},
      {"argmax_all", [](auto& x) { return argmax(x[0]); }},
      {"reshape_infer",
       [](auto& x) {
         return reshape(x[0], {3, -1});
       }},
      {"permute",
       [](auto& x) {
         return permute(x[0], {2, 0, 1});
       }},
      {"swap_axes", [](auto& x) { return swapAxes(x[0], -1, 0); }},
      {"matmul_broadcast", [](auto& x) { return matmul(x[0], x[1]); }},
      {"matmul_batched", [](auto& x) { return matmul(x[0], x[1]); }},
      {"softmax_axis0", [](auto& x) { return softmax(x[0], 0); }},
      {"log_softmax", [](auto& x) { return logSoftmax(x[0]); }},
      {"softmax_causal", [](auto& x) { return softmaxCausal(x[0]); }},
      {"where_causal", [](auto& x) { return whereCausal(x[0], -7.0); }},
      {"less", [](auto& x) { return less(x[0], x[1]); }},
      {"greater_scalar", [](auto& x) { return greater(x[0], 0.25); }},
      {"where", [](auto& x) { return where(less(x[0], 0.0), x[1], x[2]); }},
      {"one_hot", [](auto& x) { return oneHot(x[0], 5); }},
      {"embedding", [](auto& x) { return embedding(x[0], x[1]); }},
      {"take_along_axis", [](auto& x) { return takeAlongAxis(x[0], x[1], 1); }},
      {"narrow", [](auto& x) { return narrow(x[0], -1, 1, 3); }},
      {"concat",
       [](auto& x) {
         return concat({x[0], x[1]}, 1);
       }},
      {"concat_nine", [](auto& x) { return concat(x, 0); }},
      {"stack",
       [](auto& x) {
         return stack({x[0], x[1]}, 1);
       }},
      {"split_second",
       [](auto& x) {
         return split(x[0], {2, 4}, -1)[1];
       }},
      {"conv2d", [](auto& x) { return conv2d(x[0], x[1]); }},
      {"conv2d_stride_pad",
       [](auto& x) {
         return conv2d(x[0], x[1], {.stride = {2, 1}, .padding = {1, 1}});
       }},
      {"conv2d_groups",
       [](auto& x) {
         return conv2d(x[0], x[1], {.padding = {1, 1}, .groups = 2});
       }},
      {"max_pool2d",
       [](auto& x) {
         return maxPool2d(x[0], {2, 2});
       }},
      {"max_pool2d_pad",
       [](auto& x) {
         return maxPool2d(x[0], {3, 3}, {.stride = {{2, 2}}, .padding = {1, 1}});
       }},
      {"nearest_upsample2d", [](auto& x) { return nearestUpsample2d(x[0], 2); }},
      {"cross_entropy_mean", [](auto& x) { return crossEntropy(x[0], x[1]); }},
      {"cross_entropy_sum_3d", [](auto& x) { return crossEntropy(x[0], x[1], {Reduction::Sum}); }},
      {"cross_entropy_none", [](auto& x) { return crossEntropy(x[0], x[1], {Reduction::None}); }},
      {"nll_loss", [](auto& x) { return nllLoss(x[0], x[1]); }},
      {"layer_norm",
       [](auto& x) {  // LayerNorm.fwd's formula with the golden g and b
         const Tensor m = mean(x[0], -1, {.keepDims = true});
         const Tensor c = sub(x[0], m);
         const Tensor v = mean(mul(c, c), -1, {.keepDims = true});
         return add(mul(div(c, sqrt(add(v, 1e-5))), x[1]), x[2]);
       }},
      {"rms_norm",
       [](auto& x) {
         return mul(div(x[0], sqrt(add(mean(mul(x[0], x[0]), -1, {.keepDims = true}), 1e-6))),
                    x[1]);
       }},
      {"rope_q", [](auto& x) { return rope(x[0], x[0])[0]; }},
  };
  return table;
}

tg::HostTensor decode(const nlohmann::json& j) {
  const tg::Shape shape = j["shape"].get<tg::Shape>();
  if (j["dtype"] == "f32") return tg::HostTensor::f32(shape, j["data"].get<std::vector<float>>());
  return tg::HostTensor::i32(shape, j["data"].get<std::vector<int32_t>>());
}

TEST(Golden, EveryOpMatchesPyTorch) {
  const nlohmann::json golden = load("ops.json");
  ASSERT_GE(golden["cases"].size(), 60u);
  for (const auto& c : golden["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    auto port = ports().find(name);
    ASSERT_NE(port, ports().end()) << "no tensorgrad port for golden case " << name;
    tg::EvalInputs env;
    int outId = -1;
    tg::Graph g = tg::traceFn([&] {
      std::vector<Tensor> xs;
      for (size_t i = 0; i < c["inputs"].size(); ++i) {
        const tg::HostTensor v = decode(c["inputs"][i]);
        const std::string inName = std::string("x").append(std::to_string(i));
        xs.push_back(tg::tensorInput(inName, v.shape, v.dtype));
        env.inputs[inName] = v;
      }
      const Tensor out = port->second(xs);
      outId = out.id();
      return std::vector<Tensor>{out};
    });
    const tg::HostTensor want = decode(c["out"]);
    const tg::HostTensor got = tg::evaluate(g, env)[static_cast<size_t>(outId)];
    ASSERT_EQ(got.shape, want.shape);
    if (want.dtype == tg::Dtype::F32) {
      ASSERT_EQ(got.dtype, tg::Dtype::F32);
      for (size_t k = 0; k < want.f.size(); ++k)
        EXPECT_NEAR(got.f[k], want.f[k], 1e-6 + 1e-5 * std::abs(want.f[k])) << "element " << k;
    } else {
      EXPECT_EQ(got.i, want.i);  // i32 and bool (0/1) results
    }
  }
}

// A model whose one parameter sees the golden gradient exactly: loss = sum(p · g).
struct OneParam : tg::Module {
  explicit OneParam(std::vector<float> p0)
      : p(param("p", {5}, {.init = tg::init::literal(std::move(p0))})) {}
  Tensor p;
};

void expectTrajectory(const tg::OptimizerConfig& opt, const std::string& key, double tol = 2e-6) {
  SCOPED_TRACE(key);
  const nlohmann::json golden = load("optim.json");
  const OneParam model(golden["p0"].get<std::vector<float>>());
  const tg::CompiledIR ir = tg::trace(tg::TrainingSpec<OneParam>{
      .model = model,
      .loss = [](const OneParam& m,
                 const tg::Inputs& in) { return tg::sum(tg::mul(m.p, in["g"])); },
      .inputs = {{"g", {{5}}}},
      .optimizer = opt,
      .seed = 0});
  tg_test::CpuTrainer trainer(ir, 0);
  const auto grads = golden["grads"].get<std::vector<std::vector<float>>>();
  const auto want = golden[key].get<std::vector<std::vector<float>>>();
  for (size_t step = 0; step < grads.size(); ++step) {
    trainer.step({{"g", tg::HostTensor::f32({5}, grads[step])}});
    const auto& p = trainer.env().params.at("p").f;
    for (size_t k = 0; k < 5; ++k)
      EXPECT_NEAR(p[k], want[step][k], tol) << "step " << step + 1 << " element " << k;
  }
}

tg::Adam adam(tg::LR lr, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8) {
  tg::Adam a;
  a.lr = std::move(lr);
  a.beta1 = beta1;
  a.beta2 = beta2;
  a.eps = eps;
  return a;
}

tg::SGD sgd(double lr, double momentum = 0, bool nesterov = false, double weightDecay = 0) {
  tg::SGD s;
  s.lr = lr;
  s.momentum = momentum;
  s.nesterov = nesterov;
  s.weightDecay = weightDecay;
  return s;
}

TEST(Golden, OptimizerTrajectoriesMatchTorchOptim) {
  expectTrajectory(adam(0.01), "adam");
  expectTrajectory(adam(0.02, 0.8, 0.99, 1e-6), "adam_betas");
  tg::AdamW w;
  w.lr = 0.01;
  w.weightDecay = 0.1;
  expectTrajectory(w, "adamw");
  expectTrajectory(sgd(0.1), "sgd");
  expectTrajectory(sgd(0.1, 0.9), "sgd_momentum");
  expectTrajectory(sgd(0.1, 0.9, true), "sgd_nesterov");
  expectTrajectory(sgd(0.1, 0, false, 0.01), "sgd_l2");
  expectTrajectory(adam(tg::lr::linear(0.01, 0.001, 4)), "adam_linear_lr");
  tg::SGD clipped = sgd(0.1);
  clipped.clipGradNorm = 0.5;
  expectTrajectory(clipped, "sgd_clip");
  tg::SGD normalized = sgd(0.1);
  normalized.normalizeGrads = true;
  expectTrajectory(normalized, "sgd_normalize");
}

TEST(Optimizer, NormalizeFilterThatMatchesNothingIsAnError) {
  tg::SGD s = sgd(0.1);
  s.normalizeGrads = tg::NameFilter([](const std::string& name) { return name == "nope"; });
  const OneParam model({1, 2, 3, 4, 5});
  try {
    tg::trace(tg::TrainingSpec<OneParam>{
        .model = model,
        .loss = [](const OneParam& m,
                   const tg::Inputs& in) { return tg::sum(tg::mul(m.p, in["g"])); },
        .inputs = {{"g", {{5}}}},
        .optimizer = s,
        .seed = 0});
    ADD_FAILURE() << "no error";
  } catch (const tg::TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("matched no parameters"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("available: p"), std::string::npos) << e.what();
  }
}

TEST(Golden, LrSchedulesMatchTorchSchedulers) {
  const nlohmann::json golden = load("lr.json");
  const auto linear = golden["linear"].get<std::vector<double>>();
  const auto cosine = golden["cosine"].get<std::vector<double>>();
  const auto step = golden["step"].get<std::vector<double>>();
  const auto multi = golden["multistep"].get<std::vector<double>>();
  for (int64_t s = 1; s <= 12; ++s) {
    const auto i = static_cast<size_t>(s);
    // Our step s is torch's value after s scheduler steps (StepLR's boundary is one later).
    EXPECT_NEAR(tg::resolveLR(tg::lr::linear(0.1, 0.01, 8), s), linear[i], 1e-12) << s;
    if (s <= 8) {
      EXPECT_NEAR(tg::resolveLR(tg::lr::cosineAnnealing(0.1, 0.001, 8), s), cosine[i], 1e-12) << s;
    }
    EXPECT_NEAR(tg::resolveLR(tg::lr::staircase(0.1, 3, 0.5), s), step[i - 1], 1e-12) << s;
    EXPECT_NEAR(tg::resolveLR(tg::lr::multiStep(0.1, {2, 5, 9}, 0.3), s), multi[i], 1e-12) << s;
  }
  // Past its length cosine holds its final value (torch's recursive form would climb again).
  EXPECT_DOUBLE_EQ(tg::resolveLR(tg::lr::cosineAnnealing(0.1, 0.001, 8), 20), 0.001);
}

TEST(LrSchedule, WarmupAndSetLrRebasing) {
  const tg::LR w = tg::lr::warmup(0.1, 4, tg::lr::linear(0.1, 0.0, 10));
  EXPECT_DOUBLE_EQ(tg::resolveLR(w, 1), 0.025);
  EXPECT_DOUBLE_EQ(tg::resolveLR(w, 4), 0.1);
  EXPECT_DOUBLE_EQ(tg::resolveLR(w, 5), tg::resolveLR(tg::lr::linear(0.1, 0.0, 10), 1));
  // setLR at step 101 makes the new schedule's step 1 the next step; constants never rebase.
  const tg::LR rebased = tg::rebaseLR(tg::lr::linear(0.2, 0.0, 10), 101);
  EXPECT_DOUBLE_EQ(tg::resolveLR(rebased, 101), tg::resolveLR(tg::lr::linear(0.2, 0.0, 10), 1));
  EXPECT_DOUBLE_EQ(tg::resolveLR(rebased, 100),
                   tg::resolveLR(tg::lr::linear(0.2, 0.0, 10), 1));  // clamped to its step 1
  EXPECT_DOUBLE_EQ(tg::resolveLR(tg::rebaseLR(0.3, 50), 7), 0.3);
  EXPECT_TRUE(tg::isLRDynamic(w));
  EXPECT_FALSE(tg::isLRDynamic(0.3));
}

}  // namespace
