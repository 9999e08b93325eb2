// The compiler front half — trace, autograd, optimizer, DCE, buffer plan and WGSL codegen — for
// the README MLP and upstream's transformer sample (D=64, 3 layers, 4 heads, B=128, T=8).
// Everything before SPIR-V; no GPU.
#include <benchmark/benchmark.h>

#include "models.h"

namespace {

template <class M>
void compileToWgsl(benchmark::State& state, const M& model, const tg::TrainingSpec<M>& spec) {
  size_t kernels = 0, ops = 0, bytes = 0;
  for (auto _ : state) {
    const tg::CompiledIR ir = tg::trace(spec);
    const auto k = tg::emitKernels(ir.graph, ir.plan);
    benchmark::DoNotOptimize(k.data());
    ops = ir.graph.ops.size();
    kernels = static_cast<size_t>(
        std::count_if(k.begin(), k.end(), [](const auto& x) { return !x.wgsl.empty(); }));
    bytes = 0;
    for (const auto& x : k) bytes += x.wgsl.size();
  }
  (void)model;
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["kernels"] = static_cast<double>(kernels);
  state.counters["wgsl_bytes"] = static_cast<double>(bytes);
}

void BM_CompileMlp(benchmark::State& state) {
  const tg_models::MLP model;
  compileToWgsl(state, model, tg_models::mlpSpec(model));
}
BENCHMARK(BM_CompileMlp)->Unit(benchmark::kMillisecond);

void BM_CompileTransformer(benchmark::State& state) {
  const tg_models::Transformer model;
  compileToWgsl(state, model, tg_models::transformerSpec(model));
}
BENCHMARK(BM_CompileTransformer)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
