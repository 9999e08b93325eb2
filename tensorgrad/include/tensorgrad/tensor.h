// Tensor: a handle to a node of the graph being traced. Metadata only (shape, dtype, producer);
// storage exists once a graph is compiled. A module parameter is a Tensor too: outside a trace it
// carries its declaration, inside one it resolves to that trace's param_input.
#pragma once

#include <memory>

#include "tensorgrad/init.h"
#include "tensorgrad/ir.h"

namespace tg {

struct ParamDecl {
  std::string path{};  // dotted name, e.g. "layers.0.attn.q.W"
  Shape shape{};
  Dtype dtype = Dtype::F32;
  InitSpec init{};
  bool decay = true;
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(Graph* graph, int id) : graph_(graph), id_(id) {}
  explicit Tensor(std::shared_ptr<const ParamDecl> param) : param_(std::move(param)) {}

  bool defined() const { return graph_ != nullptr || param_ != nullptr; }
  explicit operator bool() const { return defined(); }

  // The id in the current trace's graph (a parameter resolves through the trace's bindings).
  int id() const;
  Graph& graph() const;
  // By value: a reference into the graph would dangle once the next op grows it.
  Shape shape() const;
  Dtype dtype() const;
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  int64_t size() const { return shapeSize(shape()); }
  const ParamDecl* param() const { return param_.get(); }

 private:
  Graph* graph_ = nullptr;
  int id_ = -1;
  std::shared_ptr<const ParamDecl> param_;
};

}  // namespace tg
