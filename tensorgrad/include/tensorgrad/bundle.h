// Graph bundles: an upstream tensorgrad model traced and trained in the browser (or in Dawn for
// Node), written by tensorgrad/js/tgbundle.mjs (format: tensorgrad/js/BUNDLE_FORMAT.md), and
// run here without porting it:
//
//   const tg::Bundle b = tg::loadBundle("model.tgbundle.json");
//   tg::Imported model = tg::compileImported(b);
//   for (const tg::RecordedStep& s : b.steps) model.training.step(s.feeds).get();
//
// A C++ model's compile is written in the same format (makeBundle, saveBundle below; and by
// TENSORGRAD_DUMP=DIR for every compile of a program), so the tools read a C++ user's model too.
//
// loadBundle checks every field: the graph reads back op by op under each op's own shape rule,
// and the parameters, gradients, writebacks, kernels, forwards and recorded feeds must fit it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tensorgrad/runtime.h"

namespace tg {

inline constexpr int kBundleVersion = 2;  // the newest read; 1 (no captures) is read too

// A bundle that cannot be used; the message names the file and the field
// ("model.tgbundle.json: training.graph: ops[12] (matmul): field 'b': tensor 99 does not exist").
class BundleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One kernel as upstream's codegen emitted it (train.kernels).
struct UpstreamKernel {
  int opIndex = -1;
  OpKind kind{};
  std::string wgsl{};  // empty: the op dispatches nothing
  std::vector<int> bindings{};
  int64_t threads = 0;
  int workgroupSize = 0;
};

struct RecordedStep {
  Feed feeds{};
  std::optional<LR> setLR{};  // train.setLR(...) called before this step
  uint32_t lossBits = 0;    // the browser's loss, as f32 bits
  std::map<std::string, Array> captures{};  // the step's captures (bundle version 2)
  float loss() const;
};

struct RecordedRun {
  int64_t afterStep = 0;  // how many recorded steps had run
  Feed feeds{};
  Shape outputShape{};
  Array output{};
  std::map<std::string, Array> captures{};  // the run's captures (bundle version 2)
};

struct BundleForward {
  std::string name{};
  InputDecls inputs{};  // concrete shapes
  Dtype output = Dtype::F32;
  Graph graph{};
  std::vector<UpstreamKernel> kernels{};
  std::vector<RecordedRun> runs{};
};

struct Bundle {
  std::string source{};  // the file it came from, for messages
  int version = kBundleVersion;
  std::optional<std::string> tensorgradVersion{}, adapter{};
  // The training compile.
  InputDecls inputs{};
  OptimizerConfig optimizer{};
  uint32_t seed = 0;
  std::vector<std::string> paramNames{};
  Graph graph{};
  ParamGrads paramGrads{};
  std::vector<WritebackDecl> writebacks{};
  std::vector<UpstreamKernel> kernels{};
  std::vector<BundleForward> forwards{};
  ParamMap params{};  // initial values
  std::vector<RecordedStep> steps{};

  const BundleForward& forward(const std::string& name) const;  // throws naming the known ones
};

// Strict RFC 4648 base64 with padding (the encoding of a bundle's binary payloads); nullopt, with
// the reason in `error`, for any other text.
std::optional<std::vector<uint8_t>> decodeBase64(std::string_view text, std::string* error = nullptr);
std::string encodeBase64(std::span<const uint8_t> bytes);

// Throws BundleError (a missing or unreadable file, bad JSON, an unknown format or version, any
// field that is missing, unknown, of the wrong type or inconsistent with the graph).
Bundle loadBundle(const std::filesystem::path& file);
Bundle parseBundle(std::string_view json, const std::string& source = "bundle");

// ---- Writing bundles (bundle_writer.cpp): a C++ model's compile as a bundle ----
//
//   tg::Bundle b = tg::makeBundle(train);                    // graph, spec, kernels, init params
//   tg::StepResult r = train.step(feed).get();
//   b.steps.push_back(tg::recordStep(feed, r));              // optional: what the steps gave
//   b.adapter = tg::checkWebGPU().adapter;                   // where they ran (tgparity replays there)
//   tg::saveBundle(b, "model.tgbundle.json");                // tg-inspect, tgparity read it
//
// `kernels` of a written bundle stand in for upstream's: this project's default kernel set
// (KernelSet::Upstream: upstream's arithmetic, order and dispatch geometry, form for form, though
// not its WGSL text, whose names and layout differ) under upstream's pooled buffer plan (upstream's
// bindings), whatever kernel set, fusion or plan the compile itself ran. They compute upstream's
// bits, which is what `tgparity diff` needs of the kernels it runs as upstream's in Dawn or
// Chromium. Recorded losses are the compile's own: a compile with KernelSet::Fast computes other
// bits than the default set `tgparity run` replays with, so record steps from a default-set
// compile when bits must match.

// The bundle of a compiled training (no device needed): its graph with call sites, its inputs
// (the graph's tensor_inputs but the runtime's own), optimizer, seed, parameter names, gradients,
// writebacks, kernels standing in for upstream's (above) and the initial parameters drawn from
// its seed. No steps, no forwards, no adapter, `tensorgrad` (upstream's version) null. Version 2
// when the graph has captures, else 1. Throws BundleError when the compile cannot be a bundle (a non-f32 parameter,
// an IR with no optimizer: a forward).
Bundle makeBundle(const CompiledIR& training);
template <class M>
Bundle makeBundle(const CompiledTraining<M>& training) {
  return makeBundle(*training.ir());
}
// A forward compile at concrete shapes (CompiledForward::graphFor, or tg::traceForward) as one of
// a bundle's attached forwards; its parameters must be the training's. Throws BundleError.
BundleForward makeBundleForward(std::string name, const CompiledIR& forward);

// A completed step as a bundle records it (loss as f32 bits; a NaN loss as 7fc00000, as the
// browser's recorder writes it); `setLR`: the rate set with setLR just before the step. Throws
// std::invalid_argument for a step that did not complete.
RecordedStep recordStep(Feed feeds, const StepResult& result, std::optional<LR> setLR = {});
// A completed run of `forward` after `afterStep` recorded steps. Throws std::invalid_argument for
// a run that did not complete.
RecordedRun recordRun(const BundleForward& forward, int64_t afterStep, Feed feeds,
                      const RunResult& result);

// The bundle as the format's JSON text: the exact inverse of parseBundle, so
// parseBundle(formatBundle(b)) gives b back (C++ call sites become one JavaScript-style frame,
// "at <function> (<file>:<line>:<column>)"; a normalizeGrads or decay filter function, which no
// file can hold, does not come back: its effect is in the graph). The version written is
// b.version, or 2 when a step or run records captures. Throws BundleError for a field that does
// not fit (a feed of an undeclared input, an array of the wrong size, an unknown capture).
std::string formatBundle(const Bundle& bundle);
// Writes formatBundle(b) to `file`, after checking that it reads back (parseBundle): a bundle
// the tools would reject is never written. Throws BundleError naming the file and the problem.
void saveBundle(const Bundle& bundle, const std::filesystem::path& file);

// The bundle's training graph as a compiled IR: its own graph (not traced again), parameters
// initialized to the bundle's values, the optimizer's writebacks and per-step inputs, a buffer
// plan and this project's kernels for it. graphToJson(importGraph(b).graph) is b's graph.
CompiledIR importGraph(const Bundle& bundle, bool poolBuffers = true, const EmitOptions& emit = {});
CompiledIR importForward(const Bundle& bundle, const BundleForward& forward,
                         bool poolBuffers = true, const EmitOptions& emit = {});

// A bundle compiled onto a device: the training (step, setLR, reset, upload/downloadParams; reset
// restores the bundle's parameters) and its attached forwards, which share its parameters. There
// is no model to trace again: replaceModel and attach throw std::logic_error.
struct Imported {
  CompiledTraining<Module> training;
  std::vector<std::pair<std::string, CompiledForward<Module>>> forwards;
  const CompiledForward<Module>& forward(const std::string& name) const;
};
Imported compileImported(const Bundle& bundle, const RuntimeOptions& options = {});

}  // namespace tg
