// The compiler front half — trace, autograd, optimizer, DCE, buffer plan and WGSL codegen — for
// the README MLP and upstream's transformer sample (D=64, 3 layers, 4 heads, B=128, T=8).
// Everything before SPIR-V; no GPU.
#include <benchmark/benchmark.h>

#include <set>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>

#include "wgsl_subset/wgsl_subset.h"

namespace {

template <class M>
void compileToWgsl(benchmark::State& state, const M& model, const tg::TrainingSpec<M>& spec) {
  size_t kernels = 0, ops = 0, bytes = 0;
  for (auto _ : state) {
    const tg::CompiledIR ir = tg::trace(spec);  // includes codegen
    const auto& k = ir.kernels;
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

// WGSL → SPIR-V (wgsl_subset: parse, resolve, lower, glslang, spirv-val) for every distinct kernel
// of a training step: the translation share of a cold compile.
template <class M>
void translateKernels(benchmark::State& state, const tg::TrainingSpec<M>& spec) {
  const tg::CompiledIR ir = tg::trace(spec);
  std::set<std::string> distinct;
  for (const auto& k : ir.kernels) {
    if (!k.wgsl.empty()) distinct.insert(k.wgsl);
  }
  size_t words = 0;
  for (auto _ : state) {
    words = 0;
    for (const auto& w : distinct) {
      const wgsl::Result r = wgsl::translate(w);
      if (!r.ok()) state.SkipWithError(wgsl::formatDiagnostics(r.diagnostics).c_str());
      words += r.spirv.size();
    }
  }
  state.counters["distinct_kernels"] = static_cast<double>(distinct.size());
  state.counters["spirv_words"] = static_cast<double>(words);
}

void BM_TranslateMlpKernels(benchmark::State& state) {
  const tg_models::MLP model;
  translateKernels(state, tg_models::mlpSpec(model));
}
BENCHMARK(BM_TranslateMlpKernels)->Unit(benchmark::kMillisecond);

void BM_TranslateTransformerKernels(benchmark::State& state) {
  const tg_models::Transformer model;
  translateKernels(state, tg_models::transformerSpec(model));
}
BENCHMARK(BM_TranslateTransformerKernels)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
