#include "fold_optimizer.h"

#include <algorithm>
#include <map>
#include <set>

#include "../ops/op_registry.h"
#include "fold_second_output.h"

namespace tg::detail {

ArenaLayout layoutArenas(const std::vector<int64_t>& bytes) {
  ArenaLayout layout;
  int64_t end = 0;
  for (int64_t b : bytes) {
    const int64_t at = (end + kArenaAlignBytes - 1) / kArenaAlignBytes * kArenaAlignBytes;
    if (layout.arenaBytes.empty() || (at > 0 && b > kArenaMaxBytes - at)) {
      layout.arenaBytes.push_back(0);
      end = 0;
    }
    const int64_t offset = layout.arenaBytes.back() == 0 && end == 0 ? 0 : at;
    layout.places.push_back({static_cast<int>(layout.arenaBytes.size() - 1), offset});
    end = offset + b;
    layout.arenaBytes.back() = end;
  }
  return layout;
}

namespace {

constexpr int64_t kElementsPerThread = 4;
constexpr int64_t kUpdateChunk = kElementsPerThread * kWorkgroupSize;  // elements per workgroup
constexpr int64_t kNormChunk = 16 * kWorkgroupSize;

bool isScalar(const TensorInfo& t) {
  return t.shape.size() <= 1 && shapeSize(t.shape) == 1;
}

struct Analysis {
  const Graph& graph;
  std::vector<std::vector<int>> readers;  // by tensor: the ops reading it
  std::set<int> external;                 // outputs and captures

  explicit Analysis(const Graph& g) : graph(g), readers(g.tensors.size()) {
    for (size_t i = 0; i < g.ops.size(); ++i) {
      for (int t : g.ops[i].inputs) {
        auto& r = readers[static_cast<size_t>(t)];
        if (std::find(r.begin(), r.end(), static_cast<int>(i)) == r.end()) r.push_back(static_cast<int>(i));
      }
    }
    external.insert(g.outputs.begin(), g.outputs.end());
    for (const auto& [name, id] : g.captures) external.insert(id);
  }
  const Op& producer(int t) const { return graph.ops[static_cast<size_t>(*graph.tensor(t).source)]; }
  int producerIndex(int t) const { return *graph.tensor(t).source; }
  // Only ops in `within` read `t`, and it is no output or capture.
  bool privateTo(int t, const std::set<int>& within) const {
    if (external.contains(t)) return false;
    const auto& r = readers[static_cast<size_t>(t)];
    return std::all_of(r.begin(), r.end(), [&](int op) { return within.contains(op); });
  }
};

// The per-parameter update: the element-wise ops from the leaves (the parameter, its gradient,
// states, scalars) to the new parameter and the new states. False when it is not that shape.
bool traceSlot(const Analysis& a, OptimizerFold::Slot& slot, const std::vector<WritebackDecl>& decls,
               std::vector<char>& claimed, std::map<int, size_t>& scalarIndex,
               std::vector<int>& scalars) {
  const Graph& g = a.graph;
  const Shape& shape = g.tensor(slot.param).shape;
  std::set<int> ops;
  std::vector<int> pending(slot.news.begin(), slot.news.end());
  std::map<std::string, int> stateByName;
  while (!pending.empty()) {
    const int t = pending.back();
    pending.pop_back();
    if (t == slot.param || t == slot.grad) continue;
    const TensorInfo& info = g.tensor(t);
    if (info.dtype != Dtype::F32) return false;
    const Op& op = a.producer(t);
    if (op.kind == OpKind::StateInput) {
      if (info.shape != shape) return false;
      if (stateByName.emplace(op.attrs.name, t).second) {
        // Its new value must be written back, by a declaration no other slot claimed.
        size_t w = 0;
        while (w < decls.size() && !(decls[w].destKind == WritebackDecl::Kind::State &&
                                     decls[w].destName == op.attrs.name))
          ++w;
        if (w == decls.size() || claimed[w]) return false;
        claimed[w] = 1;
        slot.states.push_back(t);
        slot.news.push_back(decls[w].source);
        pending.push_back(decls[w].source);
      }
      continue;
    }
    if (isScalar(info) && info.shape != shape) {
      if (scalarIndex.emplace(t, scalars.size()).second) scalars.push_back(t);
      continue;
    }
    if (op.kind == OpKind::ParamInput || op.kind == OpKind::TensorInput) return false;
    // Every op reads its inputs at its own index, which a permute (even of a square) does not.
    if (!opDef(op.kind).expr || op.kind == OpKind::Permute || info.shape != shape) return false;
    if (ops.insert(a.producerIndex(t)).second)
      pending.insert(pending.end(), op.inputs.begin(), op.inputs.end());
  }
  // Every value computed here is read only here: the fold keeps it in registers.
  for (int o : ops) {
    if (!a.privateTo(g.ops[static_cast<size_t>(o)].out, ops)) return false;
  }
  // States in writeback order: their roles.
  std::vector<std::pair<size_t, size_t>> order;  // (decl index, position)
  for (size_t k = 0; k < slot.states.size(); ++k) {
    const std::string& name = a.producer(slot.states[k]).attrs.name;
    for (size_t w = 0; w < decls.size(); ++w) {
      if (decls[w].destKind == WritebackDecl::Kind::State && decls[w].destName == name) order.push_back({w, k});
    }
  }
  std::sort(order.begin(), order.end());
  std::vector<int> states, news{slot.news[0]};
  for (const auto& [w, k] : order) {
    states.push_back(slot.states[k]);
    news.push_back(slot.news[k + 1]);
  }
  slot.states = std::move(states);
  slot.news = std::move(news);
  slot.ops.assign(ops.begin(), ops.end());
  return std::all_of(slot.news.begin(), slot.news.end(), [&](int t) {
    return ops.contains(a.producerIndex(t));
  });
}

// The update's WGSL statements for one slot, and the helper functions they call.
std::string slotBody(const Graph& g, const OptimizerFold::Slot& slot,
                     const std::map<int, size_t>& scalarIndex, std::set<std::string>& preambles) {
  std::map<int, std::string> value{{slot.param, "p"}, {slot.grad, "g"}};
  std::string body = "        let p = P[j];\n        let g = G[j];\n";
  for (size_t r = 0; r < slot.states.size(); ++r) {
    value[slot.states[r]] = "s" + std::to_string(r);
    body += "        let s" + std::to_string(r) + " = S" + std::to_string(r) + "[j];\n";
  }
  for (const auto& [t, k] : scalarIndex) value[t] = "c" + std::to_string(k) + "[0]";
  size_t n = 0;
  for (int o : slot.ops) {
    const Op& op = g.ops[static_cast<size_t>(o)];
    const OpDef& def = opDef(op.kind);
    std::vector<std::string> in;
    for (int t : op.inputs) in.push_back(value.at(t));
    const std::string v = "v" + std::to_string(n++);
    body += "        let " + v + " = " + def.expr(op, in) + ";\n";
    value[op.out] = v;
    if (!def.exprPreamble.empty()) preambles.insert(def.exprPreamble);
  }
  body += "        P[j] = " + value.at(slot.news[0]) + ";\n";
  for (size_t r = 0; r < slot.states.size(); ++r)
    body += "        S" + std::to_string(r) + "[j] = " + value.at(slot.news[r + 1]) + ";\n";
  return body;
}

// Clipping's squared norm: Σ sum(g·g) over exactly the slots' gradients, as an add chain.
void foldNorm(const Analysis& a, OptimizerFold& f) {
  const Graph& g = a.graph;
  std::set<int> chainOps, sums, muls;
  int lastGradWrite = -1;
  for (const OptimizerFold::Slot& s : f.slots) {
    lastGradWrite = std::max(lastGradWrite, a.producerIndex(s.grad));
    int mul = -1;
    for (int r : a.readers[static_cast<size_t>(s.grad)]) {
      const Op& op = g.ops[static_cast<size_t>(r)];
      if (op.kind == OpKind::Mul && op.inputs[0] == s.grad && op.inputs[1] == s.grad) mul = r;
    }
    if (mul < 0) return;
    // g·g, flattened by reshapes, summed to a scalar.
    int t = g.ops[static_cast<size_t>(mul)].out;
    std::vector<int> path{mul};
    while (a.readers[static_cast<size_t>(t)].size() == 1 && !a.external.contains(t)) {
      const int r = a.readers[static_cast<size_t>(t)][0];
      const Op& op = g.ops[static_cast<size_t>(r)];
      if (op.kind != OpKind::Reshape && op.kind != OpKind::SumLast) break;
      path.push_back(r);
      t = op.out;
      if (op.kind == OpKind::SumLast) break;
    }
    if (g.ops[static_cast<size_t>(path.back())].kind != OpKind::SumLast || !isScalar(g.tensor(t))) return;
    chainOps.insert(path.begin(), path.end());
    sums.insert(t);
    muls.insert(mul);
  }
  // Pair partial sums with Adds until one total is left.
  std::set<int> open = sums;
  bool grew = true;
  while (open.size() > 1 && grew) {
    grew = false;
    for (int t : std::set<int>(open)) {
      if (!open.contains(t) || a.readers[static_cast<size_t>(t)].size() != 1 || a.external.contains(t)) continue;
      const int r = a.readers[static_cast<size_t>(t)][0];
      const Op& op = g.ops[static_cast<size_t>(r)];
      if (op.kind != OpKind::Add || !open.contains(op.inputs[0]) || !open.contains(op.inputs[1]) ||
          op.inputs[0] == op.inputs[1])
        continue;
      open.erase(op.inputs[0]);
      open.erase(op.inputs[1]);
      open.insert(op.out);
      chainOps.insert(r);
      grew = true;
    }
  }
  if (open.size() != 1) return;
  const int stage1 = *muls.rbegin();
  if (stage1 <= lastGradWrite) return;
  f.normTotal = *open.begin();
  f.normStage1Host = stage1;
  f.normStage2Host = a.producerIndex(f.normTotal);
  f.normPartials = (f.arenaBytes[0] / 4 + kNormChunk - 1) / kNormChunk;
  for (int o : chainOps) f.folded[static_cast<size_t>(o)] = 1;
}

// Binary search over the slots' first workgroups: which parameter this workgroup updates (where
// it starts, how long it is, which update rule applies).
std::string slotSearch(const std::vector<const OptimizerFold::Slot*>& slots,
                       const std::vector<int64_t>& firstGroup, size_t lo, size_t hi,
                       const std::string& indent) {
  if (hi - lo == 1) {
    const OptimizerFold::Slot& s = *slots[lo];
    return indent + "startWg = " + u(firstGroup[lo]) + "; offset = " + u(s.at.offset / 4) +
           "; count = " + u(s.elements) + "; rule = " + u(static_cast<int64_t>(s.body)) +
           "; // " + s.name + "\n";
  }
  const size_t mid = (lo + hi) / 2;
  return indent + "if (wg < " + u(firstGroup[mid]) + ") {\n" +
         slotSearch(slots, firstGroup, lo, mid, indent + "  ") + indent + "} else {\n" +
         slotSearch(slots, firstGroup, mid, hi, indent + "  ") + indent + "}\n";
}

std::string storage(int binding, const std::string& name, bool write) {
  return "@group(0) @binding(" + std::to_string(binding) + ") var<storage, " +
         (write ? "read_write" : "read") + "> " + name + " : array<f32>;\n";
}

std::string groupIndex(int64_t groups) {
  return "@compute @workgroup_size(" + std::to_string(kWorkgroupSize) +
         ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid "
         ": u32) {\n  let wg = wid.x + wid.y * " + u(kMaxWorkgroupsPerDim) + ";\n  if (wg >= " +
         u(groups) + ") { return; }\n";
}

KernelSpec updateKernel(const OptimizerFold& f, const BufferPlan& plan, int arena) {
  const OptimizerFold::Buffers& b = f.buffers[static_cast<size_t>(arena)];
  std::vector<const OptimizerFold::Slot*> slots;
  for (const OptimizerFold::Slot& s : f.slots)
    if (s.at.arena == arena) slots.push_back(&s);
  std::sort(slots.begin(), slots.end(), [](auto* x, auto* y) { return x->at.offset < y->at.offset; });
  std::vector<int64_t> firstGroup;
  int64_t groups = 0;
  std::set<size_t> bodies;
  for (const auto* s : slots) {
    firstGroup.push_back(groups);
    groups += (s->elements + kUpdateChunk - 1) / kUpdateChunk;
    bodies.insert(s->body);
  }
  KernelSpec k;
  k.opIndex = f.updateHost[static_cast<size_t>(arena)];
  k.kind = OpKind::AdamUpdateP;
  std::string w = f.preamble + "// fused optimizer: " + std::to_string(slots.size()) +
                  " parameters updated in place, one workgroup per " + std::to_string(kUpdateChunk) +
                  " elements of one\n";
  int binding = 0;
  w += storage(binding++, "G", false);
  k.bindings.push_back(b.grads);
  for (size_t c = 0; c < f.scalars.size(); ++c) {
    w += storage(binding++, "c" + std::to_string(c), false);
    k.bindings.push_back(plan.tensorToBuffer.at(static_cast<size_t>(f.scalars[c])));
  }
  w += storage(binding++, "P", true);
  k.bindings.push_back(b.params);
  for (size_t r = 0; r < f.stateRoles; ++r) {
    w += storage(binding++, "S" + std::to_string(r), true);
    k.bindings.push_back(b.states[r]);
  }
  k.outputs = static_cast<int>(1 + f.stateRoles);
  w += groupIndex(groups);
  w += "  var startWg = 0u;\n  var offset = 0u;\n  var count = 0u;\n  var rule = 0u;\n";
  w += slotSearch(slots, firstGroup, 0, slots.size(), "  ");
  w += "  for (var r = 0u; r < " + u(kElementsPerThread) + "; r = r + 1u) {\n    let e = (wg - startWg) * " +
       u(kUpdateChunk) + " + r * " + u(kWorkgroupSize) + " + lid;\n    if (e < count) {\n      let j = offset + e;\n";
  bool firstBody = true;
  for (size_t body : bodies) {
    const bool branch = bodies.size() > 1;
    if (branch) w += std::string(firstBody ? "      if" : "      else if") + " (rule == " + u(static_cast<int64_t>(body)) + ") {\n";
    w += f.bodies[body];
    if (branch) w += "      }\n";
    firstBody = false;
  }
  w += "    }\n  }\n}\n";
  k.wgsl = std::move(w);
  k.threads = groups * kWorkgroupSize;
  k.loopLength = kElementsPerThread;
  for (const auto* s : slots) {
    k.fusedOps.insert(k.fusedOps.end(), s->ops.begin(), s->ops.end());
    k.viewsRead.push_back(plan.tensorToBuffer.at(static_cast<size_t>(s->grad)));
    k.viewsWritten.push_back(plan.tensorToBuffer.at(static_cast<size_t>(s->param)));
    for (int st : s->states) k.viewsWritten.push_back(plan.tensorToBuffer.at(static_cast<size_t>(st)));
  }
  std::sort(k.fusedOps.begin(), k.fusedOps.end());
  return k;
}

KernelSpec normStage1(const OptimizerFold& f, const BufferPlan& plan) {
  const int64_t n = f.arenaBytes[0] / 4;
  const int64_t groups = (n + kNormChunk - 1) / kNormChunk;
  KernelSpec k;
  k.opIndex = f.normStage1Host;
  k.kind = OpKind::SumLast;
  k.wgsl = "// clip norm, stage 1: Σ g² over the gradient arena, one partial sum per workgroup\n"
           "var<workgroup> partial : array<f32, " + std::to_string(kWorkgroupSize) + ">;\n" +
           storage(0, "G", false) + storage(1, "partials", true) + groupIndex(groups) +
           "  var s = 0.0;\n  for (var r = 0u; r < " + u(kNormChunk / kWorkgroupSize) +
           "; r = r + 1u) {\n    let j = wg * " + u(kNormChunk) + " + r * " + u(kWorkgroupSize) +
           " + lid;\n    if (j < " + u(n) + ") {\n      let x = G[j];\n      s = s + x * x;\n    }\n  }\n" +
           workgroupReduce("partial", "s") + "  if (lid == 0u) { partials[wg] = partial[0]; }\n}\n";
  k.threads = groups * kWorkgroupSize;
  k.loopLength = kNormChunk / kWorkgroupSize;
  k.bindings = {f.buffers[0].grads, f.buffers[0].partials};
  for (const OptimizerFold::Slot& s : f.slots) k.viewsRead.push_back(plan.tensorToBuffer.at(static_cast<size_t>(s.grad)));
  return k;
}

KernelSpec normStage2(const OptimizerFold& f, const BufferPlan& plan, const NormScale* scale) {
  const int64_t partials = f.normPartials;
  KernelSpec k;
  k.opIndex = f.normStage2Host;
  k.kind = OpKind::Add;
  k.wgsl = std::string("// clip norm, stage 2: the partial sums added up") +
           (scale ? ", and the clip scale from them\n" + scale->wgsl : "\n") +
           "var<workgroup> partial : array<f32, " + std::to_string(kWorkgroupSize) + ">;\n" +
           storage(0, "partials", false) + storage(1, "out", true) +
           (scale ? storage(2, "out2", true) : "") + groupIndex(1) +
           "  var s = 0.0;\n  for (var j = lid; j < " + u(partials) + "; j = j + " +
           u(kWorkgroupSize) + ") { s = s + partials[j]; }\n" + workgroupReduce("partial", "s") +
           "  if (lid == 0u) {\n    out[0] = partial[0];\n" +
           (scale ? "    out2[0] = second(0u, partial[0]);\n" : "") + "  }\n}\n";
  k.threads = kWorkgroupSize;
  k.loopLength = (partials + kWorkgroupSize - 1) / kWorkgroupSize;
  k.bindings = {f.buffers[0].partials, plan.tensorToBuffer.at(static_cast<size_t>(f.normTotal))};
  if (scale) {
    k.bindings.push_back(scale->buffer);
    k.outputs = 2;
    k.fusedOps = scale->group;
  }
  return k;
}

}  // namespace

std::shared_ptr<OptimizerFold> foldOptimizer(
    const Graph& graph, const ParamGrads& grads, const std::vector<WritebackDecl>& decls,
    const std::vector<std::pair<std::string, int64_t>>& paramOrder) {
  if (decls.empty() || grads.empty()) return nullptr;
  const Analysis a(graph);
  auto f = std::make_shared<OptimizerFold>();
  f->folded.assign(graph.ops.size(), 0);
  f->inPlaceDecl.assign(decls.size(), 0);

  std::map<std::string, int> paramTensor, gradTensor;
  for (const Op& op : graph.ops)
    if (op.kind == OpKind::ParamInput) paramTensor[op.attrs.name] = op.out;
  std::set<int> gradIds;
  for (const auto& [name, id] : grads) {
    if (!gradIds.insert(id).second) return nullptr;  // one gradient for two params
    gradTensor[name] = id;
  }
  // The layout the runtime uses.
  std::vector<std::pair<std::string, int64_t>> order = paramOrder;
  if (order.empty()) {
    for (const Op& op : graph.ops)
      if (op.kind == OpKind::ParamInput) order.emplace_back(op.attrs.name, shapeSize(graph.tensor(op.out).shape));
  }
  std::vector<int64_t> bytes;
  for (const auto& [name, n] : order) bytes.push_back(std::max<int64_t>(4, n * 4));
  const ArenaLayout layout = layoutArenas(bytes);
  f->arenaBytes = layout.arenaBytes;

  std::map<int, size_t> scalarIndex;
  std::set<int> taken;
  for (size_t w = 0; w < decls.size(); ++w) {
    if (decls[w].destKind != WritebackDecl::Kind::Param) continue;
    OptimizerFold::Slot s;
    s.name = decls[w].destName;
    if (!paramTensor.contains(s.name) || !gradTensor.contains(s.name)) return nullptr;
    s.param = paramTensor[s.name];
    s.grad = gradTensor[s.name];
    if (graph.tensor(s.param).dtype != Dtype::F32 || graph.tensor(s.grad).shape != graph.tensor(s.param).shape)
      return nullptr;
    const OpKind gradFrom = a.producer(s.grad).kind;
    if (gradFrom == OpKind::ParamInput || gradFrom == OpKind::TensorInput || gradFrom == OpKind::StateInput)
      return nullptr;  // the gradient must be a value a kernel writes into its arena slot
    s.elements = shapeSize(graph.tensor(s.param).shape);
    size_t p = 0;
    while (p < order.size() && order[p].first != s.name) ++p;
    if (p == order.size() || order[p].second != s.elements) return nullptr;
    s.at = layout.places[p];
    f->inPlaceDecl[w] = 1;
    s.news = {decls[w].source};
    if (!traceSlot(a, s, decls, f->inPlaceDecl, scalarIndex, f->scalars)) return nullptr;
    for (int o : s.ops) {
      if (!taken.insert(o).second) return nullptr;  // two slots share an op
    }
    f->slots.push_back(std::move(s));
  }
  if (f->slots.empty()) return nullptr;
  if (std::find(f->inPlaceDecl.begin(), f->inPlaceDecl.end(), 0) != f->inPlaceDecl.end())
    return nullptr;  // a writeback outside every update
  f->stateRoles = f->slots[0].states.size();
  // G, the scalars, P and the states within WebGPU's 8 storage buffers.
  if (2 + f->scalars.size() + f->stateRoles > kMaxStorageBuffersPerKernel) return nullptr;
  std::set<std::string> preambles;
  std::map<std::string, size_t> bodyIndex;
  f->updateHost.assign(f->arenaBytes.size(), -1);
  for (OptimizerFold::Slot& s : f->slots) {
    if (s.states.size() != f->stateRoles) return nullptr;
    for (size_t r = 0; r < s.states.size(); ++r) {  // an arena starts at one initial value
      if (a.producer(s.states[r]).attrs.initValue != a.producer(f->slots[0].states[r]).attrs.initValue)
        return nullptr;
    }
    const std::string body = slotBody(graph, s, scalarIndex, preambles);
    auto [it, fresh] = bodyIndex.emplace(body, f->bodies.size());
    if (fresh) f->bodies.push_back(body);
    s.body = it->second;
    for (int o : s.ops) f->folded[static_cast<size_t>(o)] = 1;
    int& host = f->updateHost[static_cast<size_t>(s.at.arena)];
    host = std::max(host, *std::max_element(s.ops.begin(), s.ops.end()));
  }
  for (const std::string& p : preambles) f->preamble += p;
  // The update overwrites parameters and moments in place, so it must come after every other
  // reader of them and of the gradients in op order (the schedule keeps that order).
  for (const OptimizerFold::Slot& s : f->slots) {
    const int host = f->updateHost[static_cast<size_t>(s.at.arena)];
    for (int t : {s.param, s.grad}) {
      for (int r : a.readers[static_cast<size_t>(t)])
        if (r > host) return nullptr;
    }
    if (a.external.contains(s.param) || a.external.contains(s.grad)) return nullptr;
  }
  if (f->arenaBytes.size() == 1) foldNorm(a, *f);
  return f;
}

NormScale foldNormScale(const Graph& graph, const BufferUse& use, const OptimizerFold& fold,
                        const std::vector<std::vector<int>>& groups) {
  const int total = fold.normTotal, host = fold.normStage2Host;
  if (total < 0 || host < 0) return {};
  const std::set<int>& readers = use.readers(total);
  for (size_t end = 0; end < groups.size(); ++end) {
    const std::vector<int>& group = groups[end];
    if (std::none_of(group.begin(), group.end(), [&](int m) { return readers.contains(m); }))
      continue;  // (a group reading the total comes after the host, which writes it)
    const int out = graph.ops[end].out;
    const bool whole = std::all_of(readers.begin(), readers.end(), [&](int r) {
      return std::binary_search(group.begin(), group.end(), r);
    });
    // The host's own op stands for the second stage, which reads the partials and writes the
    // total alone (the add chain it replaces touches no buffer): the scale may share neither.
    const int buffer = use.bufferOf(out);
    if (!whole || graph.tensor(out).dtype != Dtype::F32 || shapeSize(graph.tensor(out).shape) != 1 ||
        !readsOnlyStoredValue(graph, total, group) || buffer == use.bufferOf(total) ||
        buffer == fold.buffers.at(0).partials ||
        !use.idle(out, host + 1, static_cast<int>(end), group))
      return {};
    return {group, secondOutputFunction(graph, total, group), buffer};
  }
  return {};
}

std::optional<KernelSpec> foldedOptimizerKernel(const OptimizerFold& fold, const BufferPlan& plan,
                                                int opIndex, const NormScale* scale) {
  for (size_t arena = 0; arena < fold.updateHost.size(); ++arena) {
    if (fold.updateHost[arena] == opIndex) return updateKernel(fold, plan, static_cast<int>(arena));
  }
  if (opIndex == fold.normStage1Host) return normStage1(fold, plan);
  if (opIndex == fold.normStage2Host) return normStage2(fold, plan, scale);
  return std::nullopt;
}

}  // namespace tg::detail
