// Every kernel of a step timed alone on a device: dispatched N and 2N times back to back in one
// pass (each dispatch rewrites its output, so the shim puts a barrier between them, as in the
// recorded step) and the difference divided by N, which cancels the submit and wait. N is at
// least --reps and, on a GPU, large enough that N dispatches take 2 ms: short timings, and
// warm-ups of short bursts, read long there (on an H100, D512's 4096×512×512 products read
// 67–335 µs with 5 dispatches a timing, 56–67 µs with 40; bench/RESULTS.md). The sum is the
// step's serial GPU cost. Each kernel first runs alone for a while, in bursts of N, so the
// device is at its working clocks. Bytes and FLOPs are estimates from the op's tensors: the
// tensors read and written once each, and output elements × the kernel's loop length (×2 for
// the multiply-adds of convolutions; 2·M·N·K for a matmul, whatever its tiling). Then each
// dispatch level's kernels together and the whole step the same way, level by level in one pass
// and as a submission of its own each time: a level's cost against its slowest kernel's shows
// what its barrier and its kernels' ramps add; a submitted step's against the step in one pass,
// what a submission adds; and a host's step time against that, what the host adds. Where the
// device has timestamp queries, the step is also timed level by level inside one pass (a pass
// per level, a timestamp at each pass's end: the barriers between levels stay as they are), so
// a level costing more in the step than alone shows (on an H200, each of D512's products took
// 13-18 µs more in the step: an extra that shrank with their binaries, bench/RESULTS.md).
#include <webgpu/webgpu_cpp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>

#include "inspect.h"

namespace tg_inspect {

double Profile::totalUs() const {
  double t = 0;
  for (const KernelCost& k : kernels) t += k.us;
  return t;
}

namespace {

// Each timing runs at least this long (more dispatches than --reps where needed), up to this
// many dispatches.
constexpr double kMinTimingUs = 2000;
constexpr uint32_t kMaxTimedDispatches = 16384;
constexpr size_t kMaxQueries = 4096;  // WebGPU's largest query set

using Clock = std::chrono::steady_clock;

bool multiplyAdds(tg::OpKind kind) {
  switch (kind) {
    case tg::OpKind::Matmul:
    case tg::OpKind::MatmulBatched:
    case tg::OpKind::Conv2d:
    case tg::OpKind::Conv2dInputGrad:
    case tg::OpKind::Conv2dWeightGrad:
      return true;
    default:
      return false;
  }
}

struct Device {
  wgpu::Instance instance;
  wgpu::Device device;
  std::string name;
  bool cpu = false;  // a CPU device (lavapipe): --reps dispatches of its kernels already take long
  bool timestamps = false;  // the device was opened with TimestampQuery
};

Device openDevice(const std::string& adapterName, std::vector<std::string>& errors) {
  Device d{wgpu::CreateInstance(), {}, {}};
  wgpu::RequestAdapterOptions ao;
  ao.adapterName = adapterName;
  wgpu::Adapter adapter;
  std::string why;
  d.instance.WaitAny(d.instance.RequestAdapter(
                         &ao, wgpu::CallbackMode::WaitAnyOnly,
                         [&](wgpu::RequestAdapterStatus, wgpu::Adapter a, std::string_view m) {
                           adapter = std::move(a);
                           why = m;
                         }),
                     UINT64_MAX);
  if (!adapter)
    throw std::runtime_error("no WebGPU adapter" +
                             (adapterName.empty() ? "" : " named like '" + adapterName + "'") +
                             ": " + why);
  wgpu::AdapterInfo info;
  adapter.GetInfo(&info);
  d.name = std::string(info.device);
  d.cpu = info.adapterType == wgpu::AdapterType::CPU;
  wgpu::Limits limits;
  adapter.GetLimits(&limits);
  wgpu::DeviceDescriptor desc;
  desc.requiredLimits = &limits;
  const wgpu::FeatureName timestampQuery = wgpu::FeatureName::TimestampQuery;
  d.timestamps = adapter.HasFeature(timestampQuery);
  if (d.timestamps) {
    desc.requiredFeatureCount = 1;
    desc.requiredFeatures = &timestampQuery;
  }
  desc.SetUncapturedErrorCallback([&errors](const wgpu::Device&, wgpu::ErrorType,
                                            std::string_view m) { errors.emplace_back(m); });
  d.instance.WaitAny(
      adapter.RequestDevice(&desc, wgpu::CallbackMode::WaitAnyOnly,
                            [&](wgpu::RequestDeviceStatus, wgpu::Device dev, std::string_view m) {
                              d.device = std::move(dev);
                              why = m;
                            }),
      UINT64_MAX);
  if (!d.device) throw std::runtime_error("could not open " + d.name + ": " + why);
  return d;
}

struct Dispatch {
  const tg::KernelSpec* kernel;
  wgpu::BindGroup group;
};
using RecordDispatch = std::function<void(const wgpu::ComputePassEncoder&, const Dispatch&)>;

// Each level's time inside the step: the step `reps` times over in one encoder, a compute pass
// per level with a timestamp at its end (the encoder tracks hazards across passes, so the
// barriers between levels are the step's). Level l of a repetition took its end's stamp less
// the level before it's, the previous repetition's last for l = 0; the first repetition only
// sets the start. The median over the repetitions, in µs.
std::vector<double> levelsInStep(const Device& d, const std::vector<std::vector<Dispatch>>& levels,
                                 const RecordDispatch& record) {
  const size_t perStep = levels.size();
  if (perStep == 0 || perStep > kMaxQueries / 3) return {};  // too few repetitions fit
  const auto reps = static_cast<uint32_t>(std::min<size_t>(kMaxQueries / perStep, 32));
  const auto count = static_cast<uint32_t>(reps * perStep);
  wgpu::QuerySetDescriptor qd;
  qd.type = wgpu::QueryType::Timestamp;
  qd.count = count;
  const wgpu::QuerySet stamps = d.device.CreateQuerySet(&qd);
  const uint64_t bytes = uint64_t{8} * count;
  wgpu::BufferDescriptor bd;
  bd.size = bytes;
  bd.usage = wgpu::BufferUsage::QueryResolve | wgpu::BufferUsage::CopySrc;
  const wgpu::Buffer resolved = d.device.CreateBuffer(&bd);
  bd.usage = wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst;
  const wgpu::Buffer readback = d.device.CreateBuffer(&bd);
  wgpu::CommandEncoder encoder = d.device.CreateCommandEncoder();
  for (uint32_t r = 0; r < reps; ++r)
    for (size_t l = 0; l < perStep; ++l) {
      wgpu::PassTimestampWrites writes;
      writes.querySet = stamps;
      writes.endOfPassWriteIndex = static_cast<uint32_t>(r * perStep + l);
      wgpu::ComputePassDescriptor pd;
      pd.timestampWrites = &writes;
      const wgpu::ComputePassEncoder pass = encoder.BeginComputePass(&pd);
      for (const Dispatch& k : levels[l]) record(pass, k);
      pass.End();
    }
  encoder.ResolveQuerySet(stamps, 0, count, resolved, 0);
  encoder.CopyBufferToBuffer(resolved, 0, readback, 0, bytes);
  const wgpu::CommandBuffer commands = encoder.Finish();
  d.device.GetQueue().Submit(1, &commands);
  bool mapped = false;
  d.instance.WaitAny(
      readback.MapAsync(wgpu::MapMode::Read, 0, bytes, wgpu::CallbackMode::WaitAnyOnly,
                        [&](wgpu::MapAsyncStatus status, std::string_view) {
                          mapped = status == wgpu::MapAsyncStatus::Success;
                        }),
      UINT64_MAX);
  if (!mapped) throw std::runtime_error("the step's timestamps could not be read back");
  std::vector<uint64_t> ns(count);
  std::memcpy(ns.data(), readback.GetConstMappedRange(0, bytes), bytes);
  readback.Unmap();
  std::vector<double> median(perStep);
  std::vector<double> samples;
  for (size_t l = 0; l < perStep; ++l) {
    samples.clear();
    for (size_t r = 1; r < reps; ++r) {
      const size_t at = r * perStep + l;
      samples.push_back(ns[at] > ns[at - 1] ? 1e-3 * static_cast<double>(ns[at] - ns[at - 1]) : 0);
    }
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    median[l] = samples[samples.size() / 2];
  }
  return median;
}

}  // namespace

Profile profileKernels(const Subject& s, const ProfileOptions& options) {
  if (options.reps < 1) throw InputError("--reps must be at least 1");
  std::vector<std::string> errors;  // outlives the device, which appends to it
  const Device d = openDevice(options.device, errors);
  wgpu::Queue queue = d.device.GetQueue();
  Profile p;
  p.device = d.name;
  p.reps = options.reps;

  // A buffer each, but views (the fast set's optimizer arenas) are ranges of their parent's, as
  // the runtime binds them: a kernel writing an arena and one reading a view of it then need the
  // barrier between them that the step has.
  const std::vector<tg::BufferSpec>& specs = s.ir.plan.buffers;
  std::vector<wgpu::Buffer> buffers(specs.size());
  for (const tg::BufferSpec& b : specs) {
    if (b.parent >= 0) continue;
    wgpu::BufferDescriptor bd;
    bd.label = b.name;
    bd.size = static_cast<uint64_t>(std::max<int64_t>(b.byteSize, 4));
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst;
    buffers.at(static_cast<size_t>(b.id)) = d.device.CreateBuffer(&bd);
  }
  for (const tg::BufferSpec& b : specs)
    if (b.parent >= 0) buffers.at(static_cast<size_t>(b.id)) = buffers.at(static_cast<size_t>(b.parent));
  std::map<std::string, wgpu::ComputePipeline> pipelines;  // one per distinct WGSL, as the runtime
  auto pipelineFor = [&](const tg::KernelSpec& k) {
    wgpu::ComputePipeline& pipeline = pipelines[k.wgsl];
    if (pipeline) return pipeline;
    wgpu::ShaderSourceWGSL source;
    source.code = k.wgsl;
    wgpu::ShaderModuleDescriptor md;
    md.nextInChain = &source;
    wgpu::ComputePipelineDescriptor pd;
    pd.compute.module = d.device.CreateShaderModule(&md);
    pipeline = d.device.CreateComputePipeline(&pd);
    return pipeline;
  };
  const RecordDispatch record = [&](const wgpu::ComputePassEncoder& pass, const Dispatch& k) {
    pass.SetPipeline(pipelineFor(*k.kernel));
    pass.SetBindGroup(0, k.group);
    const auto n = k.kernel->dispatch();
    pass.DispatchWorkgroups(n[0], n[1]);
  };
  // One pass of `dispatches` in order, `count` times over.
  auto encode = [&](const std::vector<Dispatch>& dispatches, uint32_t count) {
    wgpu::CommandEncoder encoder = d.device.CreateCommandEncoder();
    wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
    for (uint32_t i = 0; i < count; ++i)
      for (const Dispatch& k : dispatches) record(pass, k);
    pass.End();
    return encoder.Finish();
  };
  // Wall time of `dispatches` `count` times over, best of 3: in one pass of one submit, or with
  // `submitEach` one submit each time, queued back to back, and waited for once.
  auto timeDispatches = [&](const std::vector<Dispatch>& dispatches, uint32_t count,
                            bool submitEach = false) {
    double best = 1e300;
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::vector<wgpu::CommandBuffer> commands;
      for (uint32_t i = 0; i < (submitEach ? count : 1); ++i)
        commands.push_back(encode(dispatches, submitEach ? 1 : count));
      const auto start = Clock::now();
      for (const wgpu::CommandBuffer& c : commands) queue.Submit(1, &c);
      d.instance.WaitAny(
          queue.OnSubmittedWorkDone(wgpu::CallbackMode::WaitAnyOnly,
                                    [](wgpu::QueueWorkDoneStatus, std::string_view) {}),
          UINT64_MAX);
      best =
          std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    return best;
  };
  // Dispatches a timing: --reps, or on a GPU doubled until a timing takes kMinTimingUs (an
  // estimate from one short timing reads long on a cold GPU, so it would pick too few).
  const auto countFor = [&](const std::vector<Dispatch>& dispatches, bool submitEach) {
    uint32_t n = options.reps;
    while (!d.cpu && n < kMaxTimedDispatches &&
           timeDispatches(dispatches, n, submitEach) < kMinTimingUs)
      n *= 2;
    return n;
  };
  // N and 2N times over, the difference over N: the submit and the wait cancel.
  const auto costOf = [&](const std::vector<Dispatch>& dispatches, bool submitEach = false,
                          uint32_t n = 0) {
    if (n == 0) n = countFor(dispatches, submitEach);
    const double once = timeDispatches(dispatches, n, submitEach);
    const double twice = timeDispatches(dispatches, 2 * n, submitEach);
    return std::max(0.0, (twice - once) / n);
  };
  std::vector<Dispatch> step;  // every kernel, in dispatch order
  for (size_t i = 0; i < s.kernels.size(); ++i) {
    const tg::KernelSpec& k = s.ir.kernels[s.kernels[i]];
    const tg::Op& op = s.ir.graph.ops.at(static_cast<size_t>(k.opIndex));
    std::vector<wgpu::BindGroupEntry> entries;
    for (size_t b = 0; b < k.bindings.size(); ++b)
      entries.push_back(
          {.binding = static_cast<uint32_t>(b),
           .buffer = buffers.at(static_cast<size_t>(k.bindings[b])),
           .offset = static_cast<uint64_t>(specs.at(static_cast<size_t>(k.bindings[b])).offset),
           .size = static_cast<uint64_t>(
               std::max<int64_t>(specs.at(static_cast<size_t>(k.bindings[b])).byteSize, 4))});
    const wgpu::BindGroupDescriptor bg{.layout = pipelineFor(k).GetBindGroupLayout(0),
                                       .entryCount = entries.size(),
                                       .entries = entries.data()};
    step.push_back({&k, d.device.CreateBindGroup(&bg)});
    const std::vector<Dispatch> alone{step.back()};
    // Timed cold, short bursts read several times slow (H100, --reps 5: 205 µs for a product
    // gemm_bench times at 38), so the device first runs this kernel for warmUpMs, in bursts as
    // long as the timings: after bursts of 5 dispatches (0.3 ms) with the host's round trips
    // between them, D512's 4096×512×512 products read 56–277 µs in timings of 2 ms; after
    // bursts of 40 (2.3 ms), 56–67 (H100, bench/RESULTS.md).
    const uint32_t burst = countFor(alone, false);
    double warm = 0;
    for (int b = 0; warm < 1000.0 * options.warmUpMs && b < 256; ++b)
      warm += timeDispatches(alone, burst);
    const double us = costOf(alone, false, burst);
    if (!errors.empty())
      throw std::runtime_error("the device rejected kernel " + std::to_string(i) + " (op " +
                               std::to_string(k.opIndex) + ", " +
                               std::string(tg::opKindName(k.kind)) + "): " + errors.front());
    KernelCost c;
    c.index = i;
    c.us = us;
    const double outElements = static_cast<double>(tg::shapeSize(s.ir.graph.tensor(op.out).shape));
    c.bytes = 4 * outElements;
    for (int t : op.inputs)
      c.bytes += 4 * static_cast<double>(tg::shapeSize(s.ir.graph.tensor(t).shape));
    c.flops = outElements * static_cast<double>(std::max<int64_t>(1, k.loopLength)) *
              (multiplyAdds(k.kind) ? 2 : 1);
    // A matmul kernel does 2·M·N·K for each product it computes whatever its tiling, also where
    // it stands at a folded neighbour's place (its invocations share outputs and K, so
    // loopLength is no per-output K): the products of a sum (one K loop through their operand
    // pairs) and an outer product after a matrix-vector one each count.
    // (A kernel standing at its own matmul lists it in fusedOps too: each op counts once.)
    std::vector<int> computed = k.fusedOps;
    computed.push_back(k.opIndex);
    std::sort(computed.begin(), computed.end());
    computed.erase(std::unique(computed.begin(), computed.end()), computed.end());
    double matmulFlops = 0;
    for (int o : computed) {
      const tg::Op& m = s.ir.graph.ops.at(static_cast<size_t>(o));
      if (m.kind != tg::OpKind::Matmul && m.kind != tg::OpKind::MatmulBatched) continue;
      matmulFlops += 2.0 * static_cast<double>(tg::shapeSize(s.ir.graph.tensor(m.out).shape)) *
                     static_cast<double>(s.ir.graph.tensor(m.inputs[0]).shape.back());
    }
    if (matmulFlops > 0) c.flops = matmulFlops;
    p.kernels.push_back(c);
  }
  // Each level's kernels together (a barrier after them, as each rewrites its output), then the
  // whole step level by level, as the runtime records it: what the kernels cost with their
  // barriers, in one pass, and as a submission of its own each time, as the runtime submits it.
  std::vector<Dispatch> byLevel;
  std::vector<std::vector<Dispatch>> levels;
  for (const LevelRow& level : levelRows(s)) {
    std::vector<Dispatch> dispatches;
    for (size_t i : level.kernels) dispatches.push_back(step.at(i));
    p.levelUs.push_back(costOf(dispatches));
    byLevel.insert(byLevel.end(), dispatches.begin(), dispatches.end());
    levels.push_back(std::move(dispatches));
  }
  p.stepUs = costOf(byLevel);
  p.submittedStepUs = costOf(byLevel, true);
  if (d.timestamps) p.levelInStepUs = levelsInStep(d, levels, record);
  if (!errors.empty()) throw std::runtime_error("the device rejected the step: " + errors.front());
  return p;
}

std::string profileText(const Subject& s, const Profile& p, size_t top) {
  std::ostringstream os;
  const double total = p.totalUs();
  char line[256];
  std::snprintf(line, sizeof line,
                "%s on %s: %zu kernels, serial GPU cost %.1f us (at least %u dispatches a "
                "timing, and 2 ms on a GPU)\n\n",
                s.title.c_str(), p.device.c_str(), p.kernels.size(), total, p.reps);
  os << line;
  struct Group {
    int n = 0;
    double us = 0, bytes = 0, flops = 0;
  };
  std::map<std::string, Group> byKind;
  for (const KernelCost& c : p.kernels) {
    Group& g = byKind[std::string(tg::opKindName(s.kernel(c.index).kind))];
    ++g.n;
    g.us += c.us;
    g.bytes += c.bytes;
    g.flops += c.flops;
  }
  std::vector<std::pair<std::string, Group>> kinds(byKind.begin(), byKind.end());
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
  // GB/s and GFLOP/s over the kind's own time: bytes / us = MB/s, so / 1e3 for GB/s.
  std::snprintf(line, sizeof line, "%-22s %7s %10s %7s %9s %9s %10s\n", "op kind", "kernels",
                "total us", "share", "us/kernel", "GB/s", "GFLOP/s");
  os << line;
  for (const auto& [kind, g] : kinds) {
    const double rate = g.us > 0 ? 1e-3 / g.us : 0;
    std::snprintf(line, sizeof line, "%-22s %7d %10.1f %6.1f%% %9.2f %9.2f %10.2f\n", kind.c_str(),
                  g.n, g.us, total > 0 ? 100 * g.us / total : 0, g.us / g.n, g.bytes * rate,
                  g.flops * rate);
    os << line;
  }
  if (!p.levelUs.empty()) {
    const std::vector<LevelRow> levels = levelRows(s);
    double sum = 0;
    for (double us : p.levelUs) sum += us;
    std::snprintf(line, sizeof line,
                  "\nthe step on the GPU: %.1f us, its levels in order in one pass (%zu levels: "
                  "%.1f us timed a level at a time); %.1f us a step submitted on its own\n",
                  p.stepUs, p.levelUs.size(), sum, p.submittedStepUs);
    os << line;
    const bool inStep = p.levelInStepUs.size() == p.levelUs.size();
    if (inStep) {
      double inStepSum = 0;
      for (double us : p.levelInStepUs) inStepSum += us;
      std::snprintf(line, sizeof line,
                    "the levels timed inside the step (timestamps at their ends): %.1f us\n",
                    inStepSum);
      os << line;
    }
    std::snprintf(line, sizeof line, "%5s %7s %9s %12s %10s%s\n", "level", "kernels", "us",
                  "slowest alone", "the rest", inStep ? "    in step  more than alone" : "");
    os << line;
    for (size_t l = 0; l < p.levelUs.size(); ++l) {
      double slowest = 0;
      for (size_t i : levels.at(l).kernels) slowest = std::max(slowest, p.kernels.at(i).us);
      std::snprintf(line, sizeof line, "%5zu %7zu %9.2f %12.2f %10.2f", l + 1,
                    levels[l].kernels.size(), p.levelUs[l], slowest, p.levelUs[l] - slowest);
      os << line;
      if (inStep) {
        std::snprintf(line, sizeof line, " %10.2f %16.2f", p.levelInStepUs[l],
                      p.levelInStepUs[l] - p.levelUs[l]);
        os << line;
      }
      os << "\n";
    }
  }
  std::vector<KernelCost> costs = p.kernels;
  std::stable_sort(costs.begin(), costs.end(),
                   [](const KernelCost& a, const KernelCost& b) { return a.us > b.us; });
  std::snprintf(line, sizeof line,
                "\nmost expensive kernels\n%5s %-20s %-18s %10s %9s %9s %10s  %s\n", "#", "op kind",
                "output", "threads", "us", "GB/s", "GFLOP/s", "call site");
  os << line;
  const std::vector<KernelRow> rows = kernelRows(s);
  for (size_t i = 0; i < std::min(top, costs.size()); ++i) {
    const KernelRow& r = rows[costs[i].index];
    const double rate = costs[i].us > 0 ? 1e-3 / costs[i].us : 0;
    std::snprintf(line, sizeof line, "%5zu %-20s %-18s %10lld %9.2f %9.2f %10.2f  ", r.index,
                  r.kind.c_str(), r.output.c_str(), static_cast<long long>(r.threads), costs[i].us,
                  costs[i].bytes * rate, costs[i].flops * rate);
    os << line << r.site << "\n";
  }
  return os.str();
}

nlohmann::json profileJson(const Subject& s, const Profile& p) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelCost& c : p.kernels)
    kernels.push_back({{"index", c.index},
                       {"kind", tg::opKindName(s.kernel(c.index).kind)},
                       {"us", c.us},
                       {"bytes", c.bytes},
                       {"flops", c.flops}});
  return {{"device", p.device},
          {"reps", p.reps},
          {"totalUs", p.totalUs()},
          {"kernels", kernels},
          {"stepUs", p.stepUs},
          {"levelUs", p.levelUs},
          {"submittedStepUs", p.submittedStepUs},
          {"levelInStepUs", p.levelInStepUs}};
}

}  // namespace tg_inspect
