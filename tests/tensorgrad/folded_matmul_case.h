// A graph with values for its leaves, and the oracle the fast set's folded matmul kernels are
// held to: every f32 buffer against the CPU evaluator, on lavapipe and in Dawn, under the pooled
// plan and with own buffers, optionally with every fast matmul kernel re-emitted, folds and all,
// under a forced tiling (matmul_epilogue_test.cpp, product_sum_test.cpp).
#pragma once

#include <optional>

#include "../../tensorgrad/src/codegen/folded_matmul.h"
#include "gpu_oracle.h"

namespace tg_test {

struct MatmulCase {
  tg::Graph graph;
  tg::EvalInputs env;
};

// Leaves named by the traced graph's param inputs, filled with uniform values from `seed`.
inline MatmulCase withUniformValues(tg::Graph g, uint32_t seed) {
  tg::EvalInputs env = uniformParams(g, seed);
  return {std::move(g), std::move(env)};
}

inline void expectFoldedMatmulsMatchCpu(
    const MatmulCase& c, const tg::EmitOptions& options, double rtol, double atol,
    std::optional<tg::detail::GemmTiling> tiling = std::nullopt) {
  for (const bool pool : {true, false}) {
    const tg::BufferPlan plan = tg::planBuffers(c.graph, {}, {}, pool, true);
    const auto rewrite = [&](std::vector<tg::KernelSpec>& kernels) {
      for (tg::KernelSpec& k : kernels) {
        if (!tiling || !k.wgsl.starts_with("// fast matmul")) continue;
        const auto [matmul, folds] = tg::detail::foldsOf(c.graph, k);
        k = tg::detail::foldedMatmulKernel(c.graph, plan, matmul, folds, tiling);
      }
    };
    for (const auto backend : {Backend::Shim, Backend::Dawn})
      expectGpuMatchesCpu(backend, c.graph, {}, {}, c.env, rtol, atol, options, rewrite, pool);
  }
}

}  // namespace tg_test
