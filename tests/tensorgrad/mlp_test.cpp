// The README MLP against upstream's recorded facts: initial parameters bit for bit (SHA-256 over
// little-endian f32) and training losses on the CPU reference evaluator.
#include <gtest/gtest.h>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>

#include "cpu_trainer.h"
#include "sha256.h"

namespace {

TEST(Mlp, SeededInitMatchesUpstreamBitForBit) {
  tg_models::MLP model;
  const tg::CompiledIR ir = tg::trace(tg_models::mlpSpec(model));
  const auto params = tg::initialParams(ir, 42);
  ASSERT_EQ(params.size(), 6u);
  std::map<std::string, std::vector<float>> byName(params.begin(), params.end());
  EXPECT_EQ(params[0].first, "l1.W");
  EXPECT_EQ(params[1].first, "l1.b");
  EXPECT_EQ(byName["l1.W"][0], -0.019123245030641556f);
  EXPECT_EQ(byName["l1.W"][1], -0.005460522137582302f);
  EXPECT_EQ(byName["l1.W"][2], -0.036832544952631f);
  EXPECT_EQ(byName["l2.W"][0], 0.03517382591962814f);
  EXPECT_EQ(byName["l3.W"][0], -0.009640735574066639f);
  EXPECT_EQ(tg_test::sha256Hex(byName["l1.W"]),
            "a29e13d672b868dd92bad11740b331d4a4236c8c14dca3b9daf7c5762128e88e");
  EXPECT_EQ(tg_test::sha256Hex(byName["l2.W"]),
            "71f5d6846ff5d313223b2fd0171b5ac0613e1369aa106881cabc5719d8b051c5");
  EXPECT_EQ(tg_test::sha256Hex(byName["l3.W"]),
            "c2d8393af08cb2445048a53cfb7959ff96fc7381349340ae6c84a281372a7da7");
  EXPECT_EQ(tg_test::sha256Hex(byName["l1.b"]).substr(0, 8), "5341e6b2");
  EXPECT_EQ(tg_test::sha256Hex(byName["l3.b"]).substr(0, 8), "df3f6198");
}

TEST(Mlp, CpuTrainingReproducesUpstreamLosses) {
  tg_models::MLP model;
  const tg::CompiledIR ir = tg::trace(tg_models::mlpSpec(model));
  tg_test::CpuTrainer trainer(ir, 42);
  tg_test::SineBatches data;
  std::map<int, double> losses;
  for (int step = 0; step <= 50; ++step) losses[step] = trainer.step(data.next(256));
  EXPECT_NEAR(losses[0], 0.4860408306121826, 0.4860408306121826 * 1e-5);
  EXPECT_NEAR(losses[10], 0.2932558059692383, 0.2932558059692383 * 0.01);
  EXPECT_NEAR(losses[50], 0.10499478876590729, 0.10499478876590729 * 0.01);
}

TEST(Mlp, TracingNeverMutatesTheModel) {
  tg_models::MLP model;
  const auto before = model.parameters();
  const tg::CompiledIR a = tg::trace(tg_models::mlpSpec(model));
  const tg::CompiledIR b = tg::trace(tg_models::mlpSpec(model));
  EXPECT_EQ(tg::graphToJson(a.graph), tg::graphToJson(b.graph));
  EXPECT_EQ(model.parameters(), before);
  EXPECT_EQ(model.l1.W.shape(), (tg::Shape{1, 64}));
}

}  // namespace
