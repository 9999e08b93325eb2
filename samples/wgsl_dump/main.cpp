// wgsl_dump: compiles the README MLP's training step to WGSL without a GPU
// and writes what the runtime would execute: one .wgsl file per kernel, the graph as JSON with
// upstream's field names, the buffer plan, and a summary.
//
//   wgsl_dump [mlp] [out-dir]
#include <tensorgrad/tensorgrad.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

struct MLP : tg::Module {
  tg::Linear l1{*this, "l1", 1, 64};
  tg::Linear l2{*this, "l2", 64, 64};
  tg::Linear l3{*this, "l3", 64, 1};
};

tg::Tensor mlpLoss(const MLP& p, const tg::Inputs& in) {
  const tg::Tensor h = tg::relu(p.l2.fwd(tg::relu(p.l1.fwd(in["x"]))));
  const tg::Tensor diff = tg::sub(p.l3.fwd(h), in["y"]);
  return tg::mean(tg::mul(diff, diff));
}

void dump(const tg::CompiledIR& ir, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "kernels");
  const auto& kernels = ir.kernels;
  size_t written = 0;
  for (const tg::KernelSpec& k : kernels) {
    if (k.wgsl.empty()) continue;
    char name[64];
    std::snprintf(name, sizeof name, "%04d_%s.wgsl", k.opIndex,
                  std::string(tg::opKindName(k.kind)).c_str());
    std::ofstream(dir / "kernels" / name) << k.wgsl;
    ++written;
  }
  std::ofstream(dir / "graph.json") << tg::graphToJson(ir.graph).dump(1);
  std::ofstream(dir / "plan.json") << tg::planToJson(ir.plan).dump(1);
  std::printf("%zu ops, %zu kernels written to %s/kernels\n%s\n", ir.graph.ops.size(), written,
              dir.c_str(), ir.plan.report().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "mlp";
  const std::filesystem::path out = argc > 2 ? argv[2] : "wgsl_dump_" + which;
  try {
    if (which == "mlp") {
      const MLP model;
      tg::Adam adam;
      adam.lr = 0.005;
      dump(tg::trace(tg::TrainingSpec<MLP>{.model = model,
                                           .loss = mlpLoss,
                                           .inputs = {{"x", {{256, 1}}}, {"y", {{256, 1}}}},
                                           .optimizer = adam,
                                           .seed = 42}),
           out);
    } else {
      std::fprintf(stderr, "usage: wgsl_dump [mlp] [out-dir]\n");
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
