#include "fuse_elementwise.h"

#include <algorithm>
#include <set>

#include "../ops/op_registry.h"
#include "fused_chain.h"

namespace tg::detail {
namespace {

bool valueTyped(Dtype d) {
  return d == Dtype::F32 || d == Dtype::Bool;
}

}  // namespace

std::vector<int> groupEnds(const std::vector<std::vector<int>>& groups) {
  std::vector<int> end(groups.size(), -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int m : groups[g]) end[static_cast<size_t>(m)] = static_cast<int>(g);
  return end;
}

bool inGroup(const std::vector<int>& group, int op) {
  return std::find(group.begin(), group.end(), op) != group.end();
}

bool fusable(const Graph& graph, int i, const std::vector<bool>& elsewhere) {
  const Op& op = graph.ops[static_cast<size_t>(i)];
  if (!elsewhere.empty() && elsewhere[static_cast<size_t>(i)]) return false;
  if (!opDef(op.kind).expr || !valueTyped(graph.tensor(op.out).dtype)) return false;
  return std::all_of(op.inputs.begin(), op.inputs.end(),
                     [&](int t) { return valueTyped(graph.tensor(t).dtype); });
}

bool readableAt(const Graph& graph, const BufferUse& use, const std::vector<int>& group, int at) {
  for (int m : group) {
    for (int in : graph.ops[static_cast<size_t>(m)].inputs) {
      const int src = *graph.tensor(in).source;
      const bool inside = std::find(group.begin(), group.end(), src) != group.end();
      if (!inside && !use.untouched(in, m, at)) return false;
    }
  }
  return true;
}

std::vector<std::vector<int>> fuseGroups(const Graph& graph, const BufferUse& use,
                                         const std::vector<bool>& elsewhere) {
  const size_t n = graph.ops.size();
  const auto fusable = [&](int i) { return detail::fusable(graph, i, elsewhere); };
  // Distinct values a kernel computing `ops` reads from buffers.
  const auto externalInputs = [&](const std::vector<int>& ops) {
    std::set<int> outside;
    for (int m : ops) {
      for (int t : graph.ops[static_cast<size_t>(m)].inputs) {
        if (std::find(ops.begin(), ops.end(), *graph.tensor(t).source) == ops.end()) outside.insert(t);
      }
    }
    return outside.size();
  };

  std::vector<std::vector<int>> members(n);
  for (size_t i = 0; i < n; ++i) members[i] = {static_cast<int>(i)};
  // Whether the kernel computing `group` may compute value `t` (produced by the standing group
  // of op p) in registers instead of reading it: the group alone reads it, it is kept nowhere
  // else, and each reader takes it at a shape that costs no recomputation per element, except a
  // single element (a scalar chain, such as a loss's seed gradient scaled by the mean, is cheaper
  // recomputed than dispatched).
  const auto absorbable = [&](int t, int p, const std::vector<int>& group) {
    if (!fusable(p) || members[static_cast<size_t>(p)].empty() || !use.transientWithin(t, group))
      return false;
    const bool scalar = shapeSize(graph.tensor(t).shape) == 1;
    return std::all_of(group.begin(), group.end(), [&](int r) {
      const Op& reader = graph.ops[static_cast<size_t>(r)];
      if (std::find(reader.inputs.begin(), reader.inputs.end(), t) == reader.inputs.end()) return true;
      // A reshape or permute maps its output's elements one to one onto its input's.
      const bool bijective = reader.kind == OpKind::Reshape || reader.kind == OpKind::Permute;
      return bijective || scalar || graph.tensor(t).shape == graph.tensor(reader.out).shape;
    });
  };
  for (size_t i = 0; i < n; ++i) {
    const int op = static_cast<int>(i);
    // A reshape living in its input's buffer ends no group: a group of such reshapes alone
    // would copy a buffer onto itself. Later groups still take it in as indexing.
    if (!fusable(op) || use.aliasedReshape(graph.ops[i])) continue;
    // Grow the group from op i's inputs to whatever its members alone read (a value read by two
    // members, as in a product rule's g·x + x·g, joins once both readers are in).
    for (bool grew = true; grew;) {
      grew = false;
      std::set<int> inputs;
      for (int m : members[i])
        for (int t : graph.ops[static_cast<size_t>(m)].inputs)
          if (!std::binary_search(members[i].begin(), members[i].end(), *graph.tensor(t).source))
            inputs.insert(t);
      for (int t : inputs) {
        const int p = *graph.tensor(t).source;
        if (!absorbable(t, p, members[i])) continue;
        // Every outside value the producer's kernel reads must survive until this op runs (no op
        // in between, this one included, overwrites its buffer).
        const std::vector<int>& group = members[static_cast<size_t>(p)];
        if (!readableAt(graph, use, group, op)) continue;
        std::vector<int> merged = members[i];
        merged.insert(merged.end(), group.begin(), group.end());
        std::sort(merged.begin(), merged.end());
        // Stay within WebGPU's default maxStorageBuffersPerShaderStage (8, the output included),
        // so fused kernels remain valid on every browser.
        if (externalInputs(merged) + 1 > kMaxStorageBuffersPerKernel) continue;
        members[i] = std::move(merged);
        members[static_cast<size_t>(p)].clear();
        grew = true;
        break;  // the group's inputs changed
      }
    }
  }
  return members;
}

namespace {

KernelSpec kernelOf(const Graph& graph, const BufferPlan& plan, const std::vector<int>& ops,
                    const FusedChain& chain, const std::string& outType, int64_t threads,
                    const std::string& body) {
  const Op& last = graph.ops[static_cast<size_t>(ops.back())];
  KernelSpec k;
  k.opIndex = ops.back();
  k.kind = last.kind;  // the op whose place and output it takes (tools align kernels by it)
  k.fusedOps = ops.size() > 1 ? ops : std::vector<int>{};
  k.threads = threads;
  const bool vec4 = outType.starts_with("vec4");
  k.wgsl = chain.preamble() + "// fused: " + std::to_string(ops.size()) + " element-wise ops" +
           (vec4 ? ", 4 elements an invocation" : "") + "\n" + chain.bindings(vec4) +
           "@group(0) @binding(" + std::to_string(chain.external().size()) +
           ") var<storage, read_write> out : array<" + outType + ">;\n" +
           "@compute @workgroup_size(" + std::to_string(kWorkgroupSize) +
           ")\nfn main(@builtin(global_invocation_id) gid : vec3<u32>) {\n  let i = gid.x + gid.y * " +
           u(int64_t{kMaxWorkgroupsPerDim} * kWorkgroupSize) + ";\n  if (i >= " + u(threads) +
           ") { return; }\n" + body + "}\n";
  for (int t : chain.external()) k.bindings.push_back(plan.tensorToBuffer.at(static_cast<size_t>(t)));
  k.bindings.push_back(plan.tensorToBuffer.at(static_cast<size_t>(last.out)));
  return k;
}

}  // namespace

std::optional<KernelSpec> vec4Kernel(const Graph& graph, const BufferPlan& plan,
                                     const std::vector<int>& ops) {
  if (ops.empty()) return std::nullopt;
  const Op& last = graph.ops[static_cast<size_t>(ops.back())];
  const TensorInfo& out = graph.tensor(last.out);
  const int64_t size = shapeSize(out.shape);
  if (out.dtype != Dtype::F32 || size == 0 || size % 4 != 0) return std::nullopt;
  for (int m : ops)
    if (!fusable(graph, m)) return std::nullopt;
  FusedChain probe(graph, ops, 0);
  probe.value(last.out, "i");
  if (!probe.readsOnlyAt("i")) return std::nullopt;
  for (int t : probe.external())
    if (graph.tensor(t).dtype != Dtype::F32) return std::nullopt;
  FusedChain chain(graph, ops, 0);
  std::string lanes;
  for (const char* lane : {"x", "y", "z", "w"})
    lanes += (lanes.empty() ? "" : ", ") + chain.value(last.out, "i", lane);
  return kernelOf(graph, plan, ops, chain, "vec4<f32>", size / 4,
                  chain.vec4Loads("i") + chain.body() + "  out[i] = vec4<f32>(" + lanes + ");\n");
}

KernelSpec fusedKernel(const Graph& graph, const BufferPlan& plan, const std::vector<int>& ops) {
  const Op& last = graph.ops[static_cast<size_t>(ops.back())];
  const TensorInfo& out = graph.tensor(last.out);
  FusedChain chain(graph, ops, 0);
  const std::string result = chain.value(last.out, "i");
  return kernelOf(graph, plan, ops, chain, wgslType(out.dtype), shapeSize(out.shape),
                  chain.body() + "  out[i] = " + result + ";\n");
}

}  // namespace tg::detail
