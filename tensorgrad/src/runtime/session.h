// The objects behind CompiledTraining and CompiledForward. Fields marked "GPU thread" are touched
// only by jobs on the compile's GpuWorker; the rest are set at construction or guarded by
// `mutex`. A generation counter makes queued and in-flight calls abort when replaceModel or
// destroy overtakes them.
#pragma once

#include <algorithm>
#include <atomic>
#include <list>

#include "tensorgrad/schedule.h"

#include "graph_executor.h"
#include "gpu_worker.h"
#include "param_store.h"

namespace tg::detail {

class ForwardImpl;

// What the buffer plan depends on in the device (GpuWorker's; a test may give its own).
struct PlanTarget {
  bool onCpu = false;
  uint64_t maxBufferSize = 0;
  int64_t workgroupStorageBytes = 0;
  double sharedOverPooled = kSharedOverPooled;
};

// Traces with `options`' buffer pooling. Unset: pooled on a CPU device (no barrier stalls to
// save there, and 5x the memory to zero and stream through caches); on a GPU, own buffers, then
// intermediates whose dispatch levels never meet share one (shareBuffersAcrossLevels: the same
// kernels and levels in a fraction of the memory), unless that plan needs more than
// unpooledBudgetBytes and more than sharedOverPooled times the pooled plan (then the pooled
// one). False: own buffers, none shared. Kernels may use the device's workgroup memory
// (EmitOptions::workgroupStorageBytes, resolved here).
template <class TraceFn>
CompiledIR traceForDevice(const RuntimeOptions& options, const PlanTarget& device, const TraceFn& trace) {
  const bool pool = options.poolBuffers.value_or(device.onCpu);
  EmitOptions emit = options.emit;
  emit.workgroupStorageBytes = emit.workgroupStorageBytes > 0
                                   ? std::min(emit.workgroupStorageBytes, device.workgroupStorageBytes)
                                   : device.workgroupStorageBytes;
  emit.cpuDevice = device.onCpu;
  CompiledIR ir = trace(pool, emit);
  if (pool || options.poolBuffers) return ir;
  shareBuffersAcrossLevels(ir.plan, ir.kernels);
  const int64_t bytes = ir.plan.totalBytes();
  if (bytes <= unpooledBudgetBytes(device.maxBufferSize)) return ir;
  // The pooled plan over the same prepared graph; its kernels are emitted only if it is taken.
  BufferPlan pooled = planFor(ir, true, emit);
  if (static_cast<double>(bytes) > device.sharedOverPooled * static_cast<double>(pooled.totalBytes())) {
    ir.plan = std::move(pooled);
    ir.kernels = emitKernels(ir.graph, ir.plan, emit);
  }
  return ir;
}

template <class TraceFn>
CompiledIR traceWithPooling(const RuntimeOptions& options, const GpuWorker& worker, const TraceFn& trace) {
  return traceForDevice(options, {worker.onCpu(), worker.maxBufferSize(), worker.workgroupStorageBytes()},
                        trace);
}

class TrainingImpl {
 public:
  std::shared_ptr<GpuWorker> worker;
  ModuleFn loss;
  InputDecls inputs;
  RuntimeOptions options;

  mutable std::mutex mutex;
  const Module* model = nullptr;            // guarded by mutex
  OptimizerConfig optimizer;                // guarded by mutex
  std::shared_ptr<const CompiledIR> ir;     // guarded by mutex
  std::vector<std::weak_ptr<ForwardImpl>> children;  // guarded by mutex

  std::atomic<uint64_t> generation{0};
  std::atomic<bool> destroyed{false};
  ResultLatency stepLatency;  // from step() to its result

  // GPU thread.
  std::unique_ptr<ParamStore> params;
  std::unique_ptr<GraphExecutor> executor;
  int64_t stepCount = 0;     // optimizer steps taken (t of the last step)
  OptimizerConfig stepConfig;  // the optimizer with the LR schedule in force (setLR rebases it)
  uint32_t prngCounter = 0;  // the per-step seed of in-kernel randomness
};

// A compiled graph for one resolved input shape.
struct Sibling {
  std::string key;
  std::unique_ptr<GraphExecutor> executor;
  uint32_t prngCounter = 0;
};

class ForwardImpl {
 public:
  std::shared_ptr<GpuWorker> worker;
  std::shared_ptr<TrainingImpl> parent;  // attached forwards
  const Module* model = nullptr;         // standalone forwards (compileForward)
  ModuleFn forward;
  InputDecls inputs;  // may hold tg::null dims
  Dtype output = Dtype::F32;
  size_t maxCachedShapes = kDefaultMaxCachedShapes;
  RuntimeOptions options;
  uint32_t seed = 0;
  std::vector<std::string> paramNames;  // standalone forwards

  std::atomic<bool> destroyed{false};
  std::atomic<uint64_t> generation{0};  // standalone: bumped by destroy
  std::atomic<size_t> cached{0};        // siblings alive (mirrors `siblings.size()`)
  ResultLatency runLatency;             // from run() to its result

  // GPU thread.
  std::unique_ptr<ParamStore> ownParams;  // standalone forwards
  std::list<Sibling> siblings;            // most recently used first

  // The generation calls compare against: the parent's for attached forwards.
  uint64_t currentGeneration() const {
    return parent ? parent->generation.load() : generation.load();
  }
  const ParamStore* paramStore() const { return parent ? parent->params.get() : ownParams.get(); }
  void clearSiblings() {
    siblings.clear();
    cached = 0;
  }
};

// A future that is ready now.
template <class T>
std::future<T> ready(T value) {
  std::promise<T> p;
  p.set_value(std::move(value));
  return p.get_future();
}
template <class T>
std::future<T> failedFuture(std::exception_ptr e) {
  std::promise<T> p;
  p.set_exception(std::move(e));
  return p.get_future();
}

inline StepResult failedStep(std::string error) {
  StepResult r;
  r.kind = ResultKind::Failed;
  r.error = std::move(error);
  return r;
}
inline RunResult failedRun(std::string error) {
  RunResult r;
  r.kind = ResultKind::Failed;
  r.error = std::move(error);
  return r;
}

}  // namespace tg::detail
