// Buffer planning. Shapes are static, so every tensor's size and lifetime are known: plain
// intermediates whose lifetimes do not overlap share one buffer (best fit from a free list);
// everything the host or a later step reads keeps its own.
#include <algorithm>
#include <set>
#include <sstream>

#include "tensorgrad/errors.h"
#include "tensorgrad/passes.h"

#include "../codegen/fold_optimizer.h"

namespace tg {

std::string_view bufferKindName(BufferSpec::Kind kind) {
  switch (kind) {
    case BufferSpec::Kind::Param:
      return "param";
    case BufferSpec::Kind::ParamGrad:
      return "param_grad";
    case BufferSpec::Kind::TensorInput:
      return "tensor_input";
    case BufferSpec::Kind::State:
      return "state";
    case BufferSpec::Kind::Intermediate:
      return "intermediate";
    case BufferSpec::Kind::Output:
      return "output";
    case BufferSpec::Kind::ParamArena:
      return "param_arena";
  }
  return "?";
}

namespace {
// The fused optimizer's arenas (fold_optimizer.h): parameters, gradients and each moment of the
// folded updates become views at their parameter's arena offset.
void placeInArenas(BufferPlan& plan, const Graph& graph, detail::OptimizerFold& fold) {
  const auto add = [&](BufferSpec::Kind kind, int64_t bytes, std::string name, double init) {
    const int id = static_cast<int>(plan.buffers.size());
    plan.buffers.push_back({id, bytes, Dtype::F32, {bytes / 4}, kind, std::move(name), init});
    return id;
  };
  const auto view = [&](int tensor, int parent, int64_t offset) {
    BufferSpec& b = plan.buffers[static_cast<size_t>(plan.tensorToBuffer.at(static_cast<size_t>(tensor)))];
    b.parent = parent;
    b.offset = offset;
  };
  for (size_t a = 0; a < fold.arenaBytes.size(); ++a) {
    const int64_t bytes = std::max<int64_t>(4, fold.arenaBytes[a]);
    const std::string n = std::to_string(a);
    detail::OptimizerFold::Buffers b;
    b.params = add(BufferSpec::Kind::ParamArena, bytes, "param arena " + n, 0);
    b.grads = add(BufferSpec::Kind::ParamGrad, bytes, "gradient arena " + n, 0);
    for (size_t r = 0; r < fold.stateRoles; ++r) {
      const int first = fold.slots[0].states[r];
      const double init = graph.ops[static_cast<size_t>(*graph.tensor(first).source)].attrs.initValue;
      b.states.push_back(add(BufferSpec::Kind::State, bytes, "state " + std::to_string(r) + " arena " + n, init));
    }
    if (a == 0 && fold.normTotal >= 0)
      b.partials = add(BufferSpec::Kind::Intermediate, fold.normPartials * 4, "clip norm partial sums", 0);
    fold.buffers.push_back(std::move(b));
  }
  for (const detail::OptimizerFold::Slot& s : fold.slots) {
    const detail::OptimizerFold::Buffers& b = fold.buffers[static_cast<size_t>(s.at.arena)];
    view(s.param, b.params, s.at.offset);
    view(s.grad, b.grads, s.at.offset);
    for (size_t r = 0; r < s.states.size(); ++r) view(s.states[r], b.states[r], s.at.offset);
  }
}

// Byte totals saturate at INT64_MAX instead of wrapping: they are compared with budgets.
int64_t addBytes(int64_t a, int64_t b) {
  int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}
}  // namespace

int64_t BufferPlan::totalBytes() const {
  int64_t n = 0;
  for (const BufferSpec& b : buffers) n = addBytes(n, b.parent < 0 ? b.byteSize : 0);
  return n;
}

int64_t BufferPlan::bytesOf(BufferSpec::Kind kind) const {
  int64_t n = 0;
  for (const BufferSpec& b : buffers) n = addBytes(n, b.kind == kind && b.parent < 0 ? b.byteSize : 0);
  return n;
}

std::string BufferPlan::report() const {
  std::ostringstream os;
  os << buffers.size() << " buffers, " << totalBytes() << " bytes planned";
  for (auto kind :
       {BufferSpec::Kind::Param, BufferSpec::Kind::ParamGrad, BufferSpec::Kind::TensorInput,
        BufferSpec::Kind::State, BufferSpec::Kind::Intermediate, BufferSpec::Kind::Output,
        BufferSpec::Kind::ParamArena}) {
    os << "; " << bufferKindName(kind) << " " << bytesOf(kind);
  }
  os << "; intermediates without pooling would take " << unpooledIntermediateBytes << " bytes";
  return os.str();
}

BufferPlan planBuffers(const Graph& graph, const ParamGrads& paramGrads,
                       const std::vector<WritebackDecl>& writebackDecls, bool pool,
                       bool fastSet, const std::vector<std::pair<std::string, int64_t>>& paramOrder) {
  using Kind = BufferSpec::Kind;
  BufferPlan plan;
  const bool aliasReshapes = fastSet;
  const std::shared_ptr<detail::OptimizerFold> fold =
      fastSet ? detail::foldOptimizer(graph, paramGrads, writebackDecls, paramOrder) : nullptr;
  const auto inPlace = [&](size_t decl) { return fold && fold->inPlaceDecl[decl]; };
  const size_t nt = graph.tensors.size();
  plan.tensorToBuffer.assign(nt, -1);

  std::vector<Kind> kind(nt, Kind::Intermediate);
  std::vector<std::string> name(nt);
  for (const auto& [n, id] : paramGrads)
    kind[static_cast<size_t>(id)] = Kind::ParamGrad, name[static_cast<size_t>(id)] = n;
  for (int id : graph.outputs) {
    if (kind[static_cast<size_t>(id)] == Kind::Intermediate)
      kind[static_cast<size_t>(id)] = Kind::Output;
  }
  for (const Op& op : graph.ops) {
    const auto o = static_cast<size_t>(op.out);
    if (op.kind == OpKind::ParamInput)
      kind[o] = Kind::Param, name[o] = op.attrs.name;
    else if (op.kind == OpKind::TensorInput)
      kind[o] = Kind::TensorInput, name[o] = op.attrs.name;
    else if (op.kind == OpKind::StateInput)
      kind[o] = Kind::State, name[o] = op.attrs.name;
  }
  std::set<int> pinned;  // intermediates that must outlive their last reader
  for (const auto& [n, id] : graph.captures) pinned.insert(id);
  for (size_t w = 0; w < writebackDecls.size(); ++w)
    if (!inPlace(w)) pinned.insert(writebackDecls[w].source);
  // A reshape is the same bytes under another shape: with aliasReshapes, a plain intermediate
  // made by one lives in its input's buffer (root: the tensor that owns the buffer), and the
  // root's buffer stays live until the last reader of any of its aliases.
  std::vector<int> root(nt);
  for (size_t t = 0; t < nt; ++t) root[t] = static_cast<int>(t);
  const auto aliased = [&](const Op& op) {
    return aliasReshapes && op.kind == OpKind::Reshape &&
           kind[static_cast<size_t>(op.out)] == Kind::Intermediate && !pinned.contains(op.out);
  };
  for (const Op& op : graph.ops) {
    if (aliased(op)) root[static_cast<size_t>(op.out)] = root[static_cast<size_t>(op.inputs[0])];
  }
  const auto poolable = [&](int id) {
    return pool && root[static_cast<size_t>(id)] == id &&
           kind[static_cast<size_t>(id)] == Kind::Intermediate && !pinned.contains(id);
  };

  std::vector<int> lastUse(nt, -1);  // of a root: over all its aliases
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    for (int in : graph.ops[i].inputs) lastUse[static_cast<size_t>(root[static_cast<size_t>(in)])] = static_cast<int>(i);
  }
  if (fold) {  // the fused update reads its scalars where it stands, after their last reader
    for (int t : fold->scalars) {
      int& last = lastUse[static_cast<size_t>(root[static_cast<size_t>(t)])];
      for (int host : fold->updateHost) last = std::max(last, host);
    }
  }

  std::vector<int> freeList;
  const auto alloc = [&](const TensorInfo& t, int64_t bytes, Kind k, const std::string& n,
                         double initValue) {
    plan.buffers.push_back(
        {static_cast<int>(plan.buffers.size()), bytes, t.dtype, t.shape, k, n, initValue});
    return plan.buffers.back().id;
  };
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    const TensorInfo& t = graph.tensor(op.out);
    if (std::string e = checkTensorShape(t.shape); !e.empty()) {
      throw ShapeError("planBuffers: tensor " + std::to_string(op.out) + " (" +
                           std::string(opKindName(op.kind)) + " op #" + std::to_string(i) + "): " + e,
                       t.site ? &*t.site : nullptr);
    }
    const int64_t need = std::max<int64_t>(4, shapeSize(t.shape) * 4);
    const auto o = static_cast<size_t>(op.out);
    if (root[o] != op.out) {
      plan.tensorToBuffer[o] = plan.tensorToBuffer[static_cast<size_t>(root[o])];
      continue;  // an alias: its root frees the buffer
    }
    if (kind[o] == Kind::Intermediate)
      plan.unpooledIntermediateBytes = addBytes(plan.unpooledIntermediateBytes, need);
    int buf = -1;
    if (poolable(op.out)) {
      // Best fit: the smallest free buffer that is big enough.
      auto best = freeList.end();
      for (auto it = freeList.begin(); it != freeList.end(); ++it) {
        const int64_t size = plan.buffers[static_cast<size_t>(*it)].byteSize;
        if (size >= need &&
            (best == freeList.end() || size < plan.buffers[static_cast<size_t>(*best)].byteSize))
          best = it;
      }
      if (best != freeList.end())
        buf = *best, freeList.erase(best);
      else
        buf = alloc(t, need, Kind::Intermediate, "", 0);
    } else {
      buf = alloc(t, need, kind[o], name[o], op.attrs.initValue);
      auto& index = kind[o] == Kind::Param         ? plan.paramsByName
                    : kind[o] == Kind::TensorInput ? plan.inputsByName
                    : kind[o] == Kind::ParamGrad   ? plan.paramGradsByName
                                                   : plan.statesByName;
      if (kind[o] != Kind::Intermediate && kind[o] != Kind::Output)
        index.emplace_back(name[o], buf);
    }
    plan.tensorToBuffer[o] = buf;
    // Free inputs only after the output has its buffer, so an output never lands on a live input.
    std::set<int> freed;
    for (int read : op.inputs) {
      const int in = root[static_cast<size_t>(read)];
      if (poolable(in) && lastUse[static_cast<size_t>(in)] == static_cast<int>(i) &&
          freed.insert(in).second) {
        freeList.push_back(plan.tensorToBuffer[static_cast<size_t>(in)]);
      }
    }
    if (poolable(op.out) && lastUse[o] == -1) freeList.push_back(buf);  // dead on write
  }

  // Self-check: no two occupants of a shared buffer have overlapping live ranges.
  std::map<int, std::vector<std::pair<int, int>>> occupants;  // buffer → (def, end)
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const int id = graph.ops[i].out;
    if (!poolable(id)) continue;
    const int def = static_cast<int>(i);
    occupants[plan.tensorToBuffer[static_cast<size_t>(id)]].emplace_back(
        def, std::max(def, lastUse[static_cast<size_t>(id)]));
  }
  for (auto& [buf, ranges] : occupants) {
    std::sort(ranges.begin(), ranges.end());
    for (size_t k = 1; k < ranges.size(); ++k) {
      if (ranges[k].first <= ranges[k - 1].second) {
        throw std::logic_error("planBuffers: lifetime overlap on buffer " + std::to_string(buf));
      }
    }
  }

  for (int id : graph.outputs)
    plan.outputBufferIds.push_back(plan.tensorToBuffer[static_cast<size_t>(id)]);
  for (const auto& [n, id] : graph.captures)
    plan.capturesByName.emplace_back(n, plan.tensorToBuffer[static_cast<size_t>(id)]);
  for (size_t d = 0; d < writebackDecls.size(); ++d) {
    const WritebackDecl& w = writebackDecls[d];
    const auto& index =
        w.destKind == WritebackDecl::Kind::Param ? plan.paramsByName : plan.statesByName;
    auto it = std::find_if(index.begin(), index.end(),
                           [&](const auto& e) { return e.first == w.destName; });
    if (it == index.end())
      throw TraceError("planBuffers: writeback destination '" + w.destName + "' not found");
    if (inPlace(d)) {
      plan.inPlace.push_back({w.source, it->second});
      continue;
    }
    const int src = plan.tensorToBuffer.at(static_cast<size_t>(w.source));
    const int64_t bytes = plan.buffers[static_cast<size_t>(src)].byteSize;
    if (bytes != plan.buffers[static_cast<size_t>(it->second)].byteSize) {
      throw TraceError("planBuffers: writeback size mismatch for '" + w.destName + "'");
    }
    plan.writebacks.push_back({src, it->second, bytes});
  }
  if (fold) placeInArenas(plan, graph, *fold);
  plan.optimizerFold = fold;
  return plan;
}

}  // namespace tg
