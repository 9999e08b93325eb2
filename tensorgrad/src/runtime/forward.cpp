// Forward graphs: attach() (sharing a training compile's params) and compileForward() (owning
// its params). Both compile one sibling per resolved input shape, kept in an LRU cache.
#include "dump.h"
#include "feed.h"
#include "session.h"

namespace tg::detail {

namespace {

const Module& modelOf(const ForwardImpl& f) {
  if (!f.parent) return *f.model;
  std::lock_guard lock(f.parent->mutex);
  return *f.parent->model;
}

std::string callName(const ForwardImpl& f) { return f.parent ? "attach" : "compileForward"; }

std::shared_ptr<const CompiledIR> traceAt(const ForwardImpl& f, const InputDecls& resolved) {
  const Module& model = modelOf(f);
  auto ir = std::make_shared<const CompiledIR>(traceWithPooling(f.options, *f.worker, [&](bool pool, const EmitOptions& emit) {
    return traceForward(
        model, [&](const Inputs& in) { return f.forward(model, in); }, resolved, f.seed, emit,
        pool);
  }));
  const Dtype actual = ir->graph.tensors[static_cast<size_t>(ir->output)].dtype;
  const Dtype declared = f.output;
  const bool matches = actual == declared || (declared == Dtype::I32 && actual == Dtype::Bool);
  if (!matches) {
    throw CompileError(callName(f) + ": the forward declares output " +
                       std::string(dtypeName(declared)) + " but its traced output is " +
                       std::string(dtypeName(actual)) + "; set output = Dtype::" +
                       (actual == Dtype::F32 ? "F32" : "I32") + " in the spec");
  }
  return ir;
}

// The sibling for `resolved` shapes: a cache hit moves to the front; a miss traces and compiles
// (on this, the GPU thread) and evicts the least recently used past the cap.
Sibling& siblingFor(ForwardImpl& f, GpuContext& gpu, const InputDecls& resolved,
                    std::shared_ptr<const CompiledIR> prebuilt = nullptr) {
  const std::string key = shapeKey(resolved);
  for (auto it = f.siblings.begin(); it != f.siblings.end(); ++it) {
    if (it->key == key) {
      f.siblings.splice(f.siblings.begin(), f.siblings, it);
      return f.siblings.front();
    }
  }
  const ParamStore* params = f.paramStore();
  if (!params) throw std::logic_error(callName(f) + ": the parameters were destroyed");
  std::shared_ptr<const CompiledIR> training;  // an attached forward's, for its dump's bundle
  if (dumpEnabled() && f.parent) training = ir(*f.parent);
  auto ir = prebuilt ? std::move(prebuilt) : traceAt(f, resolved);
  if (dumpEnabled()) dumpCompile(*ir, training.get(), f.options);
  Sibling s;
  s.key = key;
  s.executor = std::make_unique<GraphExecutor>(gpu, std::move(ir), *params, f.options.traceKernels);
  f.siblings.push_front(std::move(s));
  while (f.siblings.size() > std::max<size_t>(f.maxCachedShapes, 1)) f.siblings.pop_back();
  f.cached = f.siblings.size();
  return f.siblings.front();
}

InputDecls resolveOrThrow(const ForwardImpl& f, const Feed& feed, const char* call) {
  auto resolved = resolveShapes(f.inputs, feed, call);
  if (auto* e = std::get_if<std::string>(&resolved)) throw std::invalid_argument(*e);
  return std::get<InputDecls>(std::move(resolved));
}

// Parametric dims traced at 1: parameter shapes never depend on the batch.
InputDecls metaShapes(InputDecls decls) {
  for (auto& [name, d] : decls) {
    for (int64_t& x : d.shape) {
      if (x == null) x = 1;
    }
  }
  return decls;
}

}  // namespace

std::shared_ptr<ForwardImpl> attach(const std::shared_ptr<TrainingImpl>& t, ModuleFn forward,
                                    InputDecls inputs, Dtype output, size_t maxCachedShapes) {
  if (t->destroyed) throw std::logic_error("attach: this compile was destroyed");
  if (!t->loss) {
    throw std::logic_error(
        "attach: this training was imported from a graph bundle; it has no model to trace a "
        "forward from (its bundle's forwards are attached already)");
  }
  auto f = std::make_shared<ForwardImpl>();
  f->worker = t->worker;
  f->parent = t;
  f->forward = std::move(forward);
  f->inputs = std::move(inputs);
  f->output = output;
  f->maxCachedShapes = maxCachedShapes;
  f->options = t->options;
  f->seed = ir(*t)->seed;
  std::lock_guard lock(t->mutex);
  t->children.push_back(f);
  // Nothing compiles yet, as upstream's attach: a forward that does not trace (a shape that does
  // not fit, a wrong output dtype) fails its first run (or graphFor) with the reason.
  return f;
}

std::shared_ptr<ForwardImpl> attachIR(const std::shared_ptr<TrainingImpl>& t,
                                      const IRBuilder& build, InputDecls inputs, Dtype output) {
  if (t->destroyed) throw std::logic_error("attach: this compile was destroyed");
  auto f = std::make_shared<ForwardImpl>();
  f->worker = t->worker;
  f->parent = t;
  // Runs only if its one sibling were dropped: the feed check rejects every other shape first.
  f->forward = [](const Module&, const Inputs&) -> Tensor {
    throw std::logic_error("an imported forward runs only at its bundle's input shapes");
  };
  f->inputs = std::move(inputs);
  f->output = output;
  f->maxCachedShapes = 1;
  f->options = t->options;
  f->seed = ir(*t)->seed;
  auto graph = std::make_shared<const CompiledIR>(traceWithPooling(f->options, *f->worker, build));
  f->worker->post([f, graph](GpuContext& gpu) { siblingFor(*f, gpu, f->inputs, graph); }).get();
  std::lock_guard lock(t->mutex);
  t->children.push_back(f);
  return f;
}

std::shared_ptr<ForwardImpl> compileForward(const Module& model, ModuleFn forward,
                                            InputDecls inputs, Dtype output,
                                            size_t maxCachedShapes, std::optional<uint32_t> seed,
                                            const RuntimeOptions& options) {
  auto f = std::make_shared<ForwardImpl>();
  f->model = &model;
  f->forward = std::move(forward);
  f->inputs = std::move(inputs);
  f->output = output;
  f->maxCachedShapes = maxCachedShapes;
  f->options = options;
  f->seed = seed.value_or(randomSeed());
  const bool concrete = !isParametric(f->inputs);
  f->worker = sharedWorker(options);  // first: the plan depends on the device
  auto meta = traceAt(*f, metaShapes(f->inputs));
  for (const auto& p : meta->params) f->paramNames.push_back(p->path);
  f->worker
      ->post([f, meta, concrete](GpuContext& gpu) {
        f->ownParams = std::make_unique<ParamStore>(gpu, meta->params);
        f->ownParams->initialize(gpu, *meta);  // meta's seed is f->seed
        if (concrete) siblingFor(*f, gpu, f->inputs, meta);
      })
      .get();
  return f;
}

Future<RunResult> run(const std::shared_ptr<ForwardImpl>& f, Feed inputs) {
  if (f->destroyed) return ready(failedRun("run: this forward was destroyed"));
  const uint64_t generation = f->currentGeneration();
  const auto call = WaitPlan::Clock::now();
  const WaitPlan plan = f->runLatency.planFor(call, f->worker->onCpu());
  auto result = f->worker->post([f, generation, call, feed = std::move(inputs)](GpuContext& gpu) {
    struct Timed {  // records the run's latency on every way out
      ResultLatency& latency;
      WaitPlan::Clock::time_point call;
      ~Timed() { latency.record(WaitPlan::Clock::now() - call); }
    } timed{f->runLatency, call};
    RunResult r;
    if (f->destroyed || f->currentGeneration() != generation) {
      r.kind = ResultKind::Aborted;
      return r;
    }
    try {
      auto resolved = resolveShapes(f->inputs, feed, "run");
      if (auto* e = std::get_if<std::string>(&resolved)) return failedRun(*e);
      const InputDecls& shapes = std::get<InputDecls>(resolved);
      if (std::string e = checkFeed(shapes, feed, "run"); !e.empty()) return failedRun(e);
      if (std::string e = checkFinite(feed, "run"); !e.empty()) return failedRun(e);
      Sibling& s = siblingFor(*f, gpu, shapes);
      auto bytes = feedBytes(feed);
      int32_t prngSeed = 0;
      if (s.executor->usesPrng()) {
        prngSeed = static_cast<int32_t>(++s.prngCounter);
        bytes[kPrngSeedInput] = &prngSeed;
      }
      GraphExecutor::Outcome out = s.executor->execute(gpu, bytes);
      if (f->currentGeneration() != generation) {
        r.kind = ResultKind::Aborted;
        return r;
      }
      if (!out.error.empty()) return failedRun("run: " + out.error);
      r.kind = ResultKind::Completed;
      r.output = std::move(out.output);
      r.captures = Captures(s.executor->captureShapes(), std::move(out.captures));
      r.kernelOutputs = std::move(out.kernelOutputs);
      return r;
    } catch (const std::exception& e) {
      return failedRun(std::string("run: ") + e.what());
    }
  });
  return {std::move(result), plan};
}

std::future<std::shared_ptr<const CompiledIR>> graphFor(const std::shared_ptr<ForwardImpl>& f,
                                                        Feed inputs) {
  return f->worker->post([f, feed = std::move(inputs)](GpuContext& gpu) {
    if (f->destroyed) throw std::logic_error("graphFor: this forward was destroyed");
    return siblingFor(*f, gpu, resolveOrThrow(*f, feed, "graphFor")).executor->sharedIR();
  });
}

std::future<void> uploadParams(const std::shared_ptr<ForwardImpl>& f, ParamMap params) {
  return f->worker->post([f, values = std::move(params)](GpuContext& gpu) {
    const ParamStore* store = f->destroyed ? nullptr : f->paramStore();
    if (!store) throw std::logic_error("uploadParams: this forward was destroyed");
    store->upload(gpu, values);
  });
}

std::future<ParamMap> downloadParams(const std::shared_ptr<ForwardImpl>& f) {
  return f->worker->post([f](GpuContext& gpu) {
    const ParamStore* store = f->destroyed ? nullptr : f->paramStore();
    if (!store) throw std::logic_error("downloadParams: this forward was destroyed");
    return store->download(gpu);
  });
}

void destroy(const std::shared_ptr<ForwardImpl>& f) {
  if (f->destroyed.exchange(true)) return;
  ++f->generation;
  if (f->parent) {
    std::lock_guard lock(f->parent->mutex);
    auto& c = f->parent->children;
    c.erase(std::remove_if(c.begin(), c.end(),
                           [&](const auto& w) { return w.expired() || w.lock() == f; }),
            c.end());
  }
  f->worker
      ->post([f](GpuContext&) {
        f->clearSiblings();
        f->ownParams.reset();
      })
      .get();
}

std::vector<std::string> paramNames(const ForwardImpl& f) {
  return f.parent ? paramNames(*f.parent) : f.paramNames;
}

size_t cachedShapes(const ForwardImpl& f) { return f.cached; }

}  // namespace tg::detail
