// Graph bundles: an upstream tensorgrad model traced and trained in the browser (or in Dawn for
// Node), written by tensorgrad/js/tgbundle.mjs (format: tensorgrad/js/BUNDLE_FORMAT.md), and
// run here without porting it:
//
//   const tg::Bundle b = tg::loadBundle("model.tgbundle.json");
//   tg::Imported model = tg::compileImported(b);
//   for (const tg::RecordedStep& s : b.steps) model.training.step(s.feeds).get();
//
// loadBundle checks every field: the graph reads back op by op under each op's own shape rule,
// and the parameters, gradients, writebacks, kernels, forwards and recorded feeds must fit it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
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

// Throws BundleError (a missing or unreadable file, bad JSON, an unknown format or version, any
// field that is missing, unknown, of the wrong type or inconsistent with the graph).
Bundle loadBundle(const std::filesystem::path& file);
Bundle parseBundle(std::string_view json, const std::string& source = "bundle");

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
