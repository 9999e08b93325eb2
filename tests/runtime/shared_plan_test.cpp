// The plan the runtime gives a GPU by default: own buffers, then the intermediates whose kernels'
// dispatch levels never meet sharing one (tg::shareBuffersAcrossLevels). Checked three ways: the
// plan itself (no shared buffer is touched by two occupants within a level or out of turn in op
// order, and the schedule over the real buffers keeps its levels), training on the device (the
// same losses, parameters and per-kernel outputs as own buffers, bit for bit), and the choice
// between it and the pooled plan (traceForDevice, for devices this machine does not have).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "../../tensorgrad/src/runtime/session.h"
#include "runtime_test_util.h"
#include "tensorgrad/models/registry.h"
#include "tensorgrad/schedule.h"

namespace {

using rt_test::await;
using rt_test::completedStep;

tg_models::Sample transformer(tg_models::Sizes sizes = {}) {
  return tg_models::findSample("transformer").make(sizes, 1);
}

tg::EmitOptions gpuFastSet() {
  return {.kernels = tg::KernelSet::Fast, .workgroupStorageBytes = 49152};  // an H100's
}

// The shared buffer an intermediate lives in, else the buffer itself (an arena's views keep
// their own ids: they are disjoint ranges of it).
int physical(const tg::BufferPlan& plan, int id) {
  const int parent = plan.buffers.at(static_cast<size_t>(id)).parent;
  const bool shared = parent >= 0 && plan.buffers.at(static_cast<size_t>(parent)).kind == tg::BufferSpec::Kind::Intermediate;
  return shared ? parent : id;
}

// Kernels that dispatch work (the rest stand for ops another kernel computes).
size_t dispatching(const tg::CompiledIR& ir) {
  return static_cast<size_t>(std::count_if(ir.kernels.begin(), ir.kernels.end(),
                                           [](const tg::KernelSpec& k) { return !k.wgsl.empty(); }));
}

// Walking the kernels in `order`, each real buffer's occupants take turns: once another occupant
// has used it, an earlier one never comes back. Returns the first buffer that breaks that, or -1.
int interleavedBuffer(const tg::CompiledIR& ir, const std::vector<size_t>& order) {
  std::map<int, int> current;              // real buffer → occupant using it now
  std::map<int, std::set<int>> finished;   // real buffer → occupants done with it
  for (size_t k : order) {
    for (int id : ir.kernels[k].bindings) {
      const int real = physical(ir.plan, id);
      if (real == id) continue;
      auto [it, fresh] = current.emplace(real, id);
      if (fresh || it->second == id) continue;
      if (finished[real].contains(id)) return real;
      finished[real].insert(it->second);
      it->second = id;
    }
  }
  return -1;
}

// Barriers a hazard tracker inserts dispatching `order` in one pass: one before each kernel that
// reads what a kernel since the last barrier wrote or writes what one read or wrote.
int barriers(const tg::CompiledIR& ir, const std::vector<size_t>& order, bool realBuffers) {
  const auto idOf = [&](int id) { return realBuffers ? physical(ir.plan, id) : id; };
  std::set<int> read, written;
  int count = 0;
  for (size_t k : order) {
    const tg::KernelSpec& spec = ir.kernels[k];
    std::set<int> reads, writes;
    const size_t firstOut = spec.bindings.size() - static_cast<size_t>(std::max(spec.outputs, 1));
    for (size_t i = 0; i < spec.bindings.size(); ++i) (i < firstOut ? reads : writes).insert(idOf(spec.bindings[i]));
    for (int id : spec.viewsRead) reads.insert(idOf(id));
    for (int id : spec.viewsWritten) writes.insert(idOf(id));
    bool hazard = false;
    for (int id : reads) hazard = hazard || written.contains(id);
    for (int id : writes) hazard = hazard || written.contains(id) || read.contains(id);
    if (hazard) ++count, read.clear(), written.clear();
    read.insert(reads.begin(), reads.end());
    written.insert(writes.begin(), writes.end());
  }
  return count;
}

TEST(SharedPlan, KeepsEveryLevelAndNoTwoOccupantsMeet) {
  for (const tg::KernelSet set : {tg::KernelSet::Fast, tg::KernelSet::Upstream}) {
    SCOPED_TRACE(set == tg::KernelSet::Fast ? "fast set" : "upstream set");
    tg::EmitOptions emit = gpuFastSet();
    emit.kernels = set;
    const tg::CompiledIR own = transformer().trace(emit, false);
    tg::CompiledIR shared = own;
    const int made = tg::shareBuffersAcrossLevels(shared.plan, shared.kernels);
    EXPECT_GT(made, 0);
    EXPECT_LT(shared.plan.totalBytes() * 3, own.plan.totalBytes());
    // What the host or a copy reads keeps its own buffer.
    const auto own_ = [&](int id) { return shared.plan.buffers.at(static_cast<size_t>(id)).parent < 0; };
    for (int id : shared.plan.outputBufferIds) EXPECT_TRUE(own_(id));
    for (const auto& [name, id] : shared.plan.capturesByName) EXPECT_TRUE(own_(id)) << name;
    for (const tg::Writeback& w : shared.plan.writebacks) EXPECT_TRUE(own_(w.source));
    for (const auto& [name, id] : shared.plan.inputsByName) EXPECT_TRUE(own_(id)) << name;

    // Dispatched level by level, and traced kernel by kernel in op order.
    const tg::DispatchSchedule schedule = tg::scheduleDispatches(shared.kernels);
    EXPECT_EQ(interleavedBuffer(shared, schedule.order), -1);
    std::vector<size_t> opOrder = schedule.order;
    std::sort(opOrder.begin(), opOrder.end());
    EXPECT_EQ(interleavedBuffer(shared, opOrder), -1);
    // Within a level no kernel touches a real buffer that another of the level touches as
    // another occupant.
    std::map<std::pair<int, int>, int> occupantAt;  // (level, real buffer) → occupant
    for (size_t k : schedule.order) {
      for (int id : shared.kernels[k].bindings) {
        auto [it, fresh] = occupantAt.emplace(std::pair{schedule.level[k], physical(shared.plan, id)}, id);
        EXPECT_TRUE(fresh || it->second == id) << "level " << schedule.level[k] << ": buffers " << id
                                               << " and " << it->second << " share one";
      }
    }
    // The barriers a WebGPU implementation puts between the dispatches, in the order the
    // runtime records them, tracking the real buffers: as many as for the plan's own buffers.
    EXPECT_EQ(barriers(shared, schedule.order, true), barriers(shared, schedule.order, false));
  }
}

// A training whose IR the test builds: own buffers, shared or not, whatever the device.
tg::CompiledTraining<tg::Module> compileWith(const tg_models::Sample& sample, tg::KernelSet set,
                                             bool share, bool traceKernels) {
  tg::RuntimeOptions options;
  options.emit.kernels = set;
  options.poolBuffers = false;  // the builder's plan as it is
  options.traceKernels = traceKernels;
  const auto build = [&](bool, const tg::EmitOptions& emit) {
    tg::CompiledIR ir = sample.trace(emit, false);
    const int made = share ? tg::shareBuffersAcrossLevels(ir.plan, ir.kernels) : 0;
    EXPECT_EQ(made > 0, share);
    return ir;
  };
  return tg::CompiledTraining<tg::Module>(tg::detail::compileTrainingIR(
      build, sample.spec().inputs, sample.spec().optimizer, options));
}

// Both kernel sets: with upstream's, own buffers give upstream's plan's bits
// (Training.FusedAndUnpooledPlansMatchUpstreamsPlan), so the shared plan does too.
TEST(SharedPlan, TrainsBitForBitAsOwnBuffers) {
  const tg_models::Sample sample = transformer({{"batch", 8}});
  const std::pair<tg::KernelSet, bool> runs[] = {{tg::KernelSet::Fast, false},
                                                  {tg::KernelSet::Fast, true},
                                                  {tg::KernelSet::Upstream, false},
                                                  {tg::KernelSet::Upstream, true}};
  for (const auto& [set, traceKernels] : runs) {
    SCOPED_TRACE(std::string(set == tg::KernelSet::Fast ? "fast set, " : "upstream set, ") +
                 (traceKernels ? "kernel by kernel" : "level by level"));
    auto own = compileWith(sample, set, false, traceKernels);
    auto shared = compileWith(sample, set, true, traceKernels);
    tg::Mulberry32 rng(7);
    for (int s = 0; s < 3; ++s) {
      const tg::Feed feed = sample.feed(rng);
      const tg::StepResult a = completedStep(own.step(feed));
      const tg::StepResult b = completedStep(shared.step(feed));
      EXPECT_EQ(b.loss, a.loss) << "step " << s;
      ASSERT_EQ(b.kernelOutputs.size(), a.kernelOutputs.size());
      for (size_t k = 0; k < a.kernelOutputs.size(); ++k) {
        const tg::Array& x = a.kernelOutputs[k].values;
        const tg::Array& y = b.kernelOutputs[k].values;
        if (x.dtype() == tg::Dtype::F32) {
          EXPECT_EQ(y.f32(), x.f32()) << "op #" << a.kernelOutputs[k].opIndex;
        } else {
          EXPECT_EQ(y.i32(), x.i32()) << "op #" << a.kernelOutputs[k].opIndex;
        }
      }
    }
    EXPECT_EQ(await(shared.downloadParams()), await(own.downloadParams()));
  }
}

bool hasSharedBuffers(const tg::CompiledIR& ir) {
  return std::any_of(ir.plan.buffers.begin(), ir.plan.buffers.end(),
                     [](const tg::BufferSpec& b) { return b.name.starts_with("shared intermediates"); });
}

TEST(SharedPlan, IsTheGpuDefaultUnlessOverBudgetAndFarOverThePooledPlan) {
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  const tg_models::Sample small = transformer();
  const auto traceSmall = [&](bool pool, const tg::EmitOptions& emit) { return small.trace(emit, pool); };
  const tg::RuntimeOptions fast{.emit = {.kernels = tg::KernelSet::Fast}};
  const tg::detail::PlanTarget gpu{.onCpu = false, .maxBufferSize = 4 * kGiB, .workgroupStorageBytes = 49152};

  // A CPU device pools; a GPU shares; asked for, own buffers or the pooled plan anywhere.
  const tg::CompiledIR onCpu = tg::detail::traceForDevice(fast, {.onCpu = true, .workgroupStorageBytes = 16384}, traceSmall);
  EXPECT_FALSE(hasSharedBuffers(onCpu));
  EXPECT_LT(onCpu.plan.totalBytes(), onCpu.plan.unpooledIntermediateBytes);
  const tg::CompiledIR onGpu = tg::detail::traceForDevice(fast, gpu, traceSmall);
  EXPECT_TRUE(hasSharedBuffers(onGpu));
  // The kernels of own buffers (every fold kept), fewer than the pooled plan's.
  const size_t ownKernels = dispatching(small.trace(gpuFastSet(), false));
  EXPECT_EQ(dispatching(onGpu), ownKernels);
  EXPECT_GT(dispatching(small.trace(gpuFastSet(), true)), ownKernels);
  tg::RuntimeOptions own = fast;
  own.poolBuffers = false;
  EXPECT_FALSE(hasSharedBuffers(tg::detail::traceForDevice(own, gpu, traceSmall)));
  tg::RuntimeOptions pooled = fast;
  pooled.poolBuffers = true;
  EXPECT_EQ(tg::detail::traceForDevice(pooled, gpu, traceSmall).plan.totalBytes(), onCpu.plan.totalBytes());

  // Upstream's kernels at D512 L8 T64: the shared plan (2.8 GB) is over a 4 GiB device's budget
  // (1 GiB) but within 1.5x the pooled plan (2.2 GB), so it stays; allowed no more than the
  // pooled plan's bytes, the pooled plan is taken.
  const tg_models::Sample large = transformer({{"d", 512}, {"layers", 8}, {"heads", 8}, {"seq-len", 65}, {"batch", 64}});
  const auto traceLarge = [&](bool pool, const tg::EmitOptions& emit) { return large.trace(emit, pool); };
  const tg::CompiledIR shared = tg::detail::traceForDevice({}, gpu, traceLarge);
  EXPECT_TRUE(hasSharedBuffers(shared));
  EXPECT_GT(shared.plan.totalBytes(), tg::unpooledBudgetBytes(gpu.maxBufferSize));
  tg::detail::PlanTarget strict = gpu;
  strict.sharedOverPooled = 1.0;
  const tg::CompiledIR fallback = tg::detail::traceForDevice({}, strict, traceLarge);
  EXPECT_FALSE(hasSharedBuffers(fallback));
  EXPECT_LT(fallback.plan.totalBytes(), shared.plan.totalBytes());
  EXPECT_LE(shared.plan.totalBytes(), tg::kSharedOverPooled * fallback.plan.totalBytes());
  // Within a device's budget the shared plan stays whatever the pooled plan needs.
  strict.maxBufferSize = 80 * kGiB;
  EXPECT_TRUE(hasSharedBuffers(tg::detail::traceForDevice({}, strict, traceLarge)));
}

}  // namespace
