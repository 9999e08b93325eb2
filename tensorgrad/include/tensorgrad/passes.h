// Graph passes after autograd and the optimizer: dead-code elimination and buffer planning.
#pragma once

#include <map>
#include <memory>

#include "tensorgrad/grad.h"
#include "tensorgrad/optim.h"

namespace tg {

// Drops ops whose results reach no output, capture or extra root (named leaves always stay).
// Returns old tensor id → new tensor id for the survivors.
std::map<int, int> eliminateDeadCode(Graph& graph, const std::vector<int>& extraRoots = {});

// KernelSet::Fast: every relu_grad whose x is also a relu's input reads the relu's output
// instead (relu(x) > 0 exactly where x > 0, NaN and -0 included, so the gradient is the same
// bits). x is then read by the relu alone, so the relu folds into the store of the matmul
// that produces x instead of taking a kernel and a dispatch level of its own.
void readReluGradsFromOutputs(Graph& graph);

// KernelSet::Fast: an op reading permute(permute(x)) whose second permute undoes the first reads
// x (the same values, moved twice). Autograd writes the transpose of a transposed operand so
// (attention's query gradient reads K through swapAxes(swapAxes(K))): the first permute then has
// the forward's product as its only reader, which reads it transposed instead of K's projection
// storing it transposed. A second permute left without readers goes, unless it is an output, a
// capture or one of `keep` (tensors read from outside the ops: parameter gradients, writebacks).
void readThroughCancellingPermutes(Graph& graph, const std::vector<int>& keep = {});

// KernelSet::Fast: cross-workgroup split-K for weight gradients. A matmul(permute(r, [1, 0]), d)
// (r [K, m], d [K, n]) of few outputs over a long K becomes s products over K/s each, one
// matmul_batched of [s, m, n] partials, and their sum_to_shape [m, n] (same value, summed in
// another order): each workgroup then walks a short K, and the GPU gets enough output tiles.
// Where the product's only reader is the identity sum_to_shape([m, n]) the Matmul adjoint ends
// with, that op sums the slices and the product goes: one kernel and one dispatch level fewer.
// `forcedSplits` 0: as many slices as chooseKSplits picks for a device with `workgroupBytes`
// of workgroup memory (0: WebGPU's default), none on a CPU device (`cpuDevice`,
// EmitOptions::cpuDevice); N ≥ 1: N slices wherever N divides K (1: none).
void splitWeightGradients(Graph& graph, int64_t workgroupBytes, int64_t forcedSplits = 0,
                          bool cpuDevice = false);

namespace detail {
struct OptimizerFold;  // codegen/fold_optimizer.h
}

struct BufferSpec {
  // ParamArena: the runtime's buffer holding many params (its views are the Param buffers).
  enum class Kind { Param, ParamGrad, TensorInput, State, Intermediate, Output, ParamArena };
  int id = -1;
  int64_t byteSize = 0;
  Dtype dtype = Dtype::F32;
  Shape shape{};
  Kind kind = Kind::Intermediate;
  std::string name{};
  double initValue = 0;
  // A view: this buffer is bytes [offset, offset + byteSize) of buffer `parent`, which is no
  // view itself (the fast set's optimizer arenas, fold_optimizer.h; intermediates sharing a
  // buffer across dispatch levels, schedule.h). -1: a buffer of its own.
  int parent = -1;
  int64_t offset = 0;
};
std::string_view bufferKindName(BufferSpec::Kind kind);

struct Writeback {
  int source = -1, dest = -1;  // buffer ids
  int64_t bytes = 0;
};

// A new value a kernel writes straight over the old one (the fused optimizer's parameters and
// moments), where a Writeback would copy it.
struct InPlaceUpdate {
  int tensor = -1;  // the new value
  int buffer = -1;  // the buffer it replaces the contents of
};

struct BufferPlan {
  std::vector<BufferSpec> buffers{};
  std::vector<int> tensorToBuffer{};  // by tensor id
  std::vector<std::pair<std::string, int>> paramsByName{}, inputsByName{}, paramGradsByName{},
      statesByName{}, capturesByName{};
  std::vector<int> outputBufferIds{};
  std::vector<Writeback> writebacks{};
  std::vector<InPlaceUpdate> inPlace{};
  // The fast set's fused optimizer (fold_optimizer.h), when the graph's optimizer folds.
  std::shared_ptr<const detail::OptimizerFold> optimizerFold{};

  int64_t totalBytes() const;
  int64_t bytesOf(BufferSpec::Kind kind) const;
  std::string report() const;  // bytes planned, per kind, and what pooling saved
  int64_t unpooledIntermediateBytes = 0;
};

// Liveness-based pooling: plain intermediates share buffers when their lifetimes do not overlap;
// params, grads, inputs, state, outputs, captures and writeback sources get their own. With
// `pool` false every tensor gets its own buffer (the reference the tests compare against).
// `fastSet` (the fast kernel set): a reshape's plain intermediate output shares its input's
// buffer, and emitKernels gives such a reshape no kernel; an optimizer that folds
// (fold_optimizer.h) gets its arenas, its updates happen in place and its writebacks go.
// `paramOrder` lists every parameter (name, elements) in the order the runtime lays them out in
// arenas (its ParamStore); empty: the graph's ParamInput order.
BufferPlan planBuffers(const Graph& graph, const ParamGrads& paramGrads,
                       const std::vector<WritebackDecl>& writebacks = {}, bool pool = true,
                       bool fastSet = false,
                       const std::vector<std::pair<std::string, int64_t>>& paramOrder = {});

}  // namespace tg
