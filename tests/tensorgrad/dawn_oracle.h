// Runs emitted kernels on real WebGPU (Dawn for Node, tests/dawn/run_kernels.mjs) and compares
// every buffer with the CPU reference evaluator run through the same buffer plan.
#pragma once

#include <tensorgrad/tensorgrad.h>

namespace tg_test {

struct DawnRun {
  std::vector<std::vector<uint32_t>> buffers;  // by buffer id, final contents as raw 32-bit words
  std::vector<std::string> errors;             // WGSL compilation / validation messages
};

// Executes `kernels` in order over buffers laid out by `plan`, leaves filled from `env`.
DawnRun runOnDawn(const tg::Graph& graph, const tg::BufferPlan& plan,
                  const std::vector<tg::KernelSpec>& kernels, const tg::EvalInputs& env);

// Traces nothing itself: plans, emits, runs on Dawn and on the CPU, and checks every buffer
// agrees (|gpu − cpu| ≤ atol + rtol·|cpu|; integers exactly). Returns the kernel count run.
// With fusion, buffers whose last occupant lives only in a fused kernel's registers are skipped.
size_t expectDawnMatchesCpu(const tg::Graph& graph, const tg::ParamGrads& grads,
                            const std::vector<tg::WritebackDecl>& writebacks,
                            const tg::EvalInputs& env, double rtol = 1e-4, double atol = 1e-5,
                            tg::EmitOptions options = {});

}  // namespace tg_test
