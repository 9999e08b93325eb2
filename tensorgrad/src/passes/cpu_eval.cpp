#include "tensorgrad/cpu_eval.h"

#include "../ops/op_registry.h"
#include "tensorgrad/passes.h"

namespace tg {

HostTensor HostTensor::f32(Shape shape, std::vector<float> data) {
  HostTensor t;
  t.shape = std::move(shape);
  t.dtype = Dtype::F32;
  t.f = std::move(data);
  if (static_cast<int64_t>(t.f.size()) != t.size())
    throw TraceError("HostTensor: " + std::to_string(t.f.size()) + " values for shape " +
                     showShape(t.shape));
  return t;
}

HostTensor HostTensor::i32(Shape shape, std::vector<int32_t> data) {
  HostTensor t;
  t.shape = std::move(shape);
  t.dtype = Dtype::I32;
  t.i = std::move(data);
  if (static_cast<int64_t>(t.i.size()) != t.size())
    throw TraceError("HostTensor: " + std::to_string(t.i.size()) + " values for shape " +
                     showShape(t.shape));
  return t;
}

HostTensor HostTensor::zeros(const Shape& shape, Dtype dtype) {
  HostTensor t;
  t.shape = shape;
  t.dtype = dtype;
  const auto n = static_cast<size_t>(shapeSize(shape));
  if (dtype == Dtype::F32)
    t.f.assign(n, 0.0f);
  else
    t.i.assign(n, 0);
  return t;
}

std::vector<HostTensor> evaluate(const Graph& graph, const EvalInputs& inputs) {
  std::vector<HostTensor> values(graph.tensors.size());
  for (const Op& op : graph.ops) {
    std::vector<const HostTensor*> in;
    in.reserve(op.inputs.size());
    for (int id : op.inputs) in.push_back(&values[static_cast<size_t>(id)]);
    const TensorInfo& out = graph.tensor(op.out);
    values[static_cast<size_t>(op.out)] =
        detail::opDef(op.kind).eval(detail::EvalArgs{op, in, out, inputs});
  }
  return values;
}

std::vector<HostTensor> evaluatePlanned(const Graph& graph, const BufferPlan& plan,
                                        const EvalInputs& inputs) {
  std::vector<HostTensor> buffers(plan.buffers.size());
  const auto slot = [&](int tensorId) -> HostTensor& {
    return buffers.at(static_cast<size_t>(plan.tensorToBuffer.at(static_cast<size_t>(tensorId))));
  };
  for (const Op& op : graph.ops) {
    std::vector<HostTensor>
        in;  // copies: the output may legitimately reuse an input's buffer later
    std::vector<const HostTensor*> ptrs;
    for (int id : op.inputs) {
      // The buffer holds the tensor's values, last written maybe under an alias's shape.
      in.push_back(slot(id));
      in.back().shape = graph.tensor(id).shape;
    }
    for (const HostTensor& t : in) ptrs.push_back(&t);
    const TensorInfo& out = graph.tensor(op.out);
    slot(op.out) = detail::opDef(op.kind).eval(detail::EvalArgs{op, ptrs, out, inputs});
  }
  return buffers;
}

}  // namespace tg
