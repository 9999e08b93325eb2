// Where a training step's GPU time goes. Every kernel of the step is timed on its own: dispatched
// N and 2N times back to back in one pass (each dispatch rewrites its output, so the shim puts a
// barrier between them, as in the recorded step) and the difference divided by N, which cancels
// the submit and wait. The sum over kernels is the step's serial GPU cost; the table groups it
// by op kind and lists the most expensive kernels.
//
//   kernel_costs [mlp|transformer] [--fuse] [--unpooled] [--reps N] [--tsv FILE]
// --tsv writes one row per kernel (op order): its cost, level in the runtime's schedule and
// bindings, for studying schedules offline.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>

#include "default_device.h"
#include "tensorgrad/schedule.h"
#include "models.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string shapeText(const tg::Shape& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + "]";
}

struct Cost {
  size_t kernel;
  double us;
};

}  // namespace

int main(int argc, char** argv) {
  std::string model = "transformer";
  bool fuse = false, pool = true;
  uint32_t reps = 50;
  const char* tsv = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--fuse")) fuse = true;
    else if (!std::strcmp(argv[i], "--unpooled")) pool = false;
    else if (!std::strcmp(argv[i], "--tsv") && i + 1 < argc) tsv = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = static_cast<uint32_t>(std::atoi(argv[++i]));
    else model = argv[i];
  }
  tg::CompiledIR ir;
  auto traceModel = [&](const auto& m, const auto& spec) {
    ir = tg::detail::traceTraining(
        m, [&](const tg::Inputs& in) { return spec.loss(m, in); }, spec.inputs, spec.optimizer, 42,
        {.fuseElementwise = fuse}, pool);
  };
  static const tg_models::MLP mlp;
  static const tg_models::Transformer transformer;
  if (model == "mlp") {
    traceModel(mlp, tg_models::mlpSpec(mlp));
  } else if (model == "transformer") {
    traceModel(transformer, tg_models::transformerSpec(transformer));
  } else {
    std::fprintf(stderr, "usage: kernel_costs [mlp|transformer] [--fuse] [--unpooled] [--reps N] [--tsv FILE]\n");
    return 2;
  }

  std::vector<std::string> errors;
  const test_support::DefaultDevice d = test_support::openDefaultDevice(errors);
  if (!d.device) {
    std::fprintf(stderr, "%s\n", errors.empty() ? "no device" : errors[0].c_str());
    return 1;
  }
  const wgpu::AdapterInfo info = d.device.GetAdapterInfo();
  wgpu::Queue queue = d.device.GetQueue();

  std::vector<wgpu::Buffer> buffers;
  for (const tg::BufferSpec& b : ir.plan.buffers) {
    wgpu::BufferDescriptor bd;
    bd.size = static_cast<uint64_t>(std::max<int64_t>(b.byteSize, 4));
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst;
    buffers.push_back(d.device.CreateBuffer(&bd));
  }
  std::map<std::string, wgpu::ComputePipeline> pipelines;
  auto pipelineFor = [&](const tg::KernelSpec& k) {
    auto& p = pipelines[k.wgsl];
    if (p) return p;
    wgpu::ShaderSourceWGSL source;  // the shim translates; errors reach `errors`
    source.code = k.wgsl;
    wgpu::ShaderModuleDescriptor md;
    md.nextInChain = &source;
    wgpu::ComputePipelineDescriptor pd;
    pd.compute.module = d.device.CreateShaderModule(&md);
    p = d.device.CreateComputePipeline(&pd);
    return p;
  };
  // Wall time of one submit of `count` dispatches of kernel k, best of 3.
  auto timeDispatches = [&](const tg::KernelSpec& k, const wgpu::BindGroup& group, uint32_t count) {
    double best = 1e30;
    for (int attempt = 0; attempt < 3; ++attempt) {
      wgpu::CommandEncoder encoder = d.device.CreateCommandEncoder();
      wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
      pass.SetPipeline(pipelineFor(k));
      pass.SetBindGroup(0, group);
      const auto n = k.dispatch();
      for (uint32_t i = 0; i < count; ++i) pass.DispatchWorkgroups(n[0], n[1]);
      pass.End();
      wgpu::CommandBuffer commands = encoder.Finish();
      const auto start = Clock::now();
      queue.Submit(1, &commands);
      d.instance.WaitAny(queue.OnSubmittedWorkDone(wgpu::CallbackMode::WaitAnyOnly,
                                                   [](wgpu::QueueWorkDoneStatus, std::string_view) {}),
                         UINT64_MAX);
      best = std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    return best;
  };

  std::vector<Cost> costs;
  for (size_t i = 0; i < ir.kernels.size(); ++i) {
    const tg::KernelSpec& k = ir.kernels[i];
    if (k.wgsl.empty()) continue;
    wgpu::BindGroupDescriptor bg;
    bg.layout = pipelineFor(k).GetBindGroupLayout(0);
    for (size_t b = 0; b < k.bindings.size(); ++b)
      bg.entries.push_back({.binding = static_cast<uint32_t>(b), .buffer = buffers[static_cast<size_t>(k.bindings[b])]});
    const wgpu::BindGroup group = d.device.CreateBindGroup(&bg);
    const double once = timeDispatches(k, group, reps);
    const double twice = timeDispatches(k, group, 2 * reps);
    costs.push_back({i, std::max(0.0, (twice - once) / reps)});
  }
  if (!errors.empty()) {
    std::fprintf(stderr, "device error: %s\n", errors[0].c_str());
    return 1;
  }

  if (tsv) {
    FILE* f = std::fopen(tsv, "w");
    if (!f) {
      std::perror(tsv);
      return 1;
    }
    const tg::DispatchSchedule schedule = tg::scheduleDispatches(ir.kernels);
    std::fprintf(f, "kernel\tkind\tlevel\tthreads\tus\toutput\tinputs\tbindings\n");
    for (const Cost& c : costs) {
      const tg::KernelSpec& k = ir.kernels[c.kernel];
      const tg::Op& op = ir.graph.ops[static_cast<size_t>(k.opIndex)];
      std::string inputs, bindings;
      for (int t : op.inputs) inputs += shapeText(ir.graph.tensor(t).shape);
      for (int b : k.bindings) bindings += (bindings.empty() ? "" : " ") + std::to_string(b);
      std::fprintf(f, "%zu\t%s\t%d\t%lld\t%.3f\t%s\t%s\t%s\n", c.kernel, std::string(tg::opKindName(k.kind)).c_str(),
                   schedule.level[c.kernel], static_cast<long long>(k.threads), c.us,
                   shapeText(ir.graph.tensor(op.out).shape).c_str(), inputs.c_str(), bindings.c_str());
    }
    std::fclose(f);
  }

  double total = 0;
  std::map<std::string, std::pair<int, double>> byKind;
  for (const Cost& c : costs) {
    total += c.us;
    auto& [n, us] = byKind[std::string(tg::opKindName(ir.kernels[c.kernel].kind))];
    ++n;
    us += c.us;
  }
  std::printf("%s step on %s: %zu kernels, serial GPU cost %.1f us (%u reps per kernel)\n\n",
              model.c_str(), std::string(info.device).c_str(), costs.size(), total, reps);
  std::vector<std::pair<std::string, std::pair<int, double>>> kinds(byKind.begin(), byKind.end());
  std::sort(kinds.begin(), kinds.end(), [](auto& a, auto& b) { return a.second.second > b.second.second; });
  std::printf("%-22s %8s %10s %7s %9s\n", "op kind", "kernels", "total us", "share", "us/kernel");
  for (const auto& [kind, v] : kinds)
    std::printf("%-22s %8d %10.1f %6.1f%% %9.2f\n", kind.c_str(), v.first, v.second,
                100 * v.second / total, v.second / v.first);
  std::sort(costs.begin(), costs.end(), [](const Cost& a, const Cost& b) { return a.us > b.us; });
  std::printf("\nmost expensive kernels\n%-22s %-16s %-24s %9s %8s\n", "op kind", "output", "inputs",
              "threads", "us");
  for (size_t i = 0; i < std::min<size_t>(20, costs.size()); ++i) {
    const tg::KernelSpec& k = ir.kernels[costs[i].kernel];
    const tg::Op& op = ir.graph.ops[static_cast<size_t>(k.opIndex)];
    std::string inputs;
    for (int t : op.inputs) inputs += shapeText(ir.graph.tensor(t).shape);
    std::printf("%-22s %-16s %-24s %9lld %8.2f\n", std::string(tg::opKindName(k.kind)).c_str(),
                shapeText(ir.graph.tensor(op.out).shape).c_str(), inputs.c_str(),
                static_cast<long long>(k.threads), costs[i].us);
  }
  return 0;
}
