// tg-inspect's library: what tensorgrad makes of a model (a sample by name, or a graph bundle
// traced in the browser), as plain data the CLI prints and the HTML report embeds. One .cpp per
// view: source (loading), summary, kernels, shaders, plan and schedule, graph, profile, diff,
// html. Everything but profile works without a device.
#pragma once

#include <tensorgrad/bundle.h>
#include <tensorgrad/schedule.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tg_inspect {

// Bad input from the user: an unknown model or size, a kernel index out of range, an unreadable
// bundle, an unwritable output. The CLI exits 2 with the message.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- source.cpp: what to inspect ----

struct SourceOptions {
  std::string source;                                  // a sample model's name or a .tgbundle.json
  std::vector<std::pair<std::string, int64_t>> sizes;  // sample sizes given on the command line
  bool fuse = false;                                   // EmitOptions::fuseElementwise
  bool pool = true;                                    // upstream's pooled buffer plan
  bool share = false;  // without pool: tg::shareBuffersAcrossLevels (the runtime's GPU default)
  bool fast = false;                                   // KernelSet::Fast (fuses too)
  int64_t workgroupBytes = 0;                          // EmitOptions::workgroupStorageBytes
  bool cpuDevice = false;                              // EmitOptions::cpuDevice
};

struct Subject {
  std::string title;    // "transformer (d=64 layers=3 ...)" or the bundle's file name
  std::string options;  // "pooled, upstream kernels" etc.
  tg::CompiledIR ir;
  tg::DispatchSchedule schedule;
  std::vector<size_t> kernels;  // indices into ir.kernels of the kernels that dispatch
  std::optional<tg::Bundle> bundle;

  const tg::KernelSpec& kernel(size_t index) const;  // by dispatch index; InputError past the end
  const tg::Op& opOf(size_t index) const;
};

// Throws InputError naming the model (and the known ones), the size or the bundle's problem.
Subject loadSubject(const SourceOptions& options);
bool looksLikeBundle(const std::string& source);

// ---- kernels.cpp: one row per kernel ----

enum class Phase { Forward, Backward, Optimizer };
std::string_view phaseName(Phase phase);
// Forward: up to the loss; backward: up to the last parameter gradient; optimizer: the rest
// (gradient clipping, moment and parameter updates, their state inputs).
std::vector<Phase> opPhases(const tg::CompiledIR& ir);

// The user's call site, short: "[linear] transformer.h:36 (fwd)" or the bundle's JS frame.
std::string callSite(const tg::Graph& graph, const tg::Op& op);
std::string shapeText(const tg::Shape& shape);

struct KernelRow {
  size_t index = 0;  // dispatch index (kernels that dispatch, in op order)
  int opIndex = -1;
  std::string kind, phase, site, output;  // output: "f32[128,8,64]"
  int64_t threads = 0;
  int workgroupSize = 0;
  std::array<uint32_t, 2> workgroups{};
  std::vector<int> bindings;  // buffer ids, inputs first, output last
  int level = 0;
  size_t pipeline = 0;  // index of its distinct WGSL text
  std::vector<int> fusedOps;
};
std::vector<KernelRow> kernelRows(const Subject& s);
std::string kernelsText(const Subject& s);

// ---- summary.cpp ----

struct Summary {
  size_t ops = 0, kernels = 0, pipelines = 0, levels = 0, buffers = 0, tensors = 0;
  struct Kind {
    std::string name;
    size_t buffers = 0;
    int64_t bytes = 0;
  };
  std::vector<Kind> byKind;               // param, grad, state, input, intermediate, output
  size_t pooledTensors = 0;               // intermediates that share a buffer with another
  int64_t unpooledIntermediateBytes = 0;  // what intermediates would take with own buffers
  int64_t totalBytes = 0;
  std::vector<std::pair<std::string, size_t>> kernelsByKind;  // most first
  std::array<size_t, 3> opsByPhase{};
};
Summary summarize(const Subject& s);
std::string summaryText(const Subject& s, const Summary& sum);
nlohmann::json summaryJson(const Summary& sum);

// ---- shaders.cpp: WGSL → SPIR-V (wgsl_subset) → disassembly, GLSL (SPIRV-Cross) ----

struct Shader {
  std::string spirvAsm, glsl;
};
// Throws std::runtime_error with the translator's diagnostics when the WGSL does not translate.
Shader translateShader(const std::string& wgsl);

// ---- plan.cpp: the buffer plan with lifetimes, and the schedule's levels ----

struct BufferRow {
  int id = -1;
  std::string kind, name, dtype, shape;
  int64_t bytes = 0;
  size_t tensors = 0;                 // tensors living in it (> 1: pooled)
  std::optional<size_t> first, last;  // dispatch indices of the first and last kernel touching it
};
std::vector<BufferRow> bufferRows(const Subject& s);
std::string planText(const Subject& s);

struct LevelRow {
  int level = 0;
  std::vector<size_t> kernels;  // dispatch indices, in the order the runtime dispatches them
  std::vector<std::pair<std::string, size_t>> kinds;
  int64_t longestLoop = 0;
};
std::vector<LevelRow> levelRows(const Subject& s);
std::string scheduleText(const Subject& s);

// ---- graph.cpp ----

nlohmann::json graphJson(const Subject& s);
std::string graphDot(const Subject& s);
// Graphviz's `dot -Tsvg`; throws std::runtime_error saying how to install it when it is missing.
std::string dotToSvg(const std::string& dot);
bool haveGraphviz();

// ---- profile.cpp: every kernel timed on a device ----

struct KernelCost {
  size_t index = 0;  // dispatch index
  double us = 0;
  double bytes = 0, flops = 0;  // estimates: tensors read and written; 2·MNK for matmuls
};
struct Profile {
  std::string device;
  uint32_t reps = 0;
  std::vector<KernelCost> kernels;
  std::vector<double> levelUs;  // by dispatch level (from 1): its kernels dispatched together
  double stepUs = 0;            // the levels in order, in one pass: the step's GPU time
  double submittedStepUs = 0;   // the same, each step a submission of its own
  // Each level inside the step in one pass, from the GPU's timestamps at the levels' ends (the
  // median over repetitions of the step); empty where the device has no timestamp queries or
  // the step has more levels than three repetitions' timestamps fit in one query set (1,365). Set
  // beside levelUs, it shows which levels cost more in the step than alone.
  std::vector<double> levelInStepUs;
  double totalUs() const;       // the kernels' costs summed: the serial cost
};
struct ProfileOptions {
  std::string device;  // adapter name contains this; empty: WEBGPU_ADAPTER or the best one
  uint32_t reps = 20;  // dispatches a timing, at least: on a GPU more, until a timing takes 2 ms
  // Each kernel runs alone at least this long before it is timed: GPUs idle at lower clocks
  // between kernels (while the next pipeline compiles), and short bursts timed cold read slow.
  uint32_t warmUpMs = 20;
};
// Each kernel dispatched N and 2N times in one pass (N ≥ reps; on a GPU, N dispatches ≥ 2 ms);
// the difference over N cancels the submit.
// Then each level's kernels, and the whole step, the same way.
// Throws std::runtime_error when there is no device or the device rejects a kernel.
Profile profileKernels(const Subject& s, const ProfileOptions& options);
std::string profileText(const Subject& s, const Profile& p, size_t top = 20);
nlohmann::json profileJson(const Subject& s, const Profile& p);

// ---- trace.cpp: the profile as a Chrome / Perfetto timeline of one step ----

// Trace event format JSON: a track of dispatch levels, end to end, each as long as its slowest
// kernel, and one track per concurrent kernel of a level, each kernel a slice with its op, phase,
// output, call site, threads, workgroups, bytes, FLOPs and rates.
nlohmann::json traceJson(const Subject& s, const Profile& p);

// ---- diff.cpp: two compiles ----

struct KernelChange {
  enum class Kind { Added, Removed, Changed } kind;
  std::optional<size_t> a, b;  // dispatch indices
  std::string label;           // kind, output and call site
  std::string wgslDiff;        // Changed: unified diff of the WGSL
  std::optional<double> usA, usB;
};
struct Diff {
  size_t same = 0;
  std::vector<KernelChange> changes;
  std::optional<double> totalUsA, totalUsB;
};
Diff diffSubjects(const Subject& a, const Subject& b, const Profile* pa = nullptr,
                  const Profile* pb = nullptr);
std::string diffText(const Subject& a, const Subject& b, const Diff& d);
std::string unifiedDiff(const std::string& a, const std::string& b);

// ---- html.cpp: one self-contained report ----

struct HtmlOptions {
  const Profile* profile = nullptr;
  std::optional<std::string> traceLink;  // the profile's timeline (trace.cpp), relative to the report
  std::optional<std::string> svg;  // the graph; none: the report says why, from noGraph
  std::string noGraph =
      "Graphviz's dot was not installed when this report was written (Debian: apt-get install "
      "graphviz)";
};
std::string htmlReport(const Subject& s, const HtmlOptions& options);

}  // namespace tg_inspect
