// Op coverage, element-wise (cases/ops_elementwise.mjs is the upstream side; it lists what is
// covered). Every op is bound to a local in upstream's order: each call appends to the graph.
#include <limits>

#include "../parity_case.h"

namespace tg_parity {
namespace {

constexpr int64_t kB = 4, kD = 20, kL = 300;

struct Net : tg::Module {
  Net() {
    W = param("W", {kD, kD});
    v = param("v", {kD}, {.init = tg::init::ones()});
    u = param("u", {kL}, {.init = tg::init::randn(0.5)});
  }
  tg::Tensor W, v, u;
};

tg::Tensor body(const Net& m, const tg::Tensor& x) {
  using namespace tg;
  const Tensor h = matmul(x, m.W);
  const Tensor a = mul(h, m.v);
  const Tensor p = abs(a);
  const Tensor t1 = log(add(p, 1));
  const Tensor sq = square(a);
  const Tensor t2 = rsqrt(add(sq, 1));
  const Tensor t3 = sqrt(add(p, 0.5));
  const Tensor t4 = tanh(neg(a));
  const Tensor t5 = erf(a);
  const Tensor t6 = sigmoid(sin(a));
  const Tensor t7 = cos(exp(clamp(a, -3, 3)));
  const Tensor t8 = gelu(a);
  const Tensor t9 = silu(a);
  const Tensor t10 = softplus(a);
  const Tensor t11 = leakyRelu(a, 0.1);
  const Tensor big = greater(a, 0.01);
  const Tensor small = less(a, -0.01);
  const Tensor sel = where(big, t1, where(small, t2, t3));
  Tensor acc = add(sel, t4);
  acc = sub(acc, t7);
  const Tensor prod = mul(t8, t9);
  acc = add(acc, prod);
  const Tensor denom = add(t10, 1);
  acc = div(acc, denom);
  const Tensor lo = min(acc, t11);
  const Tensor hi = max(lo, t5);
  const Tensor frozen = stopGradient(t6);
  const Tensor one = ones({kB, kD});
  return add(hi, mul(frozen, one));
}

tg::Tensor causal(const tg::Tensor& z) {
  return tg::reshape(tg::narrow(z, 1, 0, 16), {kB, 4, 4});
}

tg::Tensor loss(const Net& m, const tg::Inputs& in) {
  using namespace tg;
  const Tensor z = body(m, in["x"]);
  const Tensor rows = mean(z, -1);
  const Tensor sl = sum(narrow(z, 1, 2, 5), -1);
  const Tensor masked = mean(whereCausal(causal(z), 0.5));
  const Tensor q = mul(reshape(m.u, {1, kL}), in["xl"]);
  const Tensor longRows = mean(q, -1);
  const Tensor meanRows = mean(rows);
  const Tensor meanSl = mean(sl);
  const Tensor s1 = add(add(meanRows, meanSl), masked);
  return add(s1, mean(square(longRows)));
}

tg::Feed xFeed(tg::Mulberry32& rng) {
  return {{"x", uniform(rng, kB * kD, -2, 2)}};
}

Recorded run(const tg::RuntimeOptions& options) {
  Net model;
  const tg::InputDecls x = {{"x", {{kB, kD}}}};
  std::vector<ForwardProbe<Net>> forwards;
  forwards.push_back({"argmax",
                      {.forward = [](const Net& m, const tg::Inputs& in) { return tg::argmax(body(m, in["x"]), -1); },
                       .inputs = x, .output = tg::Dtype::I32},
                      xFeed});
  forwards.push_back({"sample",
                      {.forward = [](const Net& m, const tg::Inputs& in) { return tg::categorical(body(m, in["x"])); },
                       .inputs = x, .output = tg::Dtype::I32},
                      xFeed});
  forwards.push_back({"masked_softmax",
                      {.forward =
                           [](const Net& m, const tg::Inputs& in) {
                             const tg::Tensor c = causal(body(m, in["x"]));
                             return tg::softmax(tg::whereCausal(c, -std::numeric_limits<double>::infinity()));
                           },
                       .inputs = x},
                      xFeed});
  forwards.push_back({"int_math",
                      {.forward =
                           [](const Net&, const tg::Inputs& in) {
                             const tg::Tensor k = in["k"];
                             const tg::Tensor num = tg::add(tg::mul(k, k), 3);
                             const tg::Tensor den = tg::sub(k, 2);
                             return tg::max(tg::min(tg::div(num, den), 20), -20);
                           },
                       .inputs = {{"k", {{16}, tg::Dtype::I32}}}, .output = tg::Dtype::I32},
                      [](tg::Mulberry32& rng) { return tg::Feed{{"k", labels(rng, 16, 6)}}; }});
  return recordTraining(tg::TrainingSpec<Net>{.model = model,
                                              .loss = loss,
                                              .inputs = {{"x", {{kB, kD}}}, {"xl", {{2, kL}}}},
                                              .optimizer = tg::Adam{{}, 0.01},
                                              .seed = 3},
                        3, 21,
                        [](tg::Mulberry32& rng) {
                          std::vector<float> xs = uniform(rng, kB * kD, -2, 2);
                          return tg::Feed{{"x", std::move(xs)}, {"xl", uniform(rng, 2 * kL)}};
                        },
                        std::move(forwards), options);
}

const Registrar registrar({"ops_elementwise", run});

}  // namespace
}  // namespace tg_parity
