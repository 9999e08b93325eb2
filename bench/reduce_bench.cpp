// Memory-bound kernels through the project's own path (tensorgrad's kernel → wgsl_subset →
// webgpu_shim) on the default device, against a copy kernel and the device's own buffer copy:
//   - column sums (sum_to_shape [rows, n] → [n], a bias gradient), row sums (sum_last) and row
//     means (mean_last) under both kernel sets (arg `fast`: 0 upstream, 1 fast), reporting
//     effective GB/s (bytes read + written by one dispatch / its time) and the largest error of
//     any output against a double reference, relative to Σ|x| over that output; log_softmax_last
//     of the same row shapes (GB/s only);
//   - an element-wise add of two 16M-element f32 tensors and a relu over 64 MiB, reporting GB/s
//     and that as % of a vec4 copy kernel's bandwidth (the same path, timed the same way, in the
//     same process);
//   - that copy kernel over 64 MiB, and CopyBufferToBuffer of 64 MiB (2 · 64 MiB moved each).
// Each iteration records `kDispatches` back-to-back dispatches (or copies) in one submit and waits.
//
//   reduce_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <random>

#include <tensorgrad/tensorgrad.h>
#include "default_device.h"
#include "random_values.h"

namespace {

constexpr int kDispatches = 10;
constexpr int64_t kElementwise = int64_t{16} << 20;  // 16M f32: 64 MiB

// One kernel of a traced graph, ready to dispatch: its pipeline, bind group and buffers, the
// graph's inputs filled with random values in [-1, 1].
struct Kernel {
  test_support::DefaultDevice gpu;
  std::vector<std::string> errors;
  wgpu::ComputePipeline pipeline;
  wgpu::BindGroup bindGroup;
  std::array<uint32_t, 2> workgroups{};
  std::map<std::string, std::vector<float>> inputs;
  wgpu::Buffer out;
  std::string header;  // the WGSL's first line
};

// `wgsl` ready to dispatch over `bound` (binding order, the output last) with `workgroups`.
void bindKernel(Kernel& k, const std::string& wgsl, const std::vector<wgpu::Buffer>& bound,
                std::array<uint32_t, 2> workgroups) {
  const wgpu::Device& device = k.gpu.device;
  wgpu::ShaderSourceWGSL source;
  source.code = wgsl;
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &source;
  wgpu::ComputePipelineDescriptor pd;
  pd.compute.module = device.CreateShaderModule(&md);
  k.pipeline = device.CreateComputePipeline(&pd);
  std::vector<wgpu::BindGroupEntry> entries;
  for (size_t i = 0; i < bound.size(); ++i)
    entries.push_back({.binding = static_cast<uint32_t>(i), .buffer = bound[i]});
  const wgpu::BindGroupDescriptor bg{.layout = k.pipeline.GetBindGroupLayout(0),
                                     .entryCount = entries.size(),
                                     .entries = entries.data()};
  k.bindGroup = device.CreateBindGroup(&bg);
  k.workgroups = workgroups;
  k.out = bound.back();
  k.header = wgsl.substr(0, wgsl.find('\n'));
}

void setUp(Kernel& k, const std::function<tg::Tensor()>& model, tg::OpKind kind,
           tg::KernelSet kernels) {
  const tg::Graph graph = tg::traceFn([&] { return std::vector<tg::Tensor>{model()}; });
  const tg::BufferPlan plan = tg::planBuffers(graph, {}, {});
  const auto specs = tg::emitKernels(graph, plan, {.kernels = kernels});
  const auto spec = std::find_if(specs.begin(), specs.end(), [&](const tg::KernelSpec& s) {
    return s.kind == kind && !s.wgsl.empty();
  });
  if (spec == specs.end()) {
    k.errors.push_back("no kernel of the benchmarked kind");
    return;
  }
  k.gpu = test_support::openDefaultDevice(k.errors);
  if (!k.gpu.device) return;
  const wgpu::Device& device = k.gpu.device;
  std::vector<wgpu::Buffer> buffers;
  uint32_t seed = 1;
  for (const tg::BufferSpec& bs : plan.buffers) {
    wgpu::BufferDescriptor bd;
    bd.size = static_cast<uint64_t>(bs.byteSize);
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    buffers.push_back(device.CreateBuffer(&bd));
    if (bs.name.starts_with("in")) {
      auto& v = k.inputs[bs.name] = test_support::uniformValues(bs.byteSize / 4, seed++);
      device.GetQueue().WriteBuffer(buffers.back(), 0, v.data(), v.size() * 4);
    }
  }
  std::vector<wgpu::Buffer> bound;
  for (int b : spec->bindings) bound.push_back(buffers[static_cast<size_t>(b)]);
  bindKernel(k, spec->wgsl, bound, spec->dispatch());
}

// out = in over `elements` f32 (a multiple of 4), one vec4 an invocation, through the same path:
// the bandwidth an element-wise kernel can hope for.
void setUpCopy(Kernel& k, int64_t elements) {
  k.gpu = test_support::openDefaultDevice(k.errors);
  if (!k.gpu.device) return;
  const int64_t vec4s = elements / 4;
  const auto workgroups = static_cast<uint32_t>((vec4s + 255) / 256);
  const std::string wgsl =
      "// copy kernel (vec4)\n"
      "@group(0) @binding(0) var<storage, read> src : array<vec4<f32>>;\n"
      "@group(0) @binding(1) var<storage, read_write> dst : array<vec4<f32>>;\n"
      "@compute @workgroup_size(256)\n"
      "fn main(@builtin(global_invocation_id) gid : vec3<u32>) {\n"
      "  if (gid.x >= " + std::to_string(vec4s) + "u) { return; }\n"
      "  dst[gid.x] = src[gid.x];\n"
      "}\n";
  wgpu::BufferDescriptor bd;
  bd.size = static_cast<uint64_t>(elements) * 4;
  bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
  const wgpu::Buffer src = k.gpu.device.CreateBuffer(&bd), dst = k.gpu.device.CreateBuffer(&bd);
  bindKernel(k, wgsl, {src, dst}, {workgroups, 1});
}

void runAndWait(const Kernel& k, int dispatches) {
  wgpu::CommandEncoder encoder = k.gpu.device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(k.pipeline);
  pass.SetBindGroup(0, k.bindGroup);
  for (int i = 0; i < dispatches; ++i) pass.DispatchWorkgroups(k.workgroups[0], k.workgroups[1]);
  pass.End();
  wgpu::CommandBuffer commands = encoder.Finish();
  k.gpu.device.GetQueue().Submit(1, &commands);
  test_support::waitIdle(k.gpu);
}

std::vector<float> readOut(const Kernel& k) {
  const auto words =
      test_support::submitAndReadBack(k.gpu, k.gpu.device.CreateCommandEncoder(), {k.out});
  std::vector<float> v;
  if (!words.empty())
    for (uint32_t w : words[0]) v.push_back(std::bit_cast<float>(w));
  return v;
}

// Runs `k` under the benchmark loop and sets the GB/s counter from `bytes` per dispatch. Returns
// the loop's seconds per dispatch (0 when skipped).
double timeKernel(benchmark::State& state, Kernel& k, double bytes) {
  if (!k.gpu.device || !k.errors.empty()) {
    state.SkipWithError(k.errors.empty() ? "no device" : k.errors.front().c_str());
    return 0;
  }
  runAndWait(k, 1);  // warm up (and pipeline creation)
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) runAndWait(k, kDispatches);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!k.errors.empty()) {
    state.SkipWithError(k.errors.front().c_str());
    return 0;
  }
  state.counters["GB/s"] =
      benchmark::Counter(bytes * kDispatches * static_cast<double>(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
  state.SetLabel(k.header.starts_with("// ") ? k.header.substr(3) : "upstream");
  return seconds / static_cast<double>(std::max<int64_t>(state.iterations(), 1) * kDispatches);
}

tg::KernelSet kernelSet(const benchmark::State& state, int arg) {
  return state.range(arg) ? tg::KernelSet::Fast : tg::KernelSet::Upstream;
}

// Largest |gpu − exact| / Σ|x| over the outputs; output o sums x[index(o, 0..len)].
double worstError(const std::vector<float>& got, int64_t outputs, int64_t len, double scale,
                  const std::function<float(int64_t, int64_t)>& at) {
  if (got.size() < static_cast<size_t>(outputs)) return INFINITY;
  double worst = 0;
  for (int64_t o = 0; o < outputs; ++o) {
    double exact = 0, mag = 0;
    for (int64_t r = 0; r < len; ++r) {
      exact += at(o, r);
      mag += std::abs(at(o, r));
    }
    worst = std::max(worst, std::abs(got[static_cast<size_t>(o)] - exact * scale) /
                                std::max(mag * scale, 1e-30));
  }
  return worst;
}

// sum_to_shape [rows, n] → [n]: reads rows·n, writes n.
void BM_ColumnSum(benchmark::State& state) {
  const int64_t rows = state.range(0), n = state.range(1);
  Kernel k;
  setUp(
      k,
      [&] {
        return tg::sumToShape(tg::paramInput("in", {rows, n}), {n});
      },
      tg::OpKind::SumToShape, kernelSet(state, 2));
  if (timeKernel(state, k, 4.0 * static_cast<double>(rows * n + n)) == 0) return;
  const auto& x = k.inputs.at("in");
  state.counters["max_err"] = worstError(readOut(k), n, rows, 1, [&](int64_t o, int64_t r) {
    return x[static_cast<size_t>(r * n + o)];
  });
}

// sum_last / mean_last of [rows, n]: reads rows·n, writes rows.
void rowReduce(benchmark::State& state, bool mean) {
  const int64_t rows = state.range(0), n = state.range(1);
  Kernel k;
  setUp(
      k,
      [&] {
        const tg::Tensor a = tg::paramInput("in", {rows, n});
        return mean ? tg::mean(a, -1, {.keepDims = true}) : tg::sum(a, -1);
      },
      mean ? tg::OpKind::MeanLast : tg::OpKind::SumLast, kernelSet(state, 2));
  if (timeKernel(state, k, 4.0 * static_cast<double>(rows * n + rows)) == 0) return;
  const auto& x = k.inputs.at("in");
  state.counters["max_err"] =
      worstError(readOut(k), rows, n, mean ? 1.0 / static_cast<double>(n) : 1.0,
                 [&](int64_t o, int64_t r) { return x[static_cast<size_t>(o * n + r)]; });
}
void BM_RowSum(benchmark::State& state) {
  rowReduce(state, false);
}
void BM_RowMean(benchmark::State& state) {
  rowReduce(state, true);
}

// log_softmax_last of [rows, n]: reads and writes rows·n.
void BM_LogSoftmax(benchmark::State& state) {
  const int64_t rows = state.range(0), n = state.range(1);
  Kernel k;
  setUp(
      k,
      [&] {
        return tg::logSoftmax(tg::paramInput("in", {rows, n}), -1);
      },
      tg::OpKind::LogSoftmaxLast, kernelSet(state, 2));
  timeKernel(state, k, 8.0 * static_cast<double>(rows * n));
}

// kDispatches back-to-back CopyBufferToBuffer of `bytes` between two buffers, waited for.
class CopyBatch {
 public:
  CopyBatch(const test_support::DefaultDevice& gpu, uint64_t bytes) : gpu_(gpu), bytes_(bytes) {
    wgpu::BufferDescriptor bd;
    bd.size = bytes;
    bd.usage = wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    src_ = gpu.device.CreateBuffer(&bd);
    dst_ = gpu.device.CreateBuffer(&bd);
  }
  void run() const {
    wgpu::CommandEncoder encoder = gpu_.device.CreateCommandEncoder();
    for (int i = 0; i < kDispatches; ++i) encoder.CopyBufferToBuffer(src_, 0, dst_, 0, bytes_);
    wgpu::CommandBuffer commands = encoder.Finish();
    gpu_.device.GetQueue().Submit(1, &commands);
    test_support::waitIdle(gpu_);
  }

 private:
  const test_support::DefaultDevice& gpu_;
  uint64_t bytes_;
  wgpu::Buffer src_, dst_;
};

// Seconds per dispatch of the vec4 copy kernel over `elements` f32, the median of 5 batches of
// kDispatches, timed like the kernels it is the reference for.
double copyKernelSeconds(int64_t elements) {
  Kernel copy;
  setUpCopy(copy, elements);
  if (!copy.gpu.device) return INFINITY;
  runAndWait(copy, 1);
  std::vector<double> times;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    runAndWait(copy, kDispatches);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                    kDispatches);
  }
  std::sort(times.begin(), times.end());
  return times[2];
}

// out = a + b over 16M f32 (reads 2 · 64 MiB, writes 64 MiB), or relu (reads and writes 64 MiB).
void elementwise(benchmark::State& state, bool add) {
  Kernel k;
  setUp(
      k,
      [&] {
        const tg::Tensor a = tg::paramInput("in_a", {kElementwise});
        return add ? tg::add(a, tg::paramInput("in_b", {kElementwise})) : tg::relu(a);
      },
      add ? tg::OpKind::Add : tg::OpKind::Relu, kernelSet(state, 0));
  const double bytes = 4.0 * static_cast<double>(kElementwise) * (add ? 3 : 2);
  const double seconds = timeKernel(state, k, bytes);
  if (seconds == 0) return;
  const double copyGBs =
      2.0 * 4.0 * static_cast<double>(kElementwise) / copyKernelSeconds(kElementwise) / 1e9;
  state.counters["copy_GB/s"] = copyGBs;
  state.counters["pct_of_copy"] = 100.0 * bytes / seconds / 1e9 / copyGBs;
}
void BM_Add(benchmark::State& state) {
  elementwise(state, true);
}
void BM_Relu(benchmark::State& state) {
  elementwise(state, false);
}

// CopyBufferToBuffer of `bytes`: GB/s counts the read and the write.
void BM_Copy(benchmark::State& state) {
  const auto bytes = static_cast<uint64_t>(state.range(0));
  std::vector<std::string> errors;
  const test_support::DefaultDevice gpu = test_support::openDefaultDevice(errors);
  if (!gpu.device) {
    state.SkipWithError(errors.empty() ? "no device" : errors.front().c_str());
    return;
  }
  const CopyBatch batch(gpu, bytes);
  batch.run();
  for (auto _ : state) batch.run();
  state.counters["GB/s"] = benchmark::Counter(2.0 * static_cast<double>(bytes) * kDispatches *
                                                  static_cast<double>(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
}

// The vec4 copy kernel over `elements` f32: GB/s counts the read and the write.
void BM_CopyKernel(benchmark::State& state) {
  Kernel k;
  setUpCopy(k, state.range(0));
  timeKernel(state, k, 8.0 * static_cast<double>(state.range(0)));
}

void columnArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"rows", "n", "fast"});
  for (const auto& s :
       std::vector<std::array<int64_t, 2>>{{1024, 64}, {1024, 256}, {4096, 1024}, {16384, 1024}})
    for (int64_t fast : {0, 1}) b->Args({s[0], s[1], fast});
}
void rowArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"rows", "n", "fast"});
  for (const auto& s : std::vector<std::array<int64_t, 2>>{{1024, 64}, {1024, 256}, {4096, 1024}})
    for (int64_t fast : {0, 1}) b->Args({s[0], s[1], fast});
}

BENCHMARK(BM_ColumnSum)->Apply(columnArgs)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_RowSum)->Apply(rowArgs)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_RowMean)->Apply(rowArgs)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_LogSoftmax)->Apply(rowArgs)->Unit(benchmark::kMicrosecond)->UseRealTime();
// fast:1 is the fast set's vec4 form (4 elements an invocation).
BENCHMARK(BM_Add)->ArgName("fast")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Relu)->ArgName("fast")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Copy)
    ->ArgName("bytes")
    ->Arg(4 * kElementwise)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_CopyKernel)
    ->ArgName("elements")
    ->Arg(kElementwise)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
