// The objects behind CompiledTraining and CompiledForward. Fields marked "GPU thread" are touched
// only by jobs on the compile's GpuWorker; the rest are set at construction or guarded by
// `mutex`. A generation counter makes queued and in-flight calls abort when replaceModel or
// destroy overtakes them.
#pragma once

#include <algorithm>
#include <atomic>
#include <list>

#include "graph_executor.h"
#include "gpu_worker.h"
#include "param_store.h"

namespace tg::detail {

class ForwardImpl;

// Traces with `options`' buffer pooling. Unset: pooled on a CPU device (no barrier stalls to
// save there, and 5x the memory to zero and stream through caches), else unpooled unless that
// plan's buffers total more than unpooledBudgetBytes (then planned again, pooled). Kernels may
// use the device's workgroup memory (EmitOptions::workgroupStorageBytes, resolved here).
template <class TraceFn>
CompiledIR traceWithPooling(const RuntimeOptions& options, const GpuWorker& worker, const TraceFn& trace) {
  const bool pool = options.poolBuffers.value_or(worker.onCpu());
  EmitOptions emit = options.emit;
  const int64_t device = worker.workgroupStorageBytes();
  emit.workgroupStorageBytes =
      emit.workgroupStorageBytes > 0 ? std::min(emit.workgroupStorageBytes, device) : device;
  emit.cpuDevice = worker.onCpu();
  CompiledIR ir = trace(pool, emit);
  if (pool || options.poolBuffers) return ir;
  int64_t bytes = 0;
  for (const BufferSpec& b : ir.plan.buffers) bytes += b.byteSize;
  if (bytes > unpooledBudgetBytes(worker.maxBufferSize())) planAndEmit(ir, true, emit);
  return ir;
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
