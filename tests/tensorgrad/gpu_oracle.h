// Runs emitted kernels on a WebGPU implementation — real Dawn (Dawn for Node,
// tests/dawn/run_kernels.mjs) or this repository's own stack (wgsl_subset + webgpu_shim on
// Vulkan) — and compares every buffer with the CPU reference evaluator run through the same plan.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <functional>

namespace tg_test {

struct GpuRun {
  std::vector<std::vector<uint32_t>> buffers;  // by buffer id, final contents as raw 32-bit words
  std::vector<std::string> errors;             // WGSL compilation / validation messages
};

enum class Backend { Dawn, Shim };

// Executes `kernels` in order over buffers laid out by `plan`, leaves filled from `env`.
GpuRun runOnDawn(const tg::BufferPlan& plan, const std::vector<tg::KernelSpec>& kernels,
                 const tg::EvalInputs& env);
GpuRun runOnShim(const tg::BufferPlan& plan, const std::vector<tg::KernelSpec>& kernels,
                 const tg::EvalInputs& env);

// Every param input of `graph` filled with uniform values (test_support::uniformValues), seeds
// firstSeed, firstSeed + 1, ... in op order.
tg::EvalInputs uniformParams(const tg::Graph& graph, uint32_t firstSeed);

// Plans, emits, runs on `backend` and on the CPU, and checks every buffer agrees
// (|gpu − cpu| ≤ atol + rtol·|cpu|; integers exactly). With fusion, buffers whose last occupant
// lives only in a fused kernel's registers are skipped. Returns the number of kernels run.
// `rewrite`, when set, may replace emitted kernels (a test forcing a kernel variant) before the run.
// `pool`: upstream's pooled plan (the default), else every intermediate in its own buffer (the
// runtime's default on a GPU, where more folds are safe).
size_t expectGpuMatchesCpu(Backend backend, const tg::Graph& graph, const tg::ParamGrads& grads,
                           const std::vector<tg::WritebackDecl>& writebacks,
                           const tg::EvalInputs& env, double rtol = 1e-4, double atol = 1e-5,
                           tg::EmitOptions options = {},
                           const std::function<void(std::vector<tg::KernelSpec>&)>& rewrite = {},
                           bool pool = true);

}  // namespace tg_test
