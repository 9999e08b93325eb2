#include "tensorgrad/codegen.h"

#include <algorithm>
#include <set>

#include "../ops/matmul_fast.h"
#include "../ops/op_registry.h"
#include "buffer_use.h"
#include "fold_identity_sum.h"
#include "fold_optimizer.h"
#include "fold_transpose.h"

namespace tg {

std::array<uint32_t, 2> KernelSpec::dispatch() const {
  if (threads == 0) return {0, 0};
  const int64_t groups = (threads + workgroupSize - 1) / workgroupSize;
  if (groups <= kMaxWorkgroupsPerDim) return {static_cast<uint32_t>(groups), 1};
  return {kMaxWorkgroupsPerDim,
          static_cast<uint32_t>((groups + kMaxWorkgroupsPerDim - 1) / kMaxWorkgroupsPerDim)};
}

namespace {

int bufferOf(const BufferPlan& plan, int tensor) {
  return plan.tensorToBuffer.at(static_cast<size_t>(tensor));
}

bool valueTyped(Dtype d) {
  return d == Dtype::F32 || d == Dtype::Bool;
}

// Which ops join which kernel: members[i] lists the ops the kernel at op i computes (empty when
// op i was folded into a later kernel).
std::vector<std::vector<int>> fuseGroups(const Graph& graph, const detail::BufferUse& use,
                                        const detail::OptimizerFold* fold) {
  const size_t n = graph.ops.size();
  const auto fusable = [&](int i) {
    if (fold && fold->folded[static_cast<size_t>(i)]) return false;  // the optimizer's own kernel
    const Op& op = graph.ops[static_cast<size_t>(i)];
    if (!detail::opDef(op.kind).expr || !valueTyped(graph.tensor(op.out).dtype)) return false;
    return std::all_of(op.inputs.begin(), op.inputs.end(),
                       [&](int t) { return valueTyped(graph.tensor(t).dtype); });
  };
  // The value may stay in registers: read once, by `reader` only, and kept nowhere else.
  const auto transient = [&](int t, int reader) { return use.transient(t, reader); };
  // Delaying a read from op `from` to op `to` is safe while no op in between overwrites its buffer.
  const auto untouched = [&](int t, int from, int to) { return use.untouched(t, from, to); };

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
  for (size_t i = 0; i < n; ++i) {
    const int op = static_cast<int>(i);
    if (!fusable(op)) continue;
    const Shape& outShape = graph.tensor(graph.ops[i].out).shape;
    for (int t : std::set<int>(graph.ops[i].inputs.begin(), graph.ops[i].inputs.end())) {
      const int p = *graph.tensor(t).source;
      if (!fusable(p) || members[static_cast<size_t>(p)].empty() ||
          graph.tensor(t).shape != outShape || !transient(t, op))
        continue;
      // Every outside value the producer's kernel reads must survive until this op runs.
      bool safe = true;
      for (int m : members[static_cast<size_t>(p)]) {
        for (int in : graph.ops[static_cast<size_t>(m)].inputs) {
          const int src = *graph.tensor(in).source;
          const bool inside = std::find(members[static_cast<size_t>(p)].begin(),
                                        members[static_cast<size_t>(p)].end(),
                                        src) != members[static_cast<size_t>(p)].end();
          if (!inside && !untouched(in, m, op)) safe = false;
        }
      }
      if (!safe) continue;
      std::vector<int> merged = members[i];
      merged.insert(merged.end(), members[static_cast<size_t>(p)].begin(),
                    members[static_cast<size_t>(p)].end());
      std::sort(merged.begin(), merged.end());
      // Stay within WebGPU's default maxStorageBuffersPerShaderStage (8, the output included),
      // so fused kernels remain valid on every browser.
      if (externalInputs(merged) + 1 > kMaxStorageBuffersPerKernel) continue;
      members[i] = std::move(merged);
      members[static_cast<size_t>(p)].clear();
    }
  }
  return members;
}

KernelSpec fusedKernel(const Graph& graph, const BufferPlan& plan, const std::vector<int>& ops) {
  const Op& last = graph.ops[static_cast<size_t>(ops.back())];
  const TensorInfo& out = graph.tensor(last.out);
  std::vector<int> external;
  std::string preamble, body;
  std::set<std::string> preambles;
  std::map<int, std::string> value;                 // tensor computed in the kernel → WGSL value
  std::map<int, std::string> array;                 // tensor read from a buffer → its binding
  std::map<std::pair<int, bool>, std::string> read;  // (that tensor, flat index) → WGSL value
  std::string bindings;
  for (int m : ops) {
    const Op& op = graph.ops[static_cast<size_t>(m)];
    const detail::OpDef& def = detail::opDef(op.kind);
    std::vector<std::string> in;
    for (int t : op.inputs) {
      if (value.contains(t)) {  // members run in op order: producers come first
        in.push_back(value[t]);
        continue;
      }
      if (!array.contains(t)) {
        const std::string k = std::to_string(external.size());
        bindings += "@group(0) @binding(" + k + ") var<storage, read> in" + k + " : array<" +
                    detail::wgslType(graph.tensor(t).dtype) + ">;\n";
        array[t] = "in" + k;
        external.push_back(t);
      }
      // Element-wise ops read inputs broadcast to the output; a reshape reads its input in the
      // output's flat order.
      const bool flat = op.kind == OpKind::Reshape;
      if (!read.contains({t, flat})) {
        const std::string ix = "ix" + array[t].substr(2) + (flat ? "f" : "");
        body += flat ? "  let " + ix + " = i;\n"
                     : detail::broadcastIndex(ix, out.shape, graph.tensor(t).shape);
        read[{t, flat}] = array[t] + "[" + ix + "]";
      }
      in.push_back(read[{t, flat}]);
    }
    if (!def.exprPreamble.empty() && preambles.insert(def.exprPreamble).second)
      preamble += def.exprPreamble;
    const std::string v = "v" + std::to_string(m);
    body += "  let " + v + " = " + def.expr(op, in) + ";\n";
    value[op.out] = v;
  }
  bindings += "@group(0) @binding(" + std::to_string(external.size()) +
              ") var<storage, read_write> out : array<" + detail::wgslType(out.dtype) + ">;\n";
  body += "  out[i] = " + value[last.out] + ";\n";
  KernelSpec k;
  k.opIndex = ops.back();
  k.kind = last.kind;
  k.fusedOps = ops;
  k.threads = shapeSize(out.shape);
  k.wgsl =
      preamble + "// fused: " + std::to_string(ops.size()) + " element-wise ops\n" + bindings +
      "@compute @workgroup_size(" + std::to_string(kWorkgroupSize) +
      ")\nfn main(@builtin(global_invocation_id) gid : vec3<u32>) {\n  let i = gid.x + gid.y * " +
      detail::u(int64_t{kMaxWorkgroupsPerDim} * kWorkgroupSize) +
      ";\n  if (i >= " + detail::u(k.threads) + ") { return; }\n" + body + "}\n";
  for (int t : external) k.bindings.push_back(bufferOf(plan, t));
  k.bindings.push_back(bufferOf(plan, last.out));
  return k;
}

int64_t loopLength(const Graph& graph, const Op& op, int64_t threads) {
  // A matmul's threads share K among them: all of it per output, or K / 256 when a workgroup
  // sums each output.
  if (op.kind == OpKind::Matmul || op.kind == OpKind::MatmulBatched)
    return graph.tensor(op.inputs[0]).shape.back() * shapeSize(graph.tensor(op.out).shape) /
           std::max<int64_t>(threads, 1);
  // Otherwise a thread reads about (input elements / threads) values of its largest input.
  int64_t most = 1;
  for (int in : op.inputs) most = std::max(most, shapeSize(graph.tensor(in).shape) / std::max<int64_t>(threads, 1));
  return most;
}

// A fast matmul with folded neighbours: operands read through folded permutes
// (fold_transpose.h) bind the permutes' inputs, read transposed; with a folded identity
// sum_to_shape `sumOp` (fold_identity_sum.h) the kernel stands at the copy's place and writes
// the copy's buffer. fusedOps lists every op it computes, so tools show them as one kernel.
KernelSpec foldedMatmulKernel(const Graph& graph, const BufferPlan& plan, int opIndex,
                              const std::array<int, 2>& permutes, int sumOp) {
  const Op& op = graph.ops[static_cast<size_t>(opIndex)];
  const detail::OpDef& def = detail::opDef(op.kind);
  const detail::KernelArgs args{op, graph, def};
  detail::MatmulProblem p = detail::matmulProblem(args, op.kind == OpKind::MatmulBatched);
  p.transA = permutes[0] >= 0;
  p.transB = permutes[1] >= 0;
  const detail::KernelSource src = detail::fastMatmulKernel(p);
  KernelSpec k;
  k.opIndex = sumOp >= 0 ? sumOp : opIndex;
  k.kind = op.kind;
  k.wgsl = src.wgsl;
  k.threads = src.threads;
  k.workgroupSize = src.workgroupSize;
  k.loopLength = loopLength(graph, op, k.threads);
  for (size_t i = 0; i < 2; ++i) {
    const int perm = permutes[i];
    k.bindings.push_back(
        bufferOf(plan, perm >= 0 ? graph.ops[static_cast<size_t>(perm)].inputs[0] : op.inputs[i]));
    if (perm >= 0) k.fusedOps.push_back(perm);
  }
  std::sort(k.fusedOps.begin(), k.fusedOps.end());
  k.fusedOps.erase(std::unique(k.fusedOps.begin(), k.fusedOps.end()), k.fusedOps.end());
  k.fusedOps.push_back(opIndex);
  if (sumOp >= 0) k.fusedOps.push_back(sumOp);
  k.bindings.push_back(bufferOf(plan, sumOp >= 0 ? graph.ops[static_cast<size_t>(sumOp)].out : op.out));
  return k;
}

}  // namespace

std::vector<KernelSpec> emitKernels(const Graph& graph, const BufferPlan& plan,
                                    EmitOptions options) {
  const detail::BufferUse use(graph, plan);
  std::vector<std::vector<int>> groups;
  const bool fuse = options.fuseElementwise || options.kernels == KernelSet::Fast;
  const detail::OptimizerFold* fold = plan.optimizerFold.get();
  if (fuse) groups = fuseGroups(graph, use, fold);
  detail::TransposeFolds folds;
  std::vector<int> sumOf, sumFrom;  // matmul → identity sum_to_shape it computes, and back
  if (options.kernels == KernelSet::Fast) {
    folds = detail::foldTransposes(graph, use);
    sumOf = detail::foldIdentitySums(graph, use, folds.permuteOf);
    sumFrom.assign(graph.ops.size(), -1);
    for (size_t m = 0; m < sumOf.size(); ++m)
      if (sumOf[m] >= 0) sumFrom[static_cast<size_t>(sumOf[m])] = static_cast<int>(m);
  }
  std::vector<KernelSpec> kernels;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (fold && fold->folded[i]) {
      KernelSpec k{.opIndex = static_cast<int>(i), .kind = op.kind};
      if (auto hosted = detail::foldedOptimizerKernel(*fold, plan, static_cast<int>(i))) {
        k = std::move(*hosted);
        k.kind = op.kind;
      }
      kernels.push_back(std::move(k));
      continue;
    }
    if (fuse && groups[i].size() > 1) {
      kernels.push_back(fusedKernel(graph, plan, groups[i]));
      continue;
    }
    if (!sumOf.empty() && sumOf[i] >= 0) {  // computed at its sum_to_shape's place
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (!sumFrom.empty() && sumFrom[i] >= 0) {
      const int m = sumFrom[i];
      kernels.push_back(foldedMatmulKernel(graph, plan, m, folds.permuteOf[static_cast<size_t>(m)],
                                           static_cast<int>(i)));
      continue;
    }
    if (!folds.permuteOf.empty() && folds.permuteOf[i] != std::array<int, 2>{-1, -1}) {
      kernels.push_back(
          foldedMatmulKernel(graph, plan, static_cast<int>(i), folds.permuteOf[i], -1));
      continue;
    }
    const detail::OpDef& def = detail::opDef(op.kind);
    KernelSpec k;
    k.opIndex = static_cast<int>(i);
    k.kind = op.kind;
    const bool folded = !folds.folded.empty() && folds.folded[i];
    if (def.kernel && !folded && !use.aliasedReshape(op) && !(fuse && groups[i].empty())) {
      const detail::KernelArgs args{op, graph, def};
      detail::KernelSource src;
      if (options.kernels == KernelSet::Fast && def.fastKernel) src = def.fastKernel(args);
      if (src.wgsl.empty()) src = def.kernel(args);
      k.wgsl = std::move(src.wgsl);
      k.threads = src.threads;
      k.workgroupSize = src.workgroupSize;
      k.loopLength = loopLength(graph, op, k.threads);
      for (int in : op.inputs) k.bindings.push_back(bufferOf(plan, in));
      k.bindings.push_back(bufferOf(plan, op.out));
    }
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace tg
