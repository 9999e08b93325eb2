// The runtime end to end on the default device: the time of one training step (inputs written,
// the recorded step replayed, the loss read back) and of compile() cold and with the SPIR-V disk
// cache warm, for the README MLP and upstream's transformer sample (D=64, 3 layers, 4 heads,
// B=128, T=8, AdamW + linear LR + clip 1.0); steps under both kernel sets (arg `fast`), also at
// larger sizes. Run with --benchmark_repetitions=N and quote medians. To time the runtime's
// waits against their absence in one command: TG_BENCH_WAITS_SLEEP=1 makes every wait sleep at
// once on a GPU too (tg::spinWaitsForTesting(false)); TG_BENCH_STD_FUTURE=1 waits for each result
// through the std::future a tg::Future converts to, which sleeps until the result is set (the
// idle GPU thread still spins). TG_BENCH_POOL=1 or 0 sets RuntimeOptions::poolBuffers for the
// step cases (pooled intermediates or a buffer each) instead of the runtime's choice.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <optional>
#include <string_view>

#include <tensorgrad/runtime.h>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>

namespace {

tg::Feed mlpFeed() {
  tg::Mulberry32 rng(7);
  tg_models::SineBatch b = tg_models::sineBatch(rng, 256);
  return {{"x", std::move(b.x)}, {"y", std::move(b.y)}};
}

tg::Feed transformerFeed(const tg_models::TransformerConfig& c) {
  tg::Mulberry32 rng(11);
  auto b = tg_models::randomTransformerBatch(c, rng);
  return {{"tokens", b.tokens}, {"targets", b.targets}, {"mask", b.mask}};
}

bool stdFutures = false;  // TG_BENCH_STD_FUTURE
std::optional<bool> poolBuffers;  // TG_BENCH_POOL: 1 pooled, 0 own buffers, unset the runtime's choice

// `pipelined`: each iteration calls step() before reading the previous step's result, so the
// runtime submits step n + 1 before reading step n's loss. The last iteration also reads its own
// result, so the timed loop holds as many results as steps: left to after the loop, the last
// step ran untimed, about 1/N of N iterations short (an H200's D512 read 18.2 ms over 84
// iterations where its GPU period was 18.46; bench/RESULTS.md, twenty-fourth session).
template <class M>
void steps(benchmark::State& state, const tg::TrainingSpec<M>& spec, const tg::Feed& feed,
           const tg::RuntimeOptions& options = {}, bool pipelined = false) {
  tg::RuntimeOptions o = options;
  if (poolBuffers) o.poolBuffers = poolBuffers;
  auto train = tg::compile(spec, o);
  for (int i = 0; i < 20; ++i) train.step(feed).get();  // warm up
  std::optional<tg::Future<tg::StepResult>> previous;
  const auto check = [&](tg::Future<tg::StepResult> f) {
    const tg::StepResult r = stdFutures ? std::future<tg::StepResult>(std::move(f)).get() : f.get();
    if (r.kind != tg::ResultKind::Completed) state.SkipWithError(r.error.c_str());
  };
  benchmark::IterationCount done = 0;
  for (auto _ : state) {
    tg::Future<tg::StepResult> next = train.step(feed);
    if (!pipelined) {
      check(std::move(next));
      continue;
    }
    if (previous) check(std::move(*previous));
    previous = std::move(next);
    if (++done == state.max_iterations) {
      check(std::move(*previous));
      previous.reset();
    }
  }
  const auto ir = train.ir();
  state.counters["kernels"] = static_cast<double>(
      std::count_if(ir->kernels.begin(), ir->kernels.end(), [](const auto& k) { return !k.wgsl.empty(); }));
  state.counters["plan_MiB"] = static_cast<double>(ir->plan.totalBytes()) / (1 << 20);  // the buffer plan's memory
}

// compile() from the model to the first step ready: trace, codegen, SPIR-V (translated, or read
// from the disk cache), pipelines, buffers, the recorded step.
enum class CompileCase {
  Cold,             // a new device, empty disk cache: a first run
  CachedNewDevice,  // a new device, the disk cache full: a later run of the same program
  Cached,           // the device already open (another model compiled on it), the disk cache full
  Again,            // the same model compiled again in the process: its pipelines are in memory
};

const tg_models::MLP& mlp();
const tg_models::Transformer& transformer();

// Opens the device for CompileCase::Cached with a model that shares no kernel with `M`.
template <class M>
void compileOtherModel(const tg::RuntimeOptions& options) {
  if constexpr (std::is_same_v<M, tg_models::MLP>) {
    tg::compile(tg_models::transformerSpec(transformer()), options);
  } else {
    tg::compile(tg_models::mlpSpec(mlp()), options);
  }
}

template <class M>
void compiles(benchmark::State& state, const tg::TrainingSpec<M>& spec, CompileCase c) {
  const auto dir = std::filesystem::temp_directory_path() / ("tg_bench_cache_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const tg::RuntimeOptions options{.cacheDir = dir};
  if (c != CompileCase::Cold) tg::compile(spec, options);  // fills the disk cache
  for (auto _ : state) {
    state.PauseTiming();
    if (c == CompileCase::Cold) std::filesystem::remove_all(dir);
    if (c != CompileCase::Again) tg::releaseDevices();
    if (c == CompileCase::Cached) compileOtherModel<M>(options);
    state.ResumeTiming();
    std::optional<tg::CompiledTraining<M>> train = tg::compile(spec, options);
    benchmark::DoNotOptimize(train->seed());
    state.PauseTiming();
    train.reset();  // teardown is not compile
    state.ResumeTiming();
  }
  tg::releaseDevices();
  std::filesystem::remove_all(dir);
}

const tg_models::MLP& mlp() {
  static const tg_models::MLP m;
  return m;
}
const tg_models::Transformer& transformer() {
  static const tg_models::Transformer m;
  return m;
}

// Arg `fast` (argument `index`): the kernel set (0 upstream's, 1 ours: EmitOptions::kernels =
// KernelSet::Fast).
tg::RuntimeOptions kernelSet(const benchmark::State& s, int index = 0) {
  tg::RuntimeOptions o;
  o.emit.kernels = s.range(index) != 0 ? tg::KernelSet::Fast : tg::KernelSet::Upstream;
  return o;
}
void BM_StepMlp(benchmark::State& s) { steps(s, tg_models::mlpSpec(mlp()), mlpFeed(), kernelSet(s)); }
void BM_StepTransformer(benchmark::State& s) {
  steps(s, tg_models::transformerSpec(transformer()), transformerFeed(transformer().cfg), kernelSet(s));
}
// The size sweep of the fast-kernel comparison (bench/torch_steps.py times the same models in
// PyTorch): the MLP 1 → H → H → 1 (ReLU, MSE, Adam 0.005) at batch B; upstream's transformer
// sample at width D, L layers, B sequences of T tokens (8 heads past D = 64), without the
// sample's captures (PyTorch reads back only the loss). Arg `fast` as above;
// `pipe` 1: steps pipelined (see steps()).
void BM_StepMlpSweep(benchmark::State& s) {
  const int64_t hidden = s.range(0), batch = s.range(1);
  const tg_models::MLP m(hidden);
  tg::Mulberry32 rng(7);
  tg_models::SineBatch b = tg_models::sineBatch(rng, batch);
  steps(s, tg_models::mlpSpec(m, batch), {{"x", std::move(b.x)}, {"y", std::move(b.y)}},
        kernelSet(s, 2), s.range(3) != 0);
}
void BM_StepTransformerSweep(benchmark::State& s) {
  const tg_models::Transformer m({.d = s.range(0),
                                  .layers = s.range(1),
                                  .heads = s.range(0) > 64 ? 8 : 4,
                                  .seqLen = s.range(3) + 1,
                                  .batch = s.range(2),
                                  .captures = false});
  steps(s, tg_models::transformerSpec(m), transformerFeed(m.cfg), kernelSet(s, 4), s.range(5) != 0);
}
// The transformer under other plans: pooled intermediates (upstream's plan; by default on a GPU
// each intermediate has its own buffer, shared only across dispatch levels), fused element-wise
// chains, both.
void BM_StepTransformerOptions(benchmark::State& s) {
  tg::RuntimeOptions o;
  o.emit.fuseElementwise = s.range(0) != 0;
  o.poolBuffers = s.range(1) != 0;
  steps(s, tg_models::transformerSpec(transformer()), transformerFeed(transformer().cfg), o);
}
void BM_CompileColdMlp(benchmark::State& s) { compiles(s, tg_models::mlpSpec(mlp()), CompileCase::Cold); }
void BM_CompileCachedNewDeviceMlp(benchmark::State& s) {
  compiles(s, tg_models::mlpSpec(mlp()), CompileCase::CachedNewDevice);
}
void BM_CompileCachedMlp(benchmark::State& s) { compiles(s, tg_models::mlpSpec(mlp()), CompileCase::Cached); }
void BM_CompileAgainMlp(benchmark::State& s) { compiles(s, tg_models::mlpSpec(mlp()), CompileCase::Again); }
void BM_CompileColdTransformer(benchmark::State& s) {
  compiles(s, tg_models::transformerSpec(transformer()), CompileCase::Cold);
}
void BM_CompileCachedNewDeviceTransformer(benchmark::State& s) {
  compiles(s, tg_models::transformerSpec(transformer()), CompileCase::CachedNewDevice);
}
void BM_CompileCachedTransformer(benchmark::State& s) {
  compiles(s, tg_models::transformerSpec(transformer()), CompileCase::Cached);
}
void BM_CompileAgainTransformer(benchmark::State& s) {
  compiles(s, tg_models::transformerSpec(transformer()), CompileCase::Again);
}

// The device bring-up every compile pays (instance shared, adapter, device, queue).
void BM_OpenDevice(benchmark::State& s) {
  for (auto _ : s) {
    const tg::WebGPUSupport w = tg::checkWebGPU();
    if (!w.ok) s.SkipWithError(w.message.c_str());
  }
}

BENCHMARK(BM_OpenDevice)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_StepMlp)->ArgName("fast")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StepTransformer)->ArgName("fast")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StepMlpSweep)
    ->ArgNames({"H", "B", "fast", "pipe"})
    ->ArgsProduct({{64, 256, 1024}, {256, 4096}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_StepTransformerSweep)
    ->ArgNames({"D", "L", "B", "T", "fast", "pipe"})
    ->Args({64, 3, 128, 8, 0, 0})
    ->Args({64, 3, 128, 8, 1, 0})
    ->Args({64, 3, 128, 8, 1, 1})
    ->Args({256, 6, 128, 8, 0, 0})
    ->Args({256, 6, 128, 8, 1, 0})
    ->Args({256, 6, 128, 8, 1, 1})
    ->Args({512, 8, 64, 64, 0, 0})
    ->Args({512, 8, 64, 64, 1, 0})
    ->Args({512, 8, 64, 64, 1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_StepTransformerOptions)
    ->ArgNames({"fuse", "pooled"})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({1, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CompileColdMlp)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_CompileCachedNewDeviceMlp)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_CompileCachedMlp)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_CompileAgainMlp)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_CompileColdTransformer)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);
BENCHMARK(BM_CompileCachedNewDeviceTransformer)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);
BENCHMARK(BM_CompileCachedTransformer)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);
BENCHMARK(BM_CompileAgainTransformer)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace

int main(int argc, char** argv) {
  const auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v && std::string_view(v) == "1";
  };
  if (set("TG_BENCH_WAITS_SLEEP")) tg::spinWaitsForTesting(false);
  stdFutures = set("TG_BENCH_STD_FUTURE");
  if (const char* v = std::getenv("TG_BENCH_POOL"); v && *v) poolBuffers = std::string_view(v) == "1";
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
