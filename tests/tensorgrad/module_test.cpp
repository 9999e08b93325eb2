// Modules, parameter names and init, traceForward and captures.
#include <gtest/gtest.h>

#include <cmath>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>


namespace {

std::vector<std::string> names(const tg::Module& m) {
  std::vector<std::string> out;
  for (const auto& p : m.parameters()) out.push_back(p->path);
  return out;
}

TEST(Module, DottedNamesFollowDeclarationOrderLikeUpstream) {
  const tg_models::Transformer model({.layers = 2});
  const auto n = names(model);
  ASSERT_EQ(n.size(), 2u + 2 * 12 + 2);
  EXPECT_EQ(n[0], "tok_emb");
  EXPECT_EQ(n[1], "pos_emb");
  EXPECT_EQ(n[2], "layers.0.ln1.g");
  EXPECT_EQ(n[3], "layers.0.ln1.b");
  EXPECT_EQ(n[4], "layers.0.attn.q.W");
  EXPECT_EQ(n[8], "layers.0.ln2.g");
  EXPECT_EQ(n[10], "layers.0.mlp.up.W");
  EXPECT_EQ(n[11], "layers.0.mlp.up.b");
  EXPECT_EQ(n[14], "layers.1.ln1.g");
  EXPECT_EQ(n.back(), "lnf.b");
}

TEST(Module, DecayDefaultsFollowTheInit) {
  const tg_models::Transformer model({.layers = 1});
  for (const auto& p : model.parameters()) {
    const bool normOrBias = p->path.ends_with(".g") || p->path.ends_with(".b");
    EXPECT_EQ(p->decay, !normOrBias) << p->path;
  }
}

struct Inits : tg::Module {
  tg::Tensor k = param("k", {400, 50}, {.init = tg::init::kaiming()});
  tg::Tensor o = param("o", {3}, {.init = tg::init::ones()});
  tg::Tensor l = param("l", {2}, {.init = tg::init::literal({1.5f, -2.0f})});
  tg::Tensor r = param("r", {1000}, {.init = tg::init::randn(0.5), .decay = false});
};

TEST(Module, InitKinds) {
  const Inits model;
  const tg::CompiledIR ir = tg::traceForward(tg::ForwardSpec<Inits>{
      .model = model,
      .forward = [](const Inits& m, const tg::Inputs&) { return tg::sum(m.k); },
      .inputs = {},
      .seed = 5});
  auto params = tg::initialParams(ir, 5);
  const auto stddev = [](const std::vector<float>& v) {
    double s = 0, s2 = 0;
    for (float x : v) s += x, s2 += double{x} * x;
    const double n = static_cast<double>(v.size());
    return std::sqrt(s2 / n - (s / n) * (s / n));
  };
  EXPECT_NEAR(stddev(params[0].second), std::sqrt(2.0) / std::sqrt(400.0), 0.004);  // gain/√fan_in
  EXPECT_EQ(params[1].second, (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(params[2].second, (std::vector<float>{1.5f, -2.0f}));
  EXPECT_NEAR(stddev(params[3].second), 0.5, 0.03);
  EXPECT_FALSE(model.parameters()[3]->decay);
  // A different seed draws a different stream; the same seed the same one.
  EXPECT_NE(tg::initialParams(ir, 6)[0].second, params[0].second);
  EXPECT_EQ(tg::initialParams(ir, 5)[0].second, params[0].second);
}

TEST(Module, LiteralOfTheWrongSizeIsNamed) {
  struct Bad : tg::Module {
    tg::Tensor w = param("w", {3}, {.init = tg::init::literal({1, 2})});
  } model;
  const tg::CompiledIR ir = tg::traceForward(
      tg::ForwardSpec<Bad>{.model = model,
                           .forward = [](const Bad& m, const tg::Inputs&) { return tg::sum(m.w); },
                           .inputs = {},
                           .seed = 1});
  try {
    tg::initialParams(ir, 1);
    ADD_FAILURE() << "no error";
  } catch (const tg::TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("'w'"), std::string::npos) << e.what();
  }
}

TEST(Trace, ForwardGraphHasNoBackwardAndKeepsCaptures) {
  const tg_models::Transformer model(
      {.vocab = 12, .d = 16, .layers = 2, .heads = 2, .seqLen = 5, .batch = 3});
  const tg::CompiledIR ir = tg::traceForward(tg::ForwardSpec<tg_models::Transformer>{
      .model = model,
      .forward =
          [](const tg_models::Transformer& m, const tg::Inputs& in) {
            return tg_models::transformerForward(m, in["tokens"]);
          },
      .inputs = {{"tokens", {{3, 4}, tg::Dtype::I32}}},
      .seed = 2});
  EXPECT_EQ(ir.graph.tensor(ir.output).shape, (tg::Shape{3, 4, 12}));
  EXPECT_TRUE(ir.paramGrads.empty());
  EXPECT_FALSE(ir.optimizerConfig.has_value());
  for (const tg::Op& op : ir.graph.ops) {
    EXPECT_NE(op.kind, tg::OpKind::ReluGrad);
    EXPECT_NE(op.kind, tg::OpKind::AdamUpdateP);
  }
  ASSERT_EQ(ir.graph.captures.size(), 4u);
  EXPECT_EQ(ir.graph.captures[0].first, "residual.0");
  EXPECT_EQ(ir.graph.captures[1].first, "attn.0");
  EXPECT_EQ(ir.graph.tensor(ir.graph.captures[1].second).shape, (tg::Shape{3, 2, 4, 4}));
  EXPECT_EQ(ir.plan.capturesByName.size(), 4u);
  // A captured tensor keeps its own buffer: nothing else is ever planned into it.
  const int captureBuffer = ir.plan.capturesByName[1].second;
  EXPECT_EQ(std::count(ir.plan.tensorToBuffer.begin(), ir.plan.tensorToBuffer.end(), captureBuffer),
            1);
}

TEST(Trace, UnknownInputNameListsTheDeclaredOnes) {
  const tg_models::MLP model;
  try {
    tg::traceForward(tg::ForwardSpec<tg_models::MLP>{
        .model = model,
        .forward = [](const tg_models::MLP& m,
                      const tg::Inputs& in) { return tg_models::mlpForward(m, in["z"]); },
        .inputs = {{"x", {{4, 1}}}},
        .seed = 1});
    ADD_FAILURE() << "no error";
  } catch (const tg::TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("'z'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("declared: x"), std::string::npos) << e.what();
  }
}

TEST(Trace, AParameterFromAnotherModelIsNamed) {
  const tg_models::MLP model, other;
  try {
    tg::traceForward(tg::ForwardSpec<tg_models::MLP>{
        .model = model,
        .forward = [&](const tg_models::MLP&,
                       const tg::Inputs& in) { return tg_models::mlpForward(other, in["x"]); },
        .inputs = {{"x", {{4, 1}}}},
        .seed = 1});
    ADD_FAILURE() << "no error";
  } catch (const tg::TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("'l1.W'"), std::string::npos) << e.what();
  }
}

}  // namespace
