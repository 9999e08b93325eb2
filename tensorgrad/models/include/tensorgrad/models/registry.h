// The sample models by name, type-erased, for tools that pick a model on the command line
// (tg-inspect, tgparity, the sample apps): each model's sizes as flags, and for one choice of
// sizes its trace (no device), a runnable training with its attached forwards, and synthetic
// feeds drawn deterministically from a Mulberry32 stream.
//
//   const tg_models::SampleEntry& e = tg_models::findSample("transformer");  // throws naming all
//   tg_models::Sizes sizes = e.defaults();                   // upstream's spec.ts sizes
//   sizes["d"] = 256;                                        // e.g. from `--d 256`
//   const tg_models::Sample s = e.make(sizes);               // throws naming a bad size
//   tg::CompiledIR ir = s.trace();                           // graph, plan, WGSL kernels
//   tg_models::SampleTraining t = s.compile();               // on the default device
//   tg::Mulberry32 rng(1);
//   tg::StepResult r = t.training.step(s.feed(rng)).get();
//   tg::RunResult out = t.forward("predict").run(s.forwards()[0].feed(rng)).get();
//
// A CLI turns SampleEntry::sizes into flags (one `--<name> N` each, default shown in the help)
// and passes what the user gave to make(); sizes left out keep their defaults.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tg_models {

// One size a sample takes (a Config field): flag name, what it is, upstream's default, range.
struct SizeOption {
  std::string name;  // kebab-case, the flag without dashes: "d", "layers", "seq-len"
  std::string help;
  int64_t defaultValue = 1;
  int64_t min = 1;
  int64_t max = int64_t{1} << 24;  // keeps every product of sizes far from overflow
};

using Sizes = std::map<std::string, int64_t>;  // size name → value
using FeedFn = std::function<tg::Feed(tg::Mulberry32&)>;

// A forward the sample attaches to its training (upstream's main.ts does the same).
struct SampleForward {
  std::string name;
  tg::AttachSpec<tg::Module> spec;
  FeedFn feed;  // inputs for one run, at concrete shapes
};

// A sample compiled onto a device: the training and its attached forwards, in forwards() order.
struct SampleTraining {
  std::shared_ptr<const tg::Module> model;  // kept alive: attached forwards trace it again
  tg::CompiledTraining<tg::Module> training;
  std::vector<std::pair<std::string, tg::CompiledForward<tg::Module>>> forwards;
  // Throws std::invalid_argument naming the forwards there are.
  const tg::CompiledForward<tg::Module>& forward(const std::string& name) const;
};

// One sample model at one choice of sizes; it owns the model. Copies share it.
class Sample {
 public:
  Sample(std::string name, Sizes sizes, std::shared_ptr<const tg::Module> model,
         tg::TrainingSpec<tg::Module> spec, FeedFn feed, std::vector<SampleForward> forwards);

  const std::string& name() const { return name_; }
  const Sizes& sizes() const { return sizes_; }  // every size, defaults filled in
  const tg::TrainingSpec<tg::Module>& spec() const { return spec_; }
  const std::vector<SampleForward>& forwards() const { return forwards_; }

  // The training compile's IR without a device (what tg::trace gives), under emit options and a
  // buffer-pooling choice (the runtime's default on a CPU device is pooled).
  tg::CompiledIR trace(const tg::EmitOptions& emit = {}, bool poolBuffers = true) const;
  // tg::compile on a device, then every forward attached.
  SampleTraining compile(const tg::RuntimeOptions& options = {}) const;
  // One training step's inputs, drawn from `rng` (the same stream gives the same feeds).
  tg::Feed feed(tg::Mulberry32& rng) const { return feed_(rng); }

 private:
  std::string name_;
  Sizes sizes_;
  std::shared_ptr<const tg::Module> model_;
  tg::TrainingSpec<tg::Module> spec_;  // refers to *model_
  FeedFn feed_;
  std::vector<SampleForward> forwards_;
};

struct SampleEntry {
  std::string name;     // "mlp-sin", "transformer", ...
  std::string summary;  // one line
  std::vector<SizeOption> sizes;
  // Builds the model at `chosen` sizes (names from `sizes`; missing ones take defaults) with `seed`
  // (none: the sample's own, which for most samples is a fresh random seed per compile, as
  // upstream). Throws std::invalid_argument naming an unknown size or one out of its range.
  std::function<Sample(const Sizes& chosen, std::optional<uint32_t> seed)> build;

  Sizes defaults() const;
  Sample make(const Sizes& chosen = {}, std::optional<uint32_t> seed = {}) const {
    return build(chosen, seed);
  }
};

// All 12 of upstream's samples, in upstream's order of the samples folder.
const std::vector<SampleEntry>& sampleModels();
// Throws std::invalid_argument("unknown model 'x'; the sample models are: ...").
const SampleEntry& findSample(const std::string& name);
std::string sampleNames();  // "mlp-sin, transformer, ..."

}  // namespace tg_models
