// The CPU reference evaluator: executes any graph (forward, backward, optimizer updates) on the
// host. It is the oracle for autograd, codegen and the runtime. Element-wise math runs in double
// and rounds to f32 per op; reductions and dot products accumulate in double.
#pragma once

#include <map>
#include <string>

#include "tensorgrad/ir.h"

namespace tg {

struct HostTensor {
  Shape shape{};
  Dtype dtype = Dtype::F32;
  std::vector<float> f{};    // f32 data
  std::vector<int32_t> i{};  // i32 and bool data

  static HostTensor f32(Shape shape, std::vector<float> data);
  static HostTensor i32(Shape shape, std::vector<int32_t> data);
  static HostTensor zeros(const Shape& shape, Dtype dtype);
  int64_t size() const { return shapeSize(shape); }
  double at(int64_t k) const {
    return dtype == Dtype::F32 ? f[static_cast<size_t>(k)] : i[static_cast<size_t>(k)];
  }
};

// Values for the graph's named leaves, by name.
struct EvalInputs {
  std::map<std::string, HostTensor> params{};
  std::map<std::string, HostTensor>
      inputs{};  // tensor_input (including "__prngSeed", "_adam_lrt", ...)
  std::map<std::string, HostTensor> states{};  // missing states start at their initValue
};

// Every tensor's value, indexed by tensor id. Throws TraceError naming a missing or mis-shaped
// leaf.
std::vector<HostTensor> evaluate(const Graph& graph, const EvalInputs& inputs);

// Evaluates through the buffers of a plan: each op reads its inputs from, and writes its output
// to, the buffer the plan assigned, so a plan that aliases two live tensors gives wrong values.
// Returns the final contents of every buffer, indexed by buffer id.
struct BufferPlan;
std::vector<HostTensor> evaluatePlanned(const Graph& graph, const BufferPlan& plan,
                                        const EvalInputs& inputs);

}  // namespace tg
