#include "gpu_oracle.h"

#include "default_device.h"
#include "random_values.h"

#include <algorithm>
#include <webgpu/webgpu_cpp.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

namespace tg_test {
namespace {

// The initial contents of a graph-input buffer as raw 32-bit words (none for computed buffers).
std::optional<std::vector<uint32_t>> leafWords(const tg::BufferSpec& b, const tg::EvalInputs& env) {
  const auto words = [](const tg::HostTensor& t) {
    std::vector<uint32_t> w;
    if (t.dtype == tg::Dtype::F32) {
      for (float f : t.f) w.push_back(std::bit_cast<uint32_t>(f));
    } else {
      for (int32_t i : t.i) w.push_back(std::bit_cast<uint32_t>(i));
    }
    return w;
  };
  const auto pick =
      [&](const std::map<std::string, tg::HostTensor>& m) -> std::optional<std::vector<uint32_t>> {
    auto it = m.find(b.name);
    if (it == m.end()) return std::nullopt;
    return words(it->second);
  };
  switch (b.kind) {
    case tg::BufferSpec::Kind::Param:
      return pick(env.params);
    case tg::BufferSpec::Kind::TensorInput:
      return pick(env.inputs);
    case tg::BufferSpec::Kind::State: {
      if (auto w = pick(env.states)) return w;
      const auto n = static_cast<size_t>(tg::shapeSize(b.shape));
      return b.dtype == tg::Dtype::F32
                 ? std::vector<uint32_t>(n,
                                         std::bit_cast<uint32_t>(static_cast<float>(b.initValue)))
                 : std::vector<uint32_t>(
                       n, std::bit_cast<uint32_t>(static_cast<int32_t>(b.initValue)));
    }
    default:
      return std::nullopt;
  }
}

// The buffers a GPU allocates: views (the fast set's optimizer arenas) get none of their own and
// start inside their parent's initial contents.
struct Layout {
  std::vector<std::optional<std::vector<uint32_t>>> initial;  // by buffer id; views: unused
  explicit Layout(const tg::BufferPlan& plan, const tg::EvalInputs& env) : initial(plan.buffers.size()) {
    for (const tg::BufferSpec& b : plan.buffers) {
      if (b.parent < 0) initial[static_cast<size_t>(b.id)] = leafWords(b, env);
    }
    for (const tg::BufferSpec& b : plan.buffers) {
      const auto words = b.parent >= 0 ? leafWords(b, env) : std::nullopt;
      if (!words) continue;
      auto& parent = initial[static_cast<size_t>(b.parent)];
      if (!parent) parent.emplace(static_cast<size_t>(plan.buffers[static_cast<size_t>(b.parent)].byteSize / 4), 0u);
      std::copy(words->begin(), words->end(), parent->begin() + b.offset / 4);
    }
  }
};

// A view's words out of its parent's.
void sliceViews(const tg::BufferPlan& plan, std::vector<std::vector<uint32_t>>& buffers) {
  for (const tg::BufferSpec& b : plan.buffers) {
    if (b.parent < 0) continue;
    const auto& parent = buffers[static_cast<size_t>(b.parent)];
    const auto begin = parent.begin() + b.offset / 4;
    buffers[static_cast<size_t>(b.id)].assign(begin, begin + b.byteSize / 4);
  }
}

std::string kernelLabel(const tg::KernelSpec& k) {
  return "op " + std::to_string(k.opIndex) + " (" + std::string(tg::opKindName(k.kind)) + ")";
}

// Kernel bindings for run_kernels.mjs: a buffer id, or a view as {id, offset, size} of its parent.
nlohmann::json bindingsJson(const tg::BufferPlan& plan, const tg::KernelSpec& k) {
  nlohmann::json out = nlohmann::json::array();
  for (int id : k.bindings) {
    const tg::BufferSpec& b = plan.buffers[static_cast<size_t>(id)];
    if (b.parent < 0)
      out.push_back(id);
    else
      out.push_back({{"id", b.parent}, {"offset", b.offset}, {"size", b.byteSize}});
  }
  return out;
}

}  // namespace

GpuRun runOnDawn(const tg::BufferPlan& plan, const std::vector<tg::KernelSpec>& kernels,
                 const tg::EvalInputs& env) {
  nlohmann::json job;
  job["buffers"] = nlohmann::json::array();
  job["read"] = nlohmann::json::array();
  const Layout layout(plan, env);
  for (const tg::BufferSpec& b : plan.buffers) {
    const auto& data = layout.initial[static_cast<size_t>(b.id)];
    job["buffers"].push_back({{"size", b.parent < 0 ? b.byteSize : 4},
                              {"dtype", "u32"},
                              {"data", data ? nlohmann::json(*data) : nlohmann::json(nullptr)}});
    job["read"].push_back(b.id);
  }
  job["kernels"] = nlohmann::json::array();
  for (const tg::KernelSpec& k : kernels) {
    if (k.wgsl.empty()) continue;
    const auto d = k.dispatch();
    job["kernels"].push_back({{"label", kernelLabel(k)},
                              {"wgsl", k.wgsl},
                              {"bindings", bindingsJson(plan, k)},
                              {"dispatch", {d[0], d[1]}}});
  }
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tg_dawn_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                    "_" + std::to_string(reinterpret_cast<uintptr_t>(&job)) + "_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::create_directories(dir);
  const auto jobPath = dir / "job.json", resultPath = dir / "result.json";
  std::ofstream(jobPath) << job.dump();
  const std::string cmd =
      "EGL_PLATFORM=surfaceless XDG_RUNTIME_DIR=/tmp " TG_NODE " " TG_DAWN_RUNNER " " +
      jobPath.string() + " " + resultPath.string() + " 2>" + (dir / "stderr.txt").string();
  const int rc = std::system(cmd.c_str());
  GpuRun run;
  if (rc != 0) {
    std::ifstream err(dir / "stderr.txt");
    run.errors.push_back("Dawn runner failed (exit " + std::to_string(rc) +
                         "): " + std::string(std::istreambuf_iterator<char>(err), {}) +
                         "\nInstall the oracle with scripts/setup.sh (npm install in tests/dawn).");
    return run;
  }
  nlohmann::json result = nlohmann::json::parse(std::ifstream(resultPath));
  for (const auto& e : result["errors"]) run.errors.push_back(e.get<std::string>());
  run.buffers.resize(plan.buffers.size());
  for (const tg::BufferSpec& b : plan.buffers) {
    run.buffers[static_cast<size_t>(b.id)] =
        result["buffers"][std::to_string(b.id)].get<std::vector<uint32_t>>();
  }
  sliceViews(plan, run.buffers);
  std::filesystem::remove_all(dir);
  return run;
}

GpuRun runOnShim(const tg::BufferPlan& plan, const std::vector<tg::KernelSpec>& kernels,
                 const tg::EvalInputs& env) {
  GpuRun run;
  const test_support::DefaultDevice gpu = test_support::openDefaultDevice(run.errors);
  const wgpu::Device& device = gpu.device;
  if (!device) return run;
  wgpu::Queue queue = device.GetQueue();
  std::vector<wgpu::Buffer> buffers;
  const Layout layout(plan, env);
  for (const tg::BufferSpec& b : plan.buffers) {
    wgpu::BufferDescriptor bd;
    const std::string label = "buffer " + std::to_string(b.id);
    bd.label = label;
    bd.size = static_cast<uint64_t>(b.parent < 0 ? b.byteSize : 4);
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    buffers.push_back(device.CreateBuffer(&bd));
    if (const auto& data = layout.initial[static_cast<size_t>(b.id)])
      queue.WriteBuffer(buffers.back(), 0, data->data(), data->size() * 4);
  }
  std::map<std::string, wgpu::ComputePipeline> pipelines;  // identical WGSL → one pipeline
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  for (const tg::KernelSpec& k : kernels) {
    if (k.wgsl.empty()) continue;
    auto [it, fresh] = pipelines.try_emplace(k.wgsl);
    if (fresh) {
      wgpu::ShaderSourceWGSL source;
      source.code = k.wgsl;
      wgpu::ShaderModuleDescriptor md;
      md.nextInChain = &source;
      const std::string label = kernelLabel(k);
      md.label = label;
      wgpu::ComputePipelineDescriptor pd;
      pd.label = label;
      pd.compute.module = device.CreateShaderModule(&md);
      it->second = device.CreateComputePipeline(&pd);
    }
    std::vector<wgpu::BindGroupEntry> entries;
    for (size_t i = 0; i < k.bindings.size(); ++i) {
      const tg::BufferSpec& b = plan.buffers[static_cast<size_t>(k.bindings[i])];
      entries.push_back({.binding = static_cast<uint32_t>(i),
                         .buffer = buffers[static_cast<size_t>(b.parent < 0 ? b.id : b.parent)],
                         .offset = static_cast<uint64_t>(b.offset),
                         .size = static_cast<uint64_t>(b.byteSize)});
    }
    const wgpu::BindGroupDescriptor bg{.layout = it->second.GetBindGroupLayout(0),
                                       .entryCount = entries.size(),
                                       .entries = entries.data()};
    pass.SetPipeline(it->second);
    pass.SetBindGroup(0, device.CreateBindGroup(&bg));
    const auto d = k.dispatch();
    pass.DispatchWorkgroups(d[0], d[1]);
  }
  pass.End();
  run.buffers = test_support::submitAndReadBack(gpu, encoder, buffers);
  if (run.buffers.empty())
    run.errors.push_back("shim: the readback failed");
  else
    sliceViews(plan, run.buffers);
  return run;
}

tg::EvalInputs uniformParams(const tg::Graph& graph, uint32_t firstSeed) {
  tg::EvalInputs env;
  uint32_t seed = firstSeed;
  for (const tg::Op& op : graph.ops) {
    if (op.kind != tg::OpKind::ParamInput) continue;
    const tg::Shape& s = graph.tensor(op.out).shape;
    env.params[op.attrs.name] = tg::HostTensor::f32(s, test_support::uniformValues(tg::shapeSize(s), seed++));
  }
  return env;
}

size_t expectGpuMatchesCpu(Backend backend, const tg::Graph& graph, const tg::ParamGrads& grads,
                           const std::vector<tg::WritebackDecl>& writebacks,
                           const tg::EvalInputs& env, double rtol, double atol,
                           tg::EmitOptions options,
                           const std::function<void(std::vector<tg::KernelSpec>&)>& rewrite,
                           bool pool) {
  const char* who = backend == Backend::Dawn ? "dawn" : "shim";
  const tg::BufferPlan plan =
      tg::planBuffers(graph, grads, writebacks, pool, options.kernels == tg::KernelSet::Fast);
  auto kernels = tg::emitKernels(graph, plan, options);
  if (rewrite) rewrite(kernels);
  // The tensor each buffer holds at the end, and whether the GPU ever materialised it.
  std::vector<int> lastOccupant(plan.buffers.size(), -1);
  for (const tg::Op& op : graph.ops)
    lastOccupant[static_cast<size_t>(plan.tensorToBuffer[static_cast<size_t>(op.out)])] = op.out;
  std::vector<bool> materialised(graph.tensors.size(), false);
  for (const tg::KernelSpec& k : kernels) {
    const tg::Op& op = graph.ops[static_cast<size_t>(k.opIndex)];
    const bool leaf = op.kind == tg::OpKind::ParamInput || op.kind == tg::OpKind::TensorInput ||
                      op.kind == tg::OpKind::StateInput;
    const bool alias = op.kind == tg::OpKind::Reshape &&
                       plan.tensorToBuffer[static_cast<size_t>(op.out)] ==
                           plan.tensorToBuffer[static_cast<size_t>(op.inputs[0])];
    // The fused optimizer's kernels write arenas, not their op's buffer; an aliased reshape's
    // bytes are its input's (unless its input, fused away, has none).
    const bool writes = !k.wgsl.empty() &&
                        k.bindings.back() == plan.tensorToBuffer[static_cast<size_t>(op.out)];
    if (leaf || writes ||
        (alias && k.fusedOps.empty() && materialised[static_cast<size_t>(op.inputs[0])]))
      materialised[static_cast<size_t>(op.out)] = true;
    // A row kernel (fuse_rows.h) also writes the values of its other ops that outside ops read.
    if (k.wgsl.empty() || k.outputs < 2) continue;
    const auto written = k.bindings.end() - k.outputs;
    for (int m : k.fusedOps) {
      const int t = graph.ops[static_cast<size_t>(m)].out;
      if (std::find(written, k.bindings.end(), plan.tensorToBuffer[static_cast<size_t>(t)]) !=
          k.bindings.end())
        materialised[static_cast<size_t>(t)] = true;
    }
  }
  const GpuRun gpu =
      backend == Backend::Dawn ? runOnDawn(plan, kernels, env) : runOnShim(plan, kernels, env);
  for (const auto& e : gpu.errors) ADD_FAILURE() << e;
  if (!gpu.errors.empty()) return 0;
  auto cpu = tg::evaluatePlanned(graph, plan, env);
  if (!plan.inPlace.empty()) {  // a new value written over the old one where a writeback would copy
    const auto values = tg::evaluate(graph, env);
    for (const tg::InPlaceUpdate& u : plan.inPlace)
      cpu[static_cast<size_t>(u.buffer)] = values[static_cast<size_t>(u.tensor)];
  }
  for (const tg::BufferSpec& b : plan.buffers) {
    // The buffer's last occupant decides how its bits read (pooling may change the dtype).
    const tg::HostTensor& want = cpu[static_cast<size_t>(b.id)];
    const std::vector<uint32_t>& got = gpu.buffers[static_cast<size_t>(b.id)];
    if (want.f.empty() && want.i.empty()) continue;  // never written
    if (!materialised[static_cast<size_t>(lastOccupant[static_cast<size_t>(b.id)])])
      continue;  // fused away
    const size_t n = static_cast<size_t>(want.size());
    int reported = 0;
    for (size_t k = 0; k < n && reported < 5; ++k) {
      if (want.dtype == tg::Dtype::F32) {
        const double w = want.f[k], g = std::bit_cast<float>(got.at(k));
        if (!(std::abs(g - w) <= atol + rtol * std::abs(w))) {
          ADD_FAILURE() << "buffer " << b.id << " (" << tg::bufferKindName(b.kind) << " " << b.name
                        << " " << tg::showShape(want.shape) << ") element " << k << ": " << who
                        << " " << g << " vs cpu " << w;
          ++reported;
        }
      } else if (std::bit_cast<int32_t>(got.at(k)) != want.i[k]) {
        ADD_FAILURE() << "buffer " << b.id << " element " << k << ": " << who << " "
                      << std::bit_cast<int32_t>(got[k]) << " vs cpu " << want.i[k];
        ++reported;
      }
    }
  }
  return static_cast<size_t>(
      std::count_if(kernels.begin(), kernels.end(), [](const auto& k) { return !k.wgsl.empty(); }));
}

}  // namespace tg_test
