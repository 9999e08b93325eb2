// The sample registry: every model by name traces at its default sizes, takes its sizes as
// options, rejects unknown or out-of-range ones naming them, and draws feeds that fit its inputs
// (names, element counts, dtypes, index ranges), the same feeds for the same stream.
#include <gtest/gtest.h>

#include <cmath>

#include <tensorgrad/models/registry.h>

namespace {

TEST(Registry, HasUpstreamsTwelveSamples) {
  std::vector<std::string> names;
  for (const auto& e : tg_models::sampleModels()) names.push_back(e.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"mlp-sin", "transformer", "mnist-cnn", "digit-canvas", "vae",
                                      "makemore", "pokeformer", "kan-tiny", "flow-matching-tiny",
                                      "nerf-tiny", "cartpole", "tic-tac-toe"}));
}

TEST(Registry, DefaultsAreTheConfigDefaults) {
  const auto& t = tg_models::findSample("transformer");
  EXPECT_EQ(t.defaults(), (tg_models::Sizes{{"vocab", 12},
                                            {"d", 64},
                                            {"layers", 3},
                                            {"heads", 4},
                                            {"seq-len", 9},
                                            {"batch", 128},
                                            {"result-digits", 3}}));
  EXPECT_EQ(tg_models::findSample("mlp-sin").defaults(),
            (tg_models::Sizes{{"batch", 256}, {"hidden", 64}}));
}

TEST(Registry, SizesChangeTheModel) {
  const auto& e = tg_models::findSample("transformer");
  const tg::CompiledIR small = e.make({{"d", 32}, {"layers", 1}}).trace();
  const tg::CompiledIR big = e.make({{"d", 32}, {"layers", 2}}).trace();
  EXPECT_GT(big.graph.ops.size(), small.graph.ops.size());
  for (const auto& [name, buffer] : small.plan.paramsByName)
    if (name == "tok_emb") {
      EXPECT_EQ(small.plan.buffers.at(static_cast<size_t>(buffer)).shape, (tg::Shape{12, 32}));
    }
  EXPECT_EQ(e.make({{"d", 32}}).sizes().at("d"), 32);
  EXPECT_EQ(e.make({{"d", 32}}).sizes().at("layers"), 3);  // defaults filled in
}

TEST(Registry, ErrorsNameTheModelAndSize) {
  try {
    tg_models::findSample("resnet");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown model 'resnet'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("tic-tac-toe"), std::string::npos);
  }
  const auto& t = tg_models::findSample("transformer");
  EXPECT_THROW(t.make({{"width", 3}}), std::invalid_argument);
  try {
    t.make({{"d", 0}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("size d = 0 is out of range"), std::string::npos);
  }
  EXPECT_THROW(tg_models::findSample("nerf-tiny").make({{"freqs", 64}}),
               std::invalid_argument);  // 2^64
}

// Every sample at its defaults: traces, and its feed fits the declared inputs.
TEST(Registry, EverySampleTracesAndItsFeedFits) {
  for (const auto& e : tg_models::sampleModels()) {
    SCOPED_TRACE(e.name);
    const tg_models::Sample s = e.make({}, 1);
    const tg::CompiledIR ir = s.trace();
    EXPECT_FALSE(ir.kernels.empty());
    EXPECT_FALSE(ir.paramGrads.empty());
    tg::Mulberry32 rng(3), again(3);
    const tg::Feed feed = s.feed(rng);
    EXPECT_EQ(feed.size(), s.spec().inputs.size());
    for (const auto& [name, decl] : s.spec().inputs) {
      ASSERT_TRUE(feed.count(name)) << name;
      const tg::Array& a = feed.at(name);
      EXPECT_EQ(static_cast<int64_t>(a.size()), tg::shapeSize(decl.shape)) << name;
      EXPECT_EQ(a.dtype() == tg::Dtype::I32, decl.dtype == tg::Dtype::I32) << name;
      if (a.dtype() == tg::Dtype::I32) {
        for (int32_t v : a.i32()) EXPECT_GE(v, 0) << name;
      }
    }
    const tg::Feed same = s.feed(again);
    for (const auto& [name, a] : feed) {
      if (a.dtype() == tg::Dtype::F32) {
        EXPECT_EQ(a.f32(), same.at(name).f32()) << name;
      } else {
        EXPECT_EQ(a.i32(), same.at(name).i32()) << name;
      }
    }
    EXPECT_FALSE(s.forwards().empty());
  }
}

// A sample compiled on the default device: steps on its feeds and runs its forwards.
TEST(Registry, CompiledSampleStepsAndRunsItsForwards) {
  for (const char* name : {"mlp-sin", "kan-tiny"}) {
    SCOPED_TRACE(name);
    const tg_models::Sample s = tg_models::findSample(name).make({{"batch", 16}}, 7);
    tg_models::SampleTraining t = s.compile({.cacheDir = TG_TEST_CACHE_DIR});
    tg::Mulberry32 rng(1);
    for (int i = 0; i < 2; ++i) {
      const tg::StepResult r = t.training.step(s.feed(rng)).get();
      ASSERT_EQ(r.kind, tg::ResultKind::Completed) << r.error;
      EXPECT_TRUE(std::isfinite(r.loss));
    }
    ASSERT_EQ(t.forwards.size(), s.forwards().size());
    const tg::RunResult out = t.forward("predict").run(s.forwards()[0].feed(rng)).get();
    ASSERT_EQ(out.kind, tg::ResultKind::Completed) << out.error;
    EXPECT_GT(out.output.size(), 0u);
    EXPECT_THROW(t.forward("nope"), std::invalid_argument);
    t.training.destroy();
  }
}

}  // namespace
