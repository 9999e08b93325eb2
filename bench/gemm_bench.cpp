// f32 GEMM through the project's own path: tensorgrad's matmul kernel (upstream's or the fast
// set's, EmitOptions::kernels) → wgsl_subset → webgpu_shim, on the default device. Each
// iteration submits `kDispatches` back-to-back dispatches of out = a · b and waits for them.
// Reports TFLOP/s (2·M·N·K per product) and, from a spot check of 64 outputs against a double
// reference, the largest relative error. `transA` 1 stores the lhs as [K, M] and multiplies
// swapAxes of it (a weight gradient's shape), `trans` 2 the rhs as [N, K] (an input gradient,
// dy · Wᵀ): upstream's set then runs its permute kernel too, the fast set folds the transpose
// into the product.
//
//   gemm_bench [--benchmark_filter=...]   args: M, K, N, kernel set (0 upstream, 1 fast), trans
//
// TG_GEMM_TILINGS (read by this bench only) adds BM_Tiling cases that force fast-set tilings on
// the same shapes, for tuning chooseTiling: a comma-separated list of t:BM:BN:BK:TM:TN (tiled)
// (t:BM:BN:BK:TM:TN:LANEROWS with a lane layout, t:BM:BN:BK:TM:TN:LANEROWS:2 with sliced K) and
// s:BM:BN:TM:TN:SLICES (split-K), e.g.
// TG_GEMM_TILINGS=t:128:128:32:8:8,t:128:128:32:8:8:4,s:1:4:1:4:256. A forced tiling runs on the
// whole product: weight gradients are not split across workgroups then.
// TG_GEMM_WGSL=DIR (read by this bench only) writes each case's matmul kernel there as
// <M>x<K>x<N>_trans<T>_<tiling>.wgsl, for bench/pipeline_stats.
// A forced tiling may use all the workgroup memory the device offers (its
// maxComputeWorkgroupStorageSize, which the bench's device requests); a case whose tiling needs
// more is skipped with that reason.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "../tensorgrad/src/ops/matmul_fast.h"
#include "default_device.h"
#include "random_values.h"
#include <tensorgrad/tensorgrad.h>

namespace {

constexpr int kDispatches = 10;

struct Dispatch {
  wgpu::ComputePipeline pipeline;
  wgpu::BindGroup bindGroup;
  std::array<uint32_t, 2> workgroups{};
};

struct Gemm {
  test_support::DefaultDevice gpu;
  std::vector<std::string> errors;
  std::vector<Dispatch> dispatches;  // every kernel of the graph, in order
  std::vector<float> a, b;
  bool transA = false, transB = false;
  wgpu::Buffer out;
};

// TG_WEIGHT_GRAD_SPLITS=N (read by this bench only): split every Aᵀ·B product N ways across
// workgroups where N divides K (EmitOptions::weightGradientSplits); unset, chooseKSplits picks.
int64_t forcedSplits() {
  const char* env = std::getenv("TG_WEIGHT_GRAD_SPLITS");
  return env ? std::stoll(env) : 0;
}

// Emits the kernels of [m, k] · [k, n] (the lhs stored [k, m] and transposed when `trans` is 1,
// the rhs stored [n, k] when it is 2) with `kernels`, the matmul's forced to `tiling` when given,
// and builds their pipelines and buffers.
void setUp(Gemm& g, int64_t m, int64_t k, int64_t n, int64_t trans, tg::KernelSet kernels,
           std::optional<tg::detail::GemmTiling> tiling = std::nullopt) {
  const bool transA = trans == 1, transB = trans == 2;
  tg::Graph graph = tg::traceFn([&] {
    const tg::Tensor a = tg::paramInput("a", transA ? tg::Shape{k, m} : tg::Shape{m, k});
    const tg::Tensor b = tg::paramInput("b", transB ? tg::Shape{n, k} : tg::Shape{k, n});
    return std::vector<tg::Tensor>{tg::matmul(transA ? tg::swapAxes(a, -1, -2) : a,
                                              transB ? tg::swapAxes(b, -1, -2) : b)};
  });
  g.gpu = test_support::openDefaultDevice(g.errors);
  if (!g.gpu.device) return;
  const wgpu::Device& device = g.gpu.device;
  wgpu::Limits limits;
  device.GetLimits(&limits);
  // The device's workgroup memory, as the runtime gives the fast set.
  const int64_t budget = limits.maxComputeWorkgroupStorageSize;
  // As the runtime compiles for this device (the CPU forms on lavapipe).
  if (kernels == tg::KernelSet::Fast && !tiling)
    tg::splitWeightGradients(graph, budget, forcedSplits(), g.gpu.cpu);
  const tg::BufferPlan plan =
      tg::planBuffers(graph, {}, {}, true, kernels == tg::KernelSet::Fast);
  auto specs =
      tg::emitKernels(graph, plan,
                      {.kernels = kernels, .workgroupStorageBytes = budget, .cpuDevice = g.gpu.cpu});
  if (tiling) {
    if (const std::string why = tiling->invalidReason(budget); !why.empty()) {
      g.errors.push_back(tiling->describe() + ": " + why);
      return;
    }
    for (tg::KernelSpec& spec : specs) {
      if (spec.kind != tg::OpKind::Matmul) continue;
      const tg::detail::KernelSource src = tg::detail::fastMatmulKernel(
          {.batches = 1,
           .m = m,
           .k = k,
           .n = n,
           .transA = transA,
           .transB = transB,
           .workgroupBytes = budget},
          tiling);
      spec.wgsl = src.wgsl;
      spec.threads = src.threads;
      spec.workgroupSize = src.workgroupSize;
    }
  }
  if (const char* dir = std::getenv("TG_GEMM_WGSL")) {
    const std::string form = tiling                               ? tiling->describe()
                             : kernels == tg::KernelSet::Fast ? "fast"
                                                              : "upstream";
    std::string name = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                       "_trans" + std::to_string(trans) + "_" + form;
    for (char& c : name)
      if (c == ' ') c = '_';
    for (const tg::KernelSpec& spec : specs)
      if (spec.kind == tg::OpKind::Matmul || spec.kind == tg::OpKind::MatmulBatched)
        std::ofstream(std::string(dir) + "/" + name + ".wgsl") << spec.wgsl;
  }
  g.transA = transA;
  g.transB = transB;
  g.a = test_support::uniformValues(m * k, 1);
  g.b = test_support::uniformValues(k * n, 2);
  std::vector<wgpu::Buffer> buffers;
  for (const tg::BufferSpec& bs : plan.buffers) {
    wgpu::BufferDescriptor bd;
    bd.size = static_cast<uint64_t>(bs.byteSize);
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    buffers.push_back(device.CreateBuffer(&bd));
    const std::vector<float>* data = bs.name == "a" ? &g.a : bs.name == "b" ? &g.b : nullptr;
    if (data) device.GetQueue().WriteBuffer(buffers.back(), 0, data->data(), data->size() * 4);
  }
  for (const tg::KernelSpec& spec : specs) {
    if (spec.wgsl.empty() || spec.threads == 0) continue;
    wgpu::ShaderSourceWGSL source;
    source.code = spec.wgsl;
    wgpu::ShaderModuleDescriptor md;
    md.nextInChain = &source;
    wgpu::ComputePipelineDescriptor pd;
    pd.compute.module = device.CreateShaderModule(&md);
    Dispatch d;
    d.pipeline = device.CreateComputePipeline(&pd);
    std::vector<wgpu::BindGroupEntry> entries;
    for (size_t i = 0; i < spec.bindings.size(); ++i)
      entries.push_back({.binding = static_cast<uint32_t>(i),
                         .buffer = buffers[static_cast<size_t>(spec.bindings[i])]});
    const wgpu::BindGroupDescriptor bg{.layout = d.pipeline.GetBindGroupLayout(0),
                                       .entryCount = entries.size(),
                                       .entries = entries.data()};
    d.bindGroup = device.CreateBindGroup(&bg);
    d.workgroups = spec.dispatch();
    g.dispatches.push_back(std::move(d));
  }
  g.out = buffers[static_cast<size_t>(plan.tensorToBuffer[static_cast<size_t>(graph.outputs[0])])];
}

void runAndWait(const Gemm& g, int dispatches) {
  wgpu::CommandEncoder encoder = g.gpu.device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  for (int i = 0; i < dispatches; ++i) {
    for (const Dispatch& d : g.dispatches) {
      pass.SetPipeline(d.pipeline);
      pass.SetBindGroup(0, d.bindGroup);
      pass.DispatchWorkgroups(d.workgroups[0], d.workgroups[1]);
    }
  }
  pass.End();
  wgpu::CommandBuffer commands = encoder.Finish();
  g.gpu.device.GetQueue().Submit(1, &commands);
  test_support::waitIdle(g.gpu);
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
      const float ai = g.transA ? g.a[kk * m + i] : g.a[i * k + kk];
      const float bj = g.transB ? g.b[j * k + kk] : g.b[kk * n + j];
      const double p = double{ai} * double{bj};
      exact += p;
      scale += std::abs(p);
    }
    const double got = std::bit_cast<float>(words[0][i * n + j]);
    worst = std::max(worst, std::abs(got - exact) / std::max(scale, 1e-30));
  }
  return worst;
}

void measure(benchmark::State& state, Gemm& g, int64_t m, int64_t k, int64_t n) {
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
}

void BM_Gemm(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const auto kernels = state.range(3) ? tg::KernelSet::Fast : tg::KernelSet::Upstream;
  Gemm g;
  setUp(g, m, k, n, state.range(4), kernels);
  measure(state, g, m, k, n);
  state.SetLabel(kernels == tg::KernelSet::Fast ? "fast" : "upstream");
}

// The bench's shapes: 4096³; the README MLP at H1024 B4096 (forward [4096, 1024] · [1024, 1024]);
// the transformer at D256 with B·T = 1024 rows (QKV-sized [1024, 256] · [256, 1024], the weight
// gradients of its QKV and MLP layers, its attention projections' [256, 256] over K = 1024; at
// D512, [512, 512] over K = 4096); the transformer sample at D64 (B·T = 1024 rows: the
// attention projection, the MLP's two layers, their weight gradients); 256³; the transformer at
// D512 with B·T = 4096 rows (QKV, the MLP's two layers, their weight gradients); the weight
// gradients of the step sweep's MLPs at B4096 (1 → H → H → 1: [1, H], [H, H], [H, 1] over K =
// 4096); D256's attention projections ([1024, 256] · [256, 256]) and MLP down projection
// ([1024, 1024] · [1024, 256]); MLP H1024 B256's hidden layer ([256, 1024] · [1024, 1024]); D512's
// input gradients (dy · Wᵀ: [4096, 512] · [512, 512]ᵀ, the MLP's two); MLP H256 B4096's hidden
// layer; MLP H1024 B4096's input gradient ([4096, 1024] · [1024, 1024]ᵀ); the outer products of
// the MLPs at B4096 (K = 1: the first layer, the last layer's input gradient d · W₃ᵀ) and MLP
// H1024 B4096's 1-wide weight gradients ([1, 4096] · [4096, 1024], [1024, 4096] · [4096, 1]).
const std::vector<std::array<int64_t, 4>> kShapes = {
    // M, K, N, trans
    {256, 256, 256, 0},   {1024, 256, 1024, 0},  {4096, 1024, 1024, 0}, {4096, 4096, 4096, 0},
    {256, 1024, 1024, 1}, {1024, 1024, 256, 1},  {1024, 64, 64, 0},     {1024, 64, 256, 0},
    {1024, 256, 64, 0},   {64, 1024, 64, 1},     {64, 1024, 256, 1},    {256, 1024, 64, 1},
    {256, 1024, 256, 1},  {512, 4096, 512, 1},   {4096, 512, 1536, 0},  {4096, 512, 2048, 0},
    {4096, 2048, 512, 0}, {512, 4096, 2048, 1},  {2048, 4096, 512, 1},  {1, 4096, 64, 1},
    {64, 4096, 64, 1},    {64, 4096, 1, 1},      {1, 4096, 256, 1},     {256, 4096, 256, 1},
    {256, 4096, 1, 1},    {1024, 4096, 1024, 1}, {1024, 256, 256, 0},  {1024, 1024, 256, 0},
    {256, 1024, 1024, 0}, {4096, 512, 512, 2},   {4096, 2048, 512, 2},  {4096, 512, 2048, 2},
    {4096, 512, 512, 0},  {4096, 256, 256, 0},   {4096, 1024, 1024, 2}, {4096, 1, 1024, 0},
    {4096, 1, 1024, 2},   {4096, 1, 256, 0},     {1, 4096, 1024, 1},    {1024, 4096, 1, 1},
    {4096, 12, 512, 0},   {1024, 12, 256, 0},
};

void gemmArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "K", "N", "fast", "trans"});
  for (const auto& s : kShapes)
    for (int64_t fast : {0, 1}) b->Args({s[0], s[1], s[2], fast, s[3]});
}

BENCHMARK(BM_Gemm)->Apply(gemmArgs)->Unit(benchmark::kMillisecond)->UseRealTime();

// TG_GEMM_TILINGS's forced tilings, each on the shapes it may suit (tiled forms on products of at
// least 128² outputs, split-K on those of at most 512² and on any of K ≤ 64).
void registerTilings() {
  const char* env = std::getenv("TG_GEMM_TILINGS");
  if (!env) return;
  std::stringstream list(env);
  for (std::string item; std::getline(list, item, ',');) {
    std::vector<int64_t> v;
    std::stringstream fields(item.substr(2));
    for (std::string f; std::getline(fields, f, ':');) v.push_back(std::stoll(f));
    using F = tg::detail::GemmTiling::Form;
    tg::detail::GemmTiling t;
    if (item[0] == 't' && v.size() >= 5 && v.size() <= 7) {
      t = {.form = F::Tiled, .bm = v[0], .bn = v[1], .bk = v[2], .tm = v[3], .tn = v[4]};
      if (v.size() >= 6) t.laneRows = v[5];
      if (v.size() == 7) t.slices = v[6];
    } else if (item[0] == 's' && v.size() == 5) {
      t = {.form = F::SplitK, .bm = v[0], .bn = v[1], .bk = 0, .tm = v[2], .tn = v[3], .slices = v[4]};
    } else {
      std::fprintf(stderr, "TG_GEMM_TILINGS: cannot read '%s'\n", item.c_str());
      continue;
    }
    if (const std::string why = t.invalidReason(INT64_MAX); !why.empty()) {
      std::fprintf(stderr, "TG_GEMM_TILINGS: %s: %s\n", item.c_str(), why.c_str());
      continue;
    }
    for (const auto& s : kShapes) {
      const int64_t outputs = s[0] * s[2];
      if (t.form == F::Tiled ? outputs < 128 * 128 : outputs > 512 * 512 && s[1] > 64) continue;
      const std::string name = "BM_Tiling/" + item + "/M:" + std::to_string(s[0]) + "/K:" +
                               std::to_string(s[1]) + "/N:" + std::to_string(s[2]) +
                               "/trans:" + std::to_string(s[3]);
      benchmark::RegisterBenchmark(name.c_str(), [s, t](benchmark::State& state) {
        Gemm g;
        setUp(g, s[0], s[1], s[2], s[3], tg::KernelSet::Fast, t);
        measure(state, g, s[0], s[1], s[2]);
      })->Unit(benchmark::kMillisecond)->UseRealTime();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  registerTilings();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
