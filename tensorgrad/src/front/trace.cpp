#include "tensorgrad/trace.h"

#include <algorithm>
#include <sstream>

#include "../ops/op_registry.h"
#include "tensorgrad/errors.h"

namespace tg {
namespace {

struct TraceState {
  Graph* graph = nullptr;
  bool captureEnabled = false;
  std::map<const ParamDecl*, int> params;  // module parameter → its param_input in this trace
};

thread_local TraceState* current = nullptr;

TraceState& state() {
  if (current == nullptr) {
    throw TraceError(
        "tensorgrad: ops can only be called inside a trace (trace(), compile() or traceFn()). "
        "Did you call a forward function directly?");
  }
  return *current;
}

class ScopedTrace {
 public:
  explicit ScopedTrace(TraceState& s) {
    if (current != nullptr) throw TraceError("tensorgrad: nested traces are not supported");
    current = &s;
  }
  ~ScopedTrace() { current = nullptr; }
  ScopedTrace(const ScopedTrace&) = delete;
  ScopedTrace& operator=(const ScopedTrace&) = delete;
};

Tensor namedLeaf(OpKind kind, const std::string& name, const Shape& shape, Dtype dtype,
                 double initValue, const char* opName, Loc loc) {
  Graph& g = *state().graph;
  const bool isState = kind == OpKind::StateInput;
  for (const Op& op : g.ops) {
    const bool clashes = isState
                             ? op.kind == OpKind::StateInput
                             : (op.kind == OpKind::ParamInput || op.kind == OpKind::TensorInput);
    if (clashes && op.attrs.name == name) {
      throw TraceError("tensorgrad: " + std::string(isState ? "state" : "input") + " name '" +
                       name + "' already used in this trace");
    }
  }
  CallSite site{opName, loc};
  for (int64_t d : shape) {
    if (d <= 0)
      throw ShapeError(
          std::string(opName) + " '" + name + "': dims must be positive, got " + showShape(shape),
          &site);
  }
  if (std::string e = checkTensorShape(shape); !e.empty())
    throw ShapeError(std::string(opName) + " '" + name + "': " + e, &site);
  OpAttrs attrs;
  attrs.name = name;
  attrs.initValue = initValue;
  attrs.shape = shape;
  attrs.dtype = dtype;
  return emit(kind, {}, std::move(attrs), site);
}

}  // namespace

std::string_view dtypeName(Dtype dtype) {
  switch (dtype) {
    case Dtype::F32:
      return "f32";
    case Dtype::I32:
      return "i32";
    case Dtype::Bool:
      return "bool";
  }
  return "?";
}

std::optional<Dtype> dtypeFromName(std::string_view name) {
  for (Dtype d : {Dtype::F32, Dtype::I32, Dtype::Bool}) {
    if (dtypeName(d) == name) return d;
  }
  return std::nullopt;
}

int64_t shapeSize(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw ShapeOverflowError("shape " + showShape(shape) + " has a negative dim");
    if (__builtin_mul_overflow(n, d, &n)) {
      throw ShapeOverflowError("shape " + showShape(shape) +
                               " overflows: its element count does not fit in int64");
    }
  }
  return n;
}

std::string checkTensorShape(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0) return "shape " + showShape(shape) + " has a dim that is not positive";
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxTensorElements) {
      return "shape " + showShape(shape) +
             " overflows: its element count (and byte size, elements x 4) must fit in int64, at "
             "most " + std::to_string(kMaxTensorElements) + " elements";
    }
  }
  return {};
}

std::string showShape(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string formatSite(const CallSite& site) {
  std::ostringstream os;
  if (!site.frames.empty()) {
    os << "[" << site.opName << "] " << site.frames[0];
    for (size_t i = 1; i < site.frames.size(); ++i) os << "; " << site.frames[i];
    return os.str();
  }
  os << "[" << site.opName << "] " << site.location.file_name() << ":" << site.location.line();
  if (*site.location.function_name() != '\0') os << " (in " << site.location.function_name() << ")";
  return os.str();
}

ShapeError::ShapeError(const std::string& message, const CallSite* site)
    : std::runtime_error(site ? message + "\n  at " + formatSite(*site) : message) {}

int Tensor::id() const {
  if (param_) {
    TraceState& s = state();
    auto it = s.params.find(param_.get());
    if (it == s.params.end()) {
      throw TraceError("tensorgrad: parameter '" + param_->path +
                       "' is not part of this trace — its module was not the model passed to "
                       "trace()/compile()");
    }
    return it->second;
  }
  if (graph_ == nullptr)
    throw TraceError("tensorgrad: use of an undefined Tensor (e.g. a disabled bias)");
  return id_;
}

Graph& Tensor::graph() const {
  if (param_) return *state().graph;
  if (graph_ == nullptr)
    throw TraceError("tensorgrad: use of an undefined Tensor (e.g. a disabled bias)");
  return *graph_;
}

Shape Tensor::shape() const {
  if (param_) return param_->shape;
  return graph().tensor(id_).shape;
}

Dtype Tensor::dtype() const {
  if (param_) return param_->dtype;
  return graph().tensor(id_).dtype;
}

Graph traceFn(const std::function<std::vector<Tensor>()>& fn) {
  Graph g;
  TraceState s{&g, true, {}};
  {
    ScopedTrace scope(s);
    for (const Tensor& t : fn()) g.outputs.push_back(t.id());
  }
  return g;
}

void traceInto(Graph& graph, const std::function<void()>& fn) {
  TraceState s{&graph, false, {}};
  ScopedTrace scope(s);
  fn();
}

bool isTracing() {
  return current != nullptr;
}

Graph& currentGraph() {
  return *state().graph;
}

Tensor paramInput(const std::string& name, const Shape& shape, Dtype dtype, Loc loc) {
  return namedLeaf(OpKind::ParamInput, name, shape, dtype, 0, "paramInput", loc);
}
Tensor tensorInput(const std::string& name, const Shape& shape, Dtype dtype, Loc loc) {
  return namedLeaf(OpKind::TensorInput, name, shape, dtype, 0, "tensorInput", loc);
}
Tensor stateInput(const std::string& name, const Shape& shape, Dtype dtype, double initValue,
                  Loc loc) {
  return namedLeaf(OpKind::StateInput, name, shape, dtype, initValue, "stateInput", loc);
}

void bindParam(const ParamDecl* decl, int tensorId) {
  state().params[decl] = tensorId;
}

Tensor capture(const std::string& name, const Tensor& t, Loc loc) {
  TraceState& s = state();
  if (!s.captureEnabled) return t;
  auto& caps = s.graph->captures;
  if (std::any_of(caps.begin(), caps.end(), [&](const auto& c) { return c.first == name; })) {
    CallSite site{"capture", loc};
    throw ShapeError("capture: name '" + name + "' is already captured in this trace", &site);
  }
  caps.emplace_back(name, t.id());
  return t;
}

Tensor emit(OpKind kind, const std::vector<Tensor>& inputs, OpAttrs attrs, const CallSite& site) {
  Graph& g = *state().graph;
  const detail::OpDef& def = detail::opDef(kind);
  std::vector<int> ids;
  std::vector<const TensorInfo*> infos;
  ids.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    ids.push_back(t.id());
    if (&t.graph() != &g)
      throw ShapeError(site.opName + ": input tensor belongs to a different trace", &site);
  }
  for (int id : ids) infos.push_back(&g.tensor(id));
  detail::OutType out = [&] {
    try {
      return def.infer(detail::InferArgs{infos, attrs, site});
    } catch (const ShapeOverflowError& e) {
      throw ShapeError(site.opName + ": " + e.what(), &site);
    }
  }();
  if (std::string e = checkTensorShape(out.shape); !e.empty())
    throw ShapeError(site.opName + ": the output " + e, &site);
  Op op{kind, static_cast<int>(g.tensors.size()), std::move(ids), std::move(attrs)};
  g.tensors.push_back(
      TensorInfo{op.out, std::move(out.shape), out.dtype, static_cast<int>(g.ops.size()), site});
  g.ops.push_back(std::move(op));
  return Tensor(&g, g.ops.back().out);
}

}  // namespace tg
