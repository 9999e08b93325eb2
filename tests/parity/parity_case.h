// A parity case: one model (or one small op graph) run through our runtime with kernel tracing
// on, recording what the golden files record for upstream (tests/parity/README.md). Each case is
// defined twice, in cases/<name>.mjs with upstream's API and in cases/<name>.cpp with ours.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <functional>
#include <string>
#include <vector>

#include <tensorgrad/models/synthetic_feeds.h>

namespace tg_parity {

// One step's (or one run's) inputs, drawn from the case's feed stream.
using FeedFn = std::function<tg::Feed(tg::Mulberry32&)>;

struct Recorded {
  std::shared_ptr<const tg::CompiledIR> ir;          // the step's (or the forward's) graph
  std::vector<std::vector<tg::KernelOutput>> trace;  // per step (or run): every kernel's output
  std::vector<float> losses;                         // training cases, per step
  std::vector<tg::Array> outputs;                    // forward-only cases, per run
  tg::ParamMap initialParams, finalParams;
  struct Forward {
    std::string name;
    std::shared_ptr<const tg::CompiledIR> ir;
    tg::Array output;
    std::vector<tg::KernelOutput> trace;
  };
  std::vector<Forward> forwards;  // attached after the last step, run once each
};

template <class M>
struct ForwardProbe {
  std::string name;
  tg::AttachSpec<M> spec;
  FeedFn feed;
};

namespace detail {
tg::RunResult runChecked(const std::function<std::future<tg::RunResult>()>& call, const std::string& what);
tg::StepResult stepChecked(const std::function<std::future<tg::StepResult>()>& call, int step);
}  // namespace detail

// Compiles `spec`, trains `steps` steps on feeds drawn from Mulberry32(feedSeed), then attaches
// each forward and runs it once on feeds drawn from the same stream. Throws on any failure.
template <class M>
Recorded recordTraining(const tg::TrainingSpec<M>& spec, int steps, uint32_t feedSeed, FeedFn feed,
                        std::vector<ForwardProbe<M>> forwards, tg::RuntimeOptions options) {
  options.traceKernels = true;
  Recorded r;
  auto train = tg::compile(spec, options);
  r.ir = train.ir();
  r.initialParams = train.downloadParams().get();
  tg::Mulberry32 rng(feedSeed);
  for (int s = 0; s < steps; ++s) {
    tg::Feed in = feed(rng);
    tg::StepResult out = detail::stepChecked([&] { return train.step(in); }, s);
    r.losses.push_back(out.loss);
    r.trace.push_back(std::move(out.kernelOutputs));
  }
  r.finalParams = train.downloadParams().get();
  for (ForwardProbe<M>& f : forwards) {
    auto fwd = train.attach(std::move(f.spec));
    tg::Feed in = f.feed(rng);
    const auto ir = fwd.graphFor(in).get();
    tg::RunResult out = detail::runChecked([&] { return fwd.run(in); }, "forward '" + f.name + "'");
    r.forwards.push_back({f.name, ir, std::move(out.output), std::move(out.kernelOutputs)});
  }
  train.destroy();
  return r;
}

// compileForward(spec), then `runs` runs on feeds drawn from Mulberry32(feedSeed).
template <class M>
Recorded recordForward(const tg::ForwardSpec<M>& spec, int runs, uint32_t feedSeed, FeedFn feed,
                       tg::RuntimeOptions options) {
  options.traceKernels = true;
  Recorded r;
  auto fwd = tg::compileForward(spec, options);
  r.initialParams = fwd.downloadParams().get();
  tg::Mulberry32 rng(feedSeed);
  for (int s = 0; s < runs; ++s) {
    tg::Feed in = feed(rng);
    if (!r.ir) r.ir = fwd.graphFor(in).get();
    tg::RunResult out = detail::runChecked([&] { return fwd.run(in); }, "run " + std::to_string(s));
    r.outputs.push_back(std::move(out.output));
    r.trace.push_back(std::move(out.kernelOutputs));
  }
  r.finalParams = r.initialParams;
  fwd.destroy();
  return r;
}

struct Case {
  std::string name;  // = the golden file's name (golden/<name>.json)
  std::function<Recorded(const tg::RuntimeOptions&)> run;
};

std::vector<Case>& cases();
struct Registrar {
  explicit Registrar(Case c) { cases().push_back(std::move(c)); }
};

// Feed helpers matching the JavaScript side (tensorgrad/models/synthetic_feeds.h).
using tg_models::synthetic::gauss;
using tg_models::synthetic::labels;
using tg_models::synthetic::pixels;
using tg_models::synthetic::uniform;

}  // namespace tg_parity
