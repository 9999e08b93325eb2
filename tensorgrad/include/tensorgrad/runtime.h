// The runtime: compile a traced model onto a WebGPU device (our shim over Vulkan) and run it.
//
//   auto train = tg::compile(spec);                       // const train = await compile(spec)
//   tg::StepResult r = train.step({{"x", xs}, {"y", ys}}).get();
//   if (r.kind == tg::ResultKind::Completed) use(r.loss);
//
// All GPU work runs on one GPU thread (upstream's worker), shared by the compiles of a process
// that use the same device; every call returns a std::future (step and run a tg::Future, which
// waits for its result without a thread wake-up on a GPU and converts to one), and calls from any
// thread serialize on that thread. step/run never throw: their
// results say completed, aborted (the graph was replaced or destroyed first) or failed (bad
// inputs, a non-finite loss, a device error). Shapes are static, so a step's GPU work is recorded
// once at compile and replayed: per step the host copies inputs, submits and reads one buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tensorgrad/codegen.h"
#include "tensorgrad/compile.h"
#include "tensorgrad/future.h"
#include "tensorgrad/ops.h"

namespace tg {

// A flat host array of f32 or i32 values: what a JS TypedArray is to upstream.
class Array {
 public:
  Array() = default;
  Array(std::vector<float> values) : data_(std::move(values)) {}    // NOLINT: implicit on purpose
  Array(std::vector<int32_t> values) : data_(std::move(values)) {}  // NOLINT
  Dtype dtype() const { return data_.index() == 0 ? Dtype::F32 : Dtype::I32; }
  size_t size() const;
  const void* data() const;
  // The values; throws std::logic_error naming both dtypes when the array holds the other one.
  const std::vector<float>& f32() const;
  const std::vector<int32_t>& i32() const;

 private:
  std::variant<std::vector<float>, std::vector<int32_t>> data_;
};

using Feed = std::map<std::string, Array>;                    // input name → values
using ParamMap = std::map<std::string, std::vector<float>>;  // param name → values

using CaptureShapes = std::map<std::string, Shape>;

// Activation readbacks of one step/run, keyed by capture(name, t) names.
class Captures {
 public:
  Captures() : shapes_(std::make_shared<const CaptureShapes>()) {}
  // `shapes` is the compiled graph's, shared by every result it returns.
  Captures(std::shared_ptr<const CaptureShapes> shapes, std::map<std::string, Array> data)
      : shapes_(std::move(shapes)), data_(std::move(data)) {}
  const Array& get(const std::string& name) const;  // throws naming the known captures
  const Shape& shape(const std::string& name) const;
  bool has(const std::string& name) const { return data_.count(name) != 0; }
  std::vector<std::string> names() const;  // sorted
  // One f32 slice per head: the leading axis (after a leading batch of 1) is the head axis.
  std::vector<std::vector<float>> perHead(const std::string& name) const;

 private:
  std::shared_ptr<const CaptureShapes> shapes_;
  std::map<std::string, Array> data_;
};

enum class ResultKind { Completed, Aborted, Failed };

// With RuntimeOptions::traceKernels: one dispatched kernel's output tensor, read right after it
// ran (before any later kernel could reuse its buffer). Kernels come in op order.
struct KernelOutput {
  int opIndex = -1;
  OpKind kind{};
  Array values{};  // f32, or i32 for i32 and bool outputs
};
std::string_view resultKindName(ResultKind kind);

struct StepResult {
  ResultKind kind = ResultKind::Failed;
  float loss = std::numeric_limits<float>::quiet_NaN();  // Completed
  Captures captures{};                                    // Completed
  std::string error{};                                    // Failed
  std::vector<KernelOutput> kernelOutputs{};              // Completed, with traceKernels
};

struct RunResult {
  ResultKind kind = ResultKind::Failed;
  Array output{};  // Completed: f32, or i32 for output = I32 forwards
  Captures captures{};
  std::string error{};
  std::vector<KernelOutput> kernelOutputs{};  // Completed, with traceKernels
};

// Where and how a compile runs.
struct RuntimeOptions {
  // Adapter whose name contains this text (case-insensitive); empty: WEBGPU_ADAPTER, else the
  // best adapter (discrete GPU, integrated, then lavapipe).
  std::string device{};
  // The Vulkan driver `device` is picked among. Empty: the drivers the Vulkan loader finds
  // (VK_DRIVER_FILES included). "swiftshader": Chromium's own SwiftShader, the device headless
  // Chromium's WebGPU runs on, where Debian's chromium or Google Chrome install it (see
  // tensorgrad/vulkan_driver.h) — a model then computes Chromium's bits. Otherwise a driver
  // manifest (ICD JSON file) or a folder holding vk_swiftshader_icd.json (another browser's copy).
  // A `device` naming "swiftshader" with this empty selects Chromium's SwiftShader too.
  std::string vulkanDriver{};
  // Persistent WGSL→SPIR-V cache directory. Empty: $TENSORGRAD_CACHE_DIR, else
  // $XDG_CACHE_HOME/tensorgrad, else ~/.cache/tensorgrad. "none" disables it.
  std::filesystem::path cacheDir{};
  // Kernel emission: element-wise fusion, and the kernel set (KernelSet::Upstream, the default:
  // upstream's bits; KernelSet::Fast: our own matmuls, reductions and folds, equal within fp32
  // rounding; see codegen.h).
  EmitOptions emit{};
  // Liveness pooling of intermediates: upstream's plan lets values whose lifetimes do not
  // overlap share a buffer. Without it every intermediate has its own buffer, so kernels that
  // would have shared one do not wait for each other and the step runs in fewer barrier-separated
  // levels (upstream's transformer sample on an H100: 2.25 instead of 2.99 ms a step, for 115
  // instead of 21 MiB of intermediates). Unset (the default): on a GPU, own buffers, then the
  // intermediates whose kernels' dispatch levels never meet share one (shareBuffersAcrossLevels,
  // schedule.h: the same kernels and levels; the transformer at D512 L8 T64 takes 2.2 GB so, 9.0
  // GB with every buffer its own, 1.7 GB pooled), unless that plan needs more than
  // unpooledBudgetBytes of the device's maxBufferSize and more than kSharedOverPooled times the
  // pooled plan (then pooled); on a CPU device (lavapipe), pooled, which there is as fast and
  // touches 5x less memory. False: every intermediate its own buffer. Every plan runs the same
  // kernels' arithmetic and gives the same bits (Training.FusedAndUnpooledPlansMatchUpstreamsPlan).
  std::optional<bool> poolBuffers{};
  // Read back every kernel's output after it runs (StepResult/RunResult::kernelOutputs): each
  // kernel gets its own pass and a copy, in op order, so steps are slower. For finding the
  // first kernel where two runs (or two implementations) part.
  bool traceKernels = false;
  // A step whose loss is NaN or infinite fails ("diverged"), by default. False: it completes with
  // that loss, as upstream 0.4.6's step does (its parameters took the update): what replaying a
  // browser's recording needs, since a browser may record a NaN loss (SwiftShader's tanh is NaN
  // for |x| >= 89) and the steps after it.
  bool failOnNonFiniteLoss = true;
};

// RuntimeOptions::poolBuffers unset: the largest plan (all buffers) a GPU takes unpooled whatever
// the pooled plan would need, given the device's maxBufferSize (the shim gives its largest memory
// heap, within the driver's largest allocation; WebGPU reports no memory size): a quarter of it,
// and never less than kUnpooledBudgetBytes, WebGPU's default maxBufferSize, a size every WebGPU
// device can spare. Over it, the unpooled plan (buffers shared across levels) is still taken
// while it needs at most kSharedOverPooled times the pooled plan's bytes.
inline constexpr int64_t kUnpooledBudgetBytes = int64_t{256} << 20;
inline constexpr double kSharedOverPooled = 1.5;
inline int64_t unpooledBudgetBytes(uint64_t maxBufferSize) {
  return std::max(kUnpooledBudgetBytes, static_cast<int64_t>(maxBufferSize / 4));  // < 2^62
}

// A compile-time failure on the GPU side: no device, a tensor over the binding limit, a kernel
// the device rejects. The message names the tensor or kernel.
class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Marks a parametric input dim: {tg::null, 784} resolves the batch from each call's data.
inline constexpr int64_t null = -1;

struct ResetOptions {
  bool params = true;     // re-initialize parameters from the compile seed
  bool optimizer = true;  // zero optimizer state and restart the step counter
};

struct ReplaceOptions {
  std::optional<uint32_t> seed{};              // default: a fresh random seed
  std::optional<OptimizerConfig> optimizer{};  // default: keep the current one (same kind only)
};

inline constexpr size_t kDefaultMaxCachedShapes = 8;

// A forward graph attached to a training compile: it reads the trainer's parameter buffers.
template <class M>
struct AttachSpec {
  std::function<Tensor(const M&, const Inputs&)> forward{};
  InputDecls inputs{};  // tg::null dims are parametric
  Dtype output = Dtype::F32;
  size_t maxCachedShapes = kDefaultMaxCachedShapes;
};

// ---- type-erased implementation (runtime/*.cpp) ----
namespace detail {
using ModuleFn = std::function<Tensor(const Module&, const Inputs&)>;
class TrainingImpl;
class ForwardImpl;

// Builds a compile's IR for a buffer-pooling choice and the emit options resolved for the device
// (a trace, or an imported graph).
using IRBuilder = std::function<CompiledIR(bool poolBuffers, const EmitOptions& emit)>;
// A training from a ready IR (no model: replaceModel and attach throw), and a forward attached
// to it from a ready IR at its one input shape.
std::shared_ptr<TrainingImpl> compileTrainingIR(const IRBuilder& build, InputDecls inputs,
                                                OptimizerConfig optimizer,
                                                const RuntimeOptions& options);
std::shared_ptr<ForwardImpl> attachIR(const std::shared_ptr<TrainingImpl>& t,
                                      const IRBuilder& build, InputDecls inputs, Dtype output);
std::shared_ptr<TrainingImpl> compileTraining(const Module& model, ModuleFn loss,
                                              InputDecls inputs, OptimizerConfig optimizer,
                                              std::optional<uint32_t> seed,
                                              const RuntimeOptions& options);
Future<StepResult> step(const std::shared_ptr<TrainingImpl>& t, Feed inputs);
std::future<void> uploadParams(const std::shared_ptr<TrainingImpl>& t, ParamMap params);
std::future<ParamMap> downloadParams(const std::shared_ptr<TrainingImpl>& t);
std::future<void> reset(const std::shared_ptr<TrainingImpl>& t, ResetOptions options);
std::future<void> setLR(const std::shared_ptr<TrainingImpl>& t, LR lr);
std::future<void> replaceModel(const std::shared_ptr<TrainingImpl>& t, const Module& model,
                               ReplaceOptions options);
std::shared_ptr<ForwardImpl> attach(const std::shared_ptr<TrainingImpl>& t, ModuleFn forward,
                                    InputDecls inputs, Dtype output, size_t maxCachedShapes);
void destroy(const std::shared_ptr<TrainingImpl>& t);
std::shared_ptr<const CompiledIR> ir(const TrainingImpl& t);
std::vector<std::string> paramNames(const TrainingImpl& t);

std::shared_ptr<ForwardImpl> compileForward(const Module& model, ModuleFn forward,
                                            InputDecls inputs, Dtype output,
                                            size_t maxCachedShapes, std::optional<uint32_t> seed,
                                            const RuntimeOptions& options);
Future<RunResult> run(const std::shared_ptr<ForwardImpl>& f, Feed inputs);
std::future<std::shared_ptr<const CompiledIR>> graphFor(const std::shared_ptr<ForwardImpl>& f,
                                                        Feed inputs);
std::future<void> uploadParams(const std::shared_ptr<ForwardImpl>& f, ParamMap params);
std::future<ParamMap> downloadParams(const std::shared_ptr<ForwardImpl>& f);
void destroy(const std::shared_ptr<ForwardImpl>& f);
std::vector<std::string> paramNames(const ForwardImpl& f);
size_t cachedShapes(const ForwardImpl& f);

template <class M>
ModuleFn erase(std::function<Tensor(const M&, const Inputs&)> fn) {
  return [fn = std::move(fn)](const Module& m, const Inputs& in) {
    return fn(static_cast<const M&>(m), in);
  };
}
}  // namespace detail

template <class M>
class CompiledForward {
 public:
  explicit CompiledForward(std::shared_ptr<detail::ForwardImpl> impl) : impl_(std::move(impl)) {}
  Future<RunResult> run(Feed inputs) const { return detail::run(impl_, std::move(inputs)); }
  // The IR compiled for these inputs' resolved shape (compiled and cached on first use).
  std::future<std::shared_ptr<const CompiledIR>> graphFor(Feed inputs) const {
    return detail::graphFor(impl_, std::move(inputs));
  }
  std::future<void> uploadParams(ParamMap params) const {
    return detail::uploadParams(impl_, std::move(params));
  }
  std::future<ParamMap> downloadParams() const { return detail::downloadParams(impl_); }
  void destroy() const { detail::destroy(impl_); }
  std::vector<std::string> paramNames() const { return detail::paramNames(*impl_); }
  size_t cachedShapes() const { return detail::cachedShapes(*impl_); }

 private:
  std::shared_ptr<detail::ForwardImpl> impl_;
};

// The model passed to compile() and replaceModel() must outlive the handle: attached forwards
// trace it again whenever they meet a new input shape.
template <class M>
class CompiledTraining {
 public:
  explicit CompiledTraining(std::shared_ptr<detail::TrainingImpl> impl) : impl_(std::move(impl)) {}

  // One forward + backward + optimizer step; the loss is the one computed before the update.
  Future<StepResult> step(Feed inputs) const { return detail::step(impl_, std::move(inputs)); }
  // Strict: every parameter, no unknown names, exact sizes; on error nothing changes.
  std::future<void> uploadParams(ParamMap params) const {
    return detail::uploadParams(impl_, std::move(params));
  }
  std::future<ParamMap> downloadParams() const { return detail::downloadParams(impl_); }
  std::future<void> reset(ResetOptions options = {}) const { return detail::reset(impl_, options); }
  // A schedule without a startStep is rebased so that its step 1 is the next step.
  std::future<void> setLR(LR lr) const { return detail::setLR(impl_, std::move(lr)); }
  // Swaps in a new model (same loss and inputs): in-flight and queued calls become aborted,
  // attached forwards stay attached and recompile on their next run.
  std::future<void> replaceModel(const M& model, ReplaceOptions options = {}) const {
    return detail::replaceModel(impl_, model, std::move(options));
  }
  CompiledForward<M> attach(AttachSpec<M> spec) const {
    return CompiledForward<M>(detail::attach(impl_, detail::erase<M>(std::move(spec.forward)),
                                             std::move(spec.inputs), spec.output,
                                             spec.maxCachedShapes));
  }
  // Frees the GPU resources of this compile and every attached forward.
  void destroy() const { detail::destroy(impl_); }

  // The compiled IR (graph, buffer plan, kernels): a snapshot, which replaceModel replaces.
  std::shared_ptr<const CompiledIR> ir() const { return detail::ir(*impl_); }
  Graph graph() const { return ir()->graph; }
  std::vector<KernelSpec> kernels() const { return ir()->kernels; }
  Shape outputShape() const {
    const auto snapshot = ir();
    return snapshot->graph.tensors[static_cast<size_t>(snapshot->output)].shape;
  }
  std::vector<std::string> paramNames() const { return detail::paramNames(*impl_); }
  uint32_t seed() const { return ir()->seed; }

 private:
  std::shared_ptr<detail::TrainingImpl> impl_;
};

template <class M>
CompiledTraining<M> compile(const TrainingSpec<M>& spec, const RuntimeOptions& options = {}) {
  return CompiledTraining<M>(detail::compileTraining(spec.model, detail::erase<M>(spec.loss),
                                                     spec.inputs, spec.optimizer, spec.seed,
                                                     options));
}

template <class M>
CompiledForward<M> compileForward(const ForwardSpec<M>& spec, const RuntimeOptions& options = {}) {
  return CompiledForward<M>(detail::compileForward(spec.model, detail::erase<M>(spec.forward),
                                                   spec.inputs, spec.output,
                                                   spec.maxCachedShapes, spec.seed, options));
}

// Why a WebGPU probe failed, as upstream's WebGPUFailureReason ('no-webgpu' | 'no-adapter').
enum class WebGPUFailureReason {
  NoWebGPU,   // no WebGPU at all: Vulkan is unavailable (no loader or no driver installed)
  NoAdapter,  // WebGPU but no usable adapter: no Vulkan device matches `device`/WEBGPU_ADAPTER,
              // or the one that matches cannot open a device
};
std::string_view webGPUFailureReasonName(WebGPUFailureReason reason);  // "no-webgpu", "no-adapter"

// A WebGPU adapter probe: ok, or a reason and a message a user can act on.
struct WebGPUSupport {
  bool ok = false;
  std::string message{};                      // empty when ok
  std::optional<WebGPUFailureReason> reason{};  // empty when ok
  std::string adapter{};                      // the adapter's name when ok
  bool cpu = false;  // the adapter is a software device running on the CPU (lavapipe)
  // The largest plan of own buffers an unset RuntimeOptions::poolBuffers allows on this device
  // (unpooledBudgetBytes of its maxBufferSize; a CPU device pools every plan).
  int64_t unpooledBudgetBytes = 0;
};
WebGPUSupport checkWebGPU(const RuntimeOptions& options = {});

// The runtime opens one device per adapter and cache directory and keeps it for the life of the
// process, as upstream's worker keeps its device, so later compiles skip device bring-up (about
// 0.1 s on a discrete GPU) and reuse pipelines already built. releaseDevices() lets the idle ones
// go now (a device still used by a live compile goes when the last one is destroyed); the next
// compile opens a new device. Devices are never destroyed at exit: the OS reclaims them, and
// no driver state is torn down from static destructors.
void releaseDevices();

// Loses the device the runtime holds for `options` (if it holds one) as a driver reset would,
// through the shim's Device::ForceLoss, so an application can test its recovery: the call in
// flight and every later call on compiles made on that device fail with "device lost: <message>",
// and the next compile opens a new device. Returns whether a device was lost.
bool loseDeviceForTesting(const RuntimeOptions& options = {},
                          std::string_view message = "lost for testing");

// Whether waits spin rather than sleep at once: an idle GPU thread for up to 200 µs for the next
// call, so a step posted right after the last one's result starts without a thread wake-up; a GPU
// thread with a step in flight for up to 200 µs for the next step before it waits on that one,
// so the next is queued behind it (pipelined steps); and a step's or run's tg::Future near its
// result's expected time (future.h). They do on a GPU and not on a software device. `true` or
// `false` forces all on every device, std::nullopt restores the default; for tests of both paths.
void spinWaitsForTesting(std::optional<bool> on);
// How many times an idle GPU thread of this process has started such a spin.
uint64_t gpuThreadSpinsForTesting();
// How many pipelined steps of this process were submitted while an earlier step was in flight.
uint64_t pipelinedJobsBehindUnfinishedForTesting();
// How many waits on a tg::Future of this process have polled for their result.
uint64_t resultPollsForTesting();

}  // namespace tg
