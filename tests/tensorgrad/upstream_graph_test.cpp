// Op-for-op parity with upstream: the training graphs upstream's own trace() builds for the
// README MLP and its transformer sample (golden/upstream_*_graph.json, written by
// golden/gen_upstream_graphs.sh from an upstream checkout) equal ours field for field, and
// the kernel counts agree.
#include <gtest/gtest.h>

#include <fstream>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>


namespace {

void expectSameGraph(const tg::CompiledIR& ir, const char* file) {
  const nlohmann::json up =
      nlohmann::json::parse(std::ifstream(std::string(TG_GOLDEN_DIR) + "/" + file));
  const nlohmann::json ours = tg::graphToJson(ir.graph);
  ASSERT_EQ(ours["ops"].size(), up["ops"].size());
  int reported = 0;
  for (size_t i = 0; i < up["ops"].size() && reported < 5; ++i) {
    if (ours["ops"][i] != up["ops"][i]) {
      ADD_FAILURE() << "op " << i << ":\n  upstream " << up["ops"][i].dump() << "\n  ours     "
                    << ours["ops"][i].dump();
      ++reported;
    }
  }
  EXPECT_EQ(ours["tensors"], up["tensors"]);
  EXPECT_EQ(ours["outputs"], up["outputs"]);
  EXPECT_EQ(ours["captures"], up["captures"]);
  const auto& kernels = ir.kernels;
  EXPECT_EQ(
      std::count_if(kernels.begin(), kernels.end(), [](const auto& k) { return !k.wgsl.empty(); }),
      up["kernels"].get<long>());
}

TEST(UpstreamGraph, MlpTrainingGraphIsIdentical) {
  const tg_models::MLP model;
  expectSameGraph(tg::trace(tg_models::mlpSpec(model)), "upstream_mlp_graph.json");
}

TEST(UpstreamGraph, TransformerTrainingGraphIsIdentical) {
  const tg_models::Transformer model;
  expectSameGraph(tg::trace(tg_models::transformerSpec(model)), "upstream_transformer_graph.json");
}

}  // namespace
