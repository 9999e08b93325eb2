// Graph passes after autograd and the optimizer: dead-code elimination and buffer planning.
#pragma once

#include <map>

#include "tensorgrad/grad.h"
#include "tensorgrad/optim.h"

namespace tg {

// Drops ops whose results reach no output, capture or extra root (named leaves always stay).
// Returns old tensor id → new tensor id for the survivors.
std::map<int, int> eliminateDeadCode(Graph& graph, const std::vector<int>& extraRoots = {});

struct BufferSpec {
  enum class Kind { Param, ParamGrad, TensorInput, State, Intermediate, Output };
  int id = -1;
  int64_t byteSize = 0;
  Dtype dtype = Dtype::F32;
  Shape shape{};
  Kind kind = Kind::Intermediate;
  std::string name{};
  double initValue = 0;
};
std::string_view bufferKindName(BufferSpec::Kind kind);

struct Writeback {
  int source = -1, dest = -1;  // buffer ids
  int64_t bytes = 0;
};

struct BufferPlan {
  std::vector<BufferSpec> buffers{};
  std::vector<int> tensorToBuffer{};  // by tensor id
  std::vector<std::pair<std::string, int>> paramsByName{}, inputsByName{}, paramGradsByName{},
      statesByName{}, capturesByName{};
  std::vector<int> outputBufferIds{};
  std::vector<Writeback> writebacks{};

  int64_t totalBytes() const;
  int64_t bytesOf(BufferSpec::Kind kind) const;
  std::string report() const;  // bytes planned, per kind, and what pooling saved
  int64_t unpooledIntermediateBytes = 0;
};

// Liveness-based pooling: plain intermediates share buffers when their lifetimes do not overlap;
// params, grads, inputs, state, outputs, captures and writeback sources get their own. With
// `pool` false every tensor gets its own buffer (the reference the tests compare against).
// `aliasReshapes` (the fast kernel set): a reshape's plain intermediate output shares its input's
// buffer, and emitKernels gives such a reshape no kernel.
BufferPlan planBuffers(const Graph& graph, const ParamGrads& paramGrads,
                       const std::vector<WritebackDecl>& writebacks = {}, bool pool = true,
                       bool aliasReshapes = false);

}  // namespace tg
