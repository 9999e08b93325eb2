// f32 GEMM through the project's own path: tensorgrad's matmul kernel (upstream's or the fast
// set's, EmitOptions::kernels) → wgsl_subset → webgpu_shim, on the default device. Each
// iteration submits `kDispatches` back-to-back dispatches of out = a · b and waits for them.
// Reports TFLOP/s (2·M·N·K per product) and, from a spot check of 64 outputs against a double
// reference, the largest relative error.
//
//   gemm_bench [--benchmark_filter=...]   args: M, K, N, kernel set (0 upstream, 1 fast)
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "default_device.h"
#include <tensorgrad/tensorgrad.h>

namespace {

constexpr int kDispatches = 10;

struct Gemm {
  test_support::DefaultDevice gpu;
  std::vector<std::string> errors;
  wgpu::ComputePipeline pipeline;
  wgpu::BindGroup bindGroup;
  std::array<uint32_t, 2> workgroups{};
  std::vector<float> a, b;
  wgpu::Buffer out;
};

std::vector<float> randomValues(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(rng);
  return v;
}

// Emits the matmul kernel of [m, k] · [k, n] with `kernels` and builds its pipeline and buffers.
void setUp(Gemm& g, int64_t m, int64_t k, int64_t n, tg::KernelSet kernels) {
  const tg::Graph graph = tg::traceFn([&] {
    return std::vector<tg::Tensor>{
        tg::matmul(tg::paramInput("a", {m, k}), tg::paramInput("b", {k, n}))};
  });
  const tg::BufferPlan plan = tg::planBuffers(graph, {}, {});
  const auto specs = tg::emitKernels(graph, plan, {.kernels = kernels});
  const auto spec = std::find_if(specs.begin(), specs.end(),
                                 [](const tg::KernelSpec& s) { return s.kind == tg::OpKind::Matmul; });
  g.gpu = test_support::openDefaultDevice(g.errors);
  if (!g.gpu.device) return;
  const wgpu::Device& device = g.gpu.device;
  g.a = randomValues(m * k, 1);
  g.b = randomValues(k * n, 2);
  std::vector<wgpu::Buffer> buffers;
  for (const tg::BufferSpec& bs : plan.buffers) {
    wgpu::BufferDescriptor bd;
    bd.size = static_cast<uint64_t>(bs.byteSize);
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    buffers.push_back(device.CreateBuffer(&bd));
    const std::vector<float>* data = bs.name == "a" ? &g.a : bs.name == "b" ? &g.b : nullptr;
    if (data) device.GetQueue().WriteBuffer(buffers.back(), 0, data->data(), data->size() * 4);
  }
  wgpu::ShaderSourceWGSL source;
  source.code = spec->wgsl;
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &source;
  wgpu::ComputePipelineDescriptor pd;
  pd.compute.module = device.CreateShaderModule(&md);
  g.pipeline = device.CreateComputePipeline(&pd);
  std::vector<wgpu::BindGroupEntry> entries;
  for (size_t i = 0; i < spec->bindings.size(); ++i)
    entries.push_back({.binding = static_cast<uint32_t>(i),
                       .buffer = buffers[static_cast<size_t>(spec->bindings[i])]});
  const wgpu::BindGroupDescriptor bg{.layout = g.pipeline.GetBindGroupLayout(0),
                                     .entryCount = entries.size(),
                                     .entries = entries.data()};
  g.bindGroup = device.CreateBindGroup(&bg);
  g.workgroups = spec->dispatch();
  g.out = buffers[static_cast<size_t>(spec->bindings.back())];
}

void runAndWait(const Gemm& g, int dispatches) {
  wgpu::CommandEncoder encoder = g.gpu.device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(g.pipeline);
  pass.SetBindGroup(0, g.bindGroup);
  for (int i = 0; i < dispatches; ++i) pass.DispatchWorkgroups(g.workgroups[0], g.workgroups[1]);
  pass.End();
  wgpu::CommandBuffer commands = encoder.Finish();
  g.gpu.device.GetQueue().Submit(1, &commands);
  g.gpu.instance.WaitAny(g.gpu.device.GetQueue().OnSubmittedWorkDone(
                             wgpu::CallbackMode::WaitAnyOnly, [](wgpu::QueueWorkDoneStatus, std::string_view) {}),
                         UINT64_MAX);
}

// Largest |gpu − exact| / (Σ|a·b| of that output) over 64 sampled outputs.
double spotCheck(const Gemm& g, int64_t m, int64_t k, int64_t n) {
  const std::vector<std::vector<uint32_t>> words =
      test_support::submitAndReadBack(g.gpu, g.gpu.device.CreateCommandEncoder(), {g.out});
  if (words.empty()) return INFINITY;
  std::mt19937 rng(3);
  double worst = 0;
  for (int s = 0; s < 64; ++s) {
    const auto i = static_cast<size_t>(rng() % m), j = static_cast<size_t>(rng() % n);
    double exact = 0, scale = 0;
    for (size_t kk = 0; kk < static_cast<size_t>(k); ++kk) {
      const double p = double{g.a[i * k + kk]} * double{g.b[kk * n + j]};
      exact += p;
      scale += std::abs(p);
    }
    const double got = std::bit_cast<float>(words[0][i * n + j]);
    worst = std::max(worst, std::abs(got - exact) / std::max(scale, 1e-30));
  }
  return worst;
}

void BM_Gemm(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const auto kernels = state.range(3) ? tg::KernelSet::Fast : tg::KernelSet::Upstream;
  Gemm g;
  setUp(g, m, k, n, kernels);
  if (!g.gpu.device || !g.errors.empty()) {
    state.SkipWithError(g.errors.empty() ? "no device" : g.errors.front().c_str());
    return;
  }
  runAndWait(g, 1);  // warm up (and pipeline creation)
  for (auto _ : state) runAndWait(g, kDispatches);
  if (!g.errors.empty()) state.SkipWithError(g.errors.front().c_str());
  state.counters["TFLOP/s"] = benchmark::Counter(
      2.0 * static_cast<double>(m * n * k) * kDispatches * static_cast<double>(state.iterations()) /
          1e12,
      benchmark::Counter::kIsRate);
  state.counters["max_rel_err"] = spotCheck(g, m, k, n);
  state.SetLabel(kernels == tg::KernelSet::Fast ? "fast" : "upstream");
}

// 4096³; the README MLP at H1024 B4096 (forward [4096, 1024] · [1024, 1024]); the transformer at
// D256 with B·T = 1024 rows (QKV-sized [1024, 256] · [256, 1024]); and a small lavapipe-sized one.
void gemmArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "K", "N", "fast"});
  for (const auto& s : std::vector<std::array<int64_t, 3>>{
           {256, 256, 256}, {1024, 256, 1024}, {4096, 1024, 1024}, {4096, 4096, 4096}}) {
    for (int64_t fast : {0, 1}) b->Args({s[0], s[1], s[2], fast});
  }
}

BENCHMARK(BM_Gemm)->Apply(gemmArgs)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
