// compile(): a training graph on its own GPU thread — step, params, reset, setLR, replaceModel,
// destroy.
#include <cmath>

#include "dump.h"
#include "feed.h"
#include "session.h"

namespace tg::detail {

namespace {

OptimizerConfig withLR(OptimizerConfig config, const LR& lr) {
  std::visit([&](auto& c) { c.lr = lr; }, config);
  return config;
}

// The training trace of `model` (references are held: call it before they go).
IRBuilder tracer(const Module& model, const ModuleFn& loss, const InputDecls& inputs,
                 const OptimizerConfig& optimizer, uint32_t seed) {
  return [&model, &loss, &inputs, &optimizer, seed](bool pool, const EmitOptions& emit) {
    return traceTraining(
        model, [&](const Inputs& in) { return loss(model, in); }, inputs, optimizer, seed, emit,
        pool);
  };
}

// Builds the GPU side of a training IR (params initialized from its seed) without touching `t`
// until everything succeeded.
struct Built {
  std::unique_ptr<ParamStore> params;
  std::unique_ptr<GraphExecutor> executor;
};
Built build(GpuContext& gpu, const std::shared_ptr<const CompiledIR>& ir,
            const RuntimeOptions& options) {
  Built b;
  b.params = std::make_unique<ParamStore>(gpu, ir->params, options.emit.kernels == KernelSet::Fast);
  b.executor = std::make_unique<GraphExecutor>(gpu, ir, *b.params, options.traceKernels);
  b.params->initialize(gpu, *ir);
  return b;
}

// The attached forwards still alive; `detach` also forgets them all.
std::vector<std::shared_ptr<ForwardImpl>> liveChildren(TrainingImpl& t, bool detach = false) {
  std::vector<std::shared_ptr<ForwardImpl>> out;
  std::lock_guard lock(t.mutex);
  for (const auto& w : t.children) {
    if (auto c = w.lock()) out.push_back(std::move(c));
  }
  if (detach) t.children.clear();
  return out;
}

void requireAlive(const TrainingImpl& t, const char* call) {
  if (t.destroyed) throw std::logic_error(std::string(call) + ": this compile was destroyed");
}

}  // namespace

std::shared_ptr<TrainingImpl> compileTrainingIR(const IRBuilder& buildIR, InputDecls inputs,
                                                OptimizerConfig optimizer,
                                                const RuntimeOptions& options) {
  validateOptimizer(optimizer);  // before a device is opened
  auto t = std::make_shared<TrainingImpl>();
  t->inputs = std::move(inputs);
  t->options = options;
  t->optimizer = optimizer;
  t->worker = sharedWorker(options);  // first: the plan depends on the device
  auto ir = std::make_shared<const CompiledIR>(traceWithPooling(options, *t->worker, buildIR));
  t->ir = ir;
  if (dumpEnabled()) dumpCompile(*ir, nullptr, options);  // before the device sees it: a kernel it rejects is dumped too
  t->worker
      ->post([t, ir](GpuContext& gpu) {
        Built b = build(gpu, ir, t->options);
        t->params = std::move(b.params);
        t->executor = std::move(b.executor);
        t->stepConfig = *ir->optimizerConfig;
      })
      .get();
  return t;
}

std::shared_ptr<TrainingImpl> compileTraining(const Module& model, ModuleFn loss,
                                              InputDecls inputs, OptimizerConfig optimizer,
                                              std::optional<uint32_t> seed,
                                              const RuntimeOptions& options) {
  auto t = compileTrainingIR(
      tracer(model, loss, inputs, optimizer, seed.value_or(randomSeed())), inputs,
      optimizer, options);
  t->loss = std::move(loss);
  std::lock_guard lock(t->mutex);
  t->model = &model;
  return t;
}

namespace {

// A step submitted to the GPU whose loss is not yet read back.
struct InFlightStep {
  std::shared_ptr<TrainingImpl> t;
  WaitPlan::Clock::time_point call;
  uint64_t generation = 0;
  int64_t number = 0;
  GraphExecutor::Ticket ticket;
  std::promise<StepResult> promise;
};

StepResult finishStep(InFlightStep& s, GpuContext& gpu) {
  StepResult r;
  try {
    GraphExecutor::Outcome out = s.t->executor->collect(gpu, s.ticket);
    const std::string n = std::to_string(s.number);
    if (s.t->generation != s.generation) {
      r.kind = ResultKind::Aborted;
      return r;
    }
    if (!out.error.empty()) return failedStep("step " + n + ": " + out.error);
    r.loss = out.output.f32().at(0);
    if (!std::isfinite(r.loss) && s.t->options.failOnNonFiniteLoss) {
      return failedStep("step " + n + ": the loss is " + (std::isnan(r.loss) ? "NaN" : "infinite") +
                        " (diverged: lower the learning rate, or clip gradients)");
    }
    r.kind = ResultKind::Completed;
    r.captures = Captures(s.t->executor->captureShapes(), std::move(out.captures));
    r.kernelOutputs = std::move(out.kernelOutputs);
    return r;
  } catch (const std::exception& e) {
    return failedStep(std::string("step: ") + e.what());
  }
}

// Sets the result after dropping the compile's reference, so the caller, not the GPU thread,
// releases the compile last.
void deliver(InFlightStep& s, StepResult r) {
  std::promise<StepResult> promise = std::move(s.promise);
  s.t->stepLatency.record(WaitPlan::Clock::now() - s.call);
  s.t.reset();
  promise.set_value(std::move(r));
}

}  // namespace

// Pipelined: the job writes the inputs and submits the step; its readback is finished once the
// next step is submitted (or before any other call runs), so the GPU starts step n + 1 while the
// host reads step n's loss.
Future<StepResult> step(const std::shared_ptr<TrainingImpl>& t, Feed inputs) {
  if (t->destroyed) return ready(failedStep("step: this compile was destroyed"));
  auto s = std::make_shared<InFlightStep>();
  s->t = t;
  s->call = WaitPlan::Clock::now();
  s->generation = t->generation;
  Future<StepResult> result(s->promise.get_future(),
                            t->stepLatency.planFor(s->call, t->worker->onCpu()));
  t->worker->postPipelined([s, feed = std::move(inputs)](GpuContext& gpu) {
    TrainingImpl& impl = *s->t;
    if (impl.generation != s->generation || !impl.executor) {
      StepResult r;
      r.kind = ResultKind::Aborted;
      return deliver(*s, std::move(r));
    }
    try {
      if (std::string e = checkFeed(impl.inputs, feed, "step"); !e.empty()) return deliver(*s, failedStep(e));
      if (std::string e = checkFinite(feed, "step"); !e.empty()) return deliver(*s, failedStep(e));
      GraphExecutor& exec = *impl.executor;
      const CompiledIR& ir = exec.ir();
      auto bytes = feedBytes(feed);
      s->number = impl.stepCount + 1;
      const StepScalars scalars = stepScalars(impl.stepConfig, s->number);
      const float lrInput = static_cast<float>(scalars.lrInput);
      const float decayShrink = static_cast<float>(scalars.decayShrink);
      bytes[ir.optimizer.lrInputName] = &lrInput;
      if (ir.optimizer.decayShrinkInputName) bytes[*ir.optimizer.decayShrinkInputName] = &decayShrink;
      int32_t prngSeed = 0;
      if (exec.usesPrng()) {
        prngSeed = static_cast<int32_t>(++impl.prngCounter);
        bytes[kPrngSeedInput] = &prngSeed;
      }
      s->ticket = exec.submit(gpu, bytes);  // the bytes are copied here
      impl.stepCount = s->number;
    } catch (const std::exception& e) {
      return deliver(*s, failedStep(std::string("step: ") + e.what()));
    }
    gpu.unfinished.push_back(
        {.finish = [s](GpuContext& g) { deliver(*s, finishStep(*s, g)); },
         .ready = [instance = gpu.instance, future = s->ticket.future] {
           return instance.WaitAny(future, 0) == wgpu::WaitStatus::Success;
         }});
  });
  return result;
}

std::future<void> uploadParams(const std::shared_ptr<TrainingImpl>& t, ParamMap params) {
  return t->worker->post([t, values = std::move(params)](GpuContext& gpu) {
    requireAlive(*t, "uploadParams");
    t->params->upload(gpu, values);
  });
}

std::future<ParamMap> downloadParams(const std::shared_ptr<TrainingImpl>& t) {
  return t->worker->post([t](GpuContext& gpu) {
    requireAlive(*t, "downloadParams");
    return t->params->download(gpu);
  });
}

std::future<void> reset(const std::shared_ptr<TrainingImpl>& t, ResetOptions options) {
  return t->worker->post([t, options](GpuContext& gpu) {
    requireAlive(*t, "reset");
    if (options.params) t->params->initialize(gpu, t->executor->ir());
    if (options.optimizer) {
      t->executor->resetState(gpu);
      t->stepCount = 0;
    }
  });
}

std::future<void> setLR(const std::shared_ptr<TrainingImpl>& t, LR lr) {
  try {
    validateLR(lr, "setLR: lr");  // at the call: a rejected rate never reaches a step
  } catch (...) {
    return failedFuture<void>(std::current_exception());
  }
  return t->worker->post([t, lr = std::move(lr)](GpuContext&) {
    requireAlive(*t, "setLR");
    t->stepConfig = withLR(t->stepConfig, rebaseLR(lr, t->stepCount + 1));
  });
}

std::future<void> replaceModel(const std::shared_ptr<TrainingImpl>& t, const Module& model,
                               ReplaceOptions options) {
  try {
    requireAlive(*t, "replaceModel");
    if (!t->loss) {
      throw std::logic_error(
          "replaceModel: this training was imported from a graph bundle; it has no model to "
          "trace again");
    }
    OptimizerConfig optimizer;
    {
      std::lock_guard lock(t->mutex);
      optimizer = options.optimizer.value_or(t->optimizer);
      if (optimizer.index() != t->optimizer.index()) {
        throw std::invalid_argument(
            "replaceModel: the optimizer kind cannot change (its state buffers differ); destroy "
            "this compile and compile again to switch optimizers");
      }
    }
    validateOptimizer(optimizer);
    auto ir = std::make_shared<const CompiledIR>(traceWithPooling(
        t->options, *t->worker,
        tracer(model, t->loss, t->inputs, optimizer, options.seed.value_or(randomSeed()))));
    if (dumpEnabled()) dumpCompile(*ir, nullptr, t->options);
    ++t->generation;  // queued and in-flight calls now finish as aborted
    return t->worker->post([t, ir, &model, optimizer](GpuContext& gpu) {
      Built b = build(gpu, ir, t->options);
      for (const auto& c : liveChildren(*t)) c->clearSiblings();  // they bound the old params
      t->executor = std::move(b.executor);
      t->params = std::move(b.params);
      t->stepCount = 0;
      t->prngCounter = 0;
      t->stepConfig = optimizer;
      std::lock_guard lock(t->mutex);
      t->model = &model;
      t->optimizer = optimizer;
      t->ir = ir;
    });
  } catch (...) {
    return failedFuture<void>(std::current_exception());
  }
}

void destroy(const std::shared_ptr<TrainingImpl>& t) {
  if (t->destroyed.exchange(true)) return;
  ++t->generation;
  const auto children = liveChildren(*t, /*detach=*/true);
  for (const auto& c : children) c->destroyed = true;
  t->worker
      ->post([t, children](GpuContext&) {
        for (const auto& c : children) c->clearSiblings();  // before the params they bind
        t->executor.reset();
        t->params.reset();
      })
      .get();
}

std::shared_ptr<const CompiledIR> ir(const TrainingImpl& t) {
  std::lock_guard lock(t.mutex);
  return t.ir;
}

std::vector<std::string> paramNames(const TrainingImpl& t) {
  std::vector<std::string> names;
  for (const auto& p : ir(t)->params) names.push_back(p->path);
  return names;
}

}  // namespace tg::detail
