#include "fold_row_softmax.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "../ops/matmul_fast.h"
#include "../ops/op_registry.h"
#include "fold_epilogue.h"
#include "fold_transpose.h"
#include "folded_matmul.h"
#include "fuse_elementwise.h"

namespace tg::detail {
namespace {

// The problem `f` computes, or nullopt where the tiled form cannot take it.
std::optional<MatmulProblem> problemOf(const Graph& graph, const RowSoftmaxFold& f,
                                       const std::vector<std::array<int, 2>>& permuteOf,
                                       int64_t workgroupBytes) {
  MatmulProblem p =
      foldedProblem(graph, f.product, permutesOf(permuteOf, f.product), {}, workgroupBytes, false);
  p.rowSoftmax = RowSoftmax{.causal = f.causal};
  std::vector<int> external;
  if (!f.pre.empty()) p.epilogue = matmulEpilogue(graph, f.product, f.pre, external);
  if (!f.tail.empty()) p.epilogue = matmulEpilogue(graph, f.gradientEnd, f.tail, external);
  if (!external.empty()) return std::nullopt;
  if (!rowSoftmaxUnsupported(p, chooseTiling(p)).empty()) return std::nullopt;
  return p;
}

// The one op reading `t`, where it is of `kind` and in `group`; else -1.
int onlyReader(const Graph& graph, const BufferUse& use, int t, OpKind kind,
               const std::vector<int>& group) {
  const std::set<int>& readers = use.readers(t);
  if (readers.size() != 1) return -1;
  const int r = *readers.begin();
  return graph.ops[static_cast<size_t>(r)].kind == kind && inGroup(group, r) ? r : -1;
}

// A row kernel's ops (`group`, in op order) as a softmax's gradient through a product, else
// nullopt (see foldRowSoftmaxes).
std::optional<RowSoftmaxFold> gradientIn(const Graph& graph, const BufferUse& use,
                                         const std::vector<int>& group) {
  const auto op = [&](int m) -> const Op& { return graph.ops[static_cast<size_t>(m)]; };
  int sum = -1;
  for (const int m : group) {
    if (op(m).kind != OpKind::SumLast) continue;
    if (sum >= 0) return std::nullopt;
    sum = m;
  }
  if (sum < 0) return std::nullopt;
  const std::optional<int> gyAt = graph.tensor(op(sum).inputs[0]).source;
  if (!gyAt || op(*gyAt).kind != OpKind::Mul || !inGroup(group, *gyAt)) return std::nullopt;
  const int gy = *gyAt;
  const int reshape = onlyReader(graph, use, op(sum).out, OpKind::Reshape, group);
  if (reshape < 0) return std::nullopt;
  const int spread = onlyReader(graph, use, op(reshape).out, OpKind::BroadcastTo, group);
  if (spread < 0) return std::nullopt;
  const int sub = onlyReader(graph, use, op(spread).out, OpKind::Sub, group);
  if (sub < 0 || op(sub).inputs[1] != op(spread).out) return std::nullopt;
  const int g = op(sub).inputs[0];
  const std::vector<int>& gyIn = op(gy).inputs;
  if (gyIn[0] != g && gyIn[1] != g) return std::nullopt;
  const int y = gyIn[0] == g ? gyIn[1] : gyIn[0];
  const int times = onlyReader(graph, use, op(sub).out, OpKind::Mul, group);
  if (times < 0 || y == g) return std::nullopt;
  const std::vector<int>& tIn = op(times).inputs;
  if (!((tIn[0] == op(sub).out && tIn[1] == y) || (tIn[1] == op(sub).out && tIn[0] == y)))
    return std::nullopt;
  // Shapes: g and y alike, the row sum broadcast back from [..., 1].
  const Shape& shape = graph.tensor(g).shape;
  Shape column = shape;
  if (column.empty()) return std::nullopt;
  column.back() = 1;
  if (graph.tensor(y).shape != shape || graph.tensor(op(reshape).out).shape != column ||
      graph.tensor(op(spread).out).shape != shape || graph.tensor(g).dtype != Dtype::F32 ||
      graph.tensor(y).dtype != Dtype::F32)
    return std::nullopt;
  // g is a product nothing else reads.
  const std::optional<int> product = graph.tensor(g).source;
  if (!product || !isMatmul(op(*product).kind) || !use.transientWithin(g, {gy, sub}))
    return std::nullopt;
  RowSoftmaxFold f{.causal = false,
                   .product = *product,
                   .ops = group,
                   .gradientEnd = times,
                   .y = y,
                   .place = group.back()};
  for (const int m : group)
    if (m != gy && m != sum && m != reshape && m != spread && m != sub && m != times) {
      if (m < times) return std::nullopt;
      f.tail.push_back(m);
    }
  if (!f.tail.empty() && epiloguePath(graph, times, f.tail).empty()) return std::nullopt;
  if (f.tail.empty() && times != group.back()) return std::nullopt;
  return f;
}

// The softmax of a product's rows at op `s`, else nullopt (see foldRowSoftmaxes).
std::optional<RowSoftmaxFold> causalAt(const Graph& graph, const BufferUse& use, size_t s,
                                       const std::vector<std::vector<int>>& groups,
                                       const std::vector<int>& epilogueOf,
                                       const std::vector<int>& epilogueFrom,
                                       const std::vector<bool>& elsewhere) {
  const auto [product, end] =
      softmaxScores(graph, use, static_cast<int>(s), groups, epilogueOf, epilogueFrom, elsewhere);
  if (product < 0) return std::nullopt;
  RowSoftmaxFold f{.causal = true,
                   .product = product,
                   .ops = {static_cast<int>(s)},
                   .place = static_cast<int>(s)};
  if (end != product) f.pre = groups[static_cast<size_t>(end)];
  return f;
}

// Every op the kernel computes but the place, and its folded permutes.
std::vector<int> opsOf(const RowSoftmaxFold& f, const std::vector<std::array<int, 2>>& permuteOf) {
  std::vector<int> ops{f.product};
  for (const int p : permutesOf(permuteOf, f.product))
    if (p >= 0) ops.push_back(p);
  ops.insert(ops.end(), f.pre.begin(), f.pre.end());
  ops.insert(ops.end(), f.ops.begin(), f.ops.end());
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  return ops;
}

}  // namespace

RowSoftmaxFolds foldRowSoftmaxes(const Graph& graph, const BufferUse& use,
                                 const std::vector<std::vector<int>>& groups, const RowFusion& rows,
                                 const std::vector<int>& epilogueOf,
                                 const std::vector<int>& epilogueFrom,
                                 const std::vector<bool>& elsewhere, const std::vector<bool>& taken,
                                 const std::vector<std::array<int, 2>>& permuteOf,
                                 int64_t workgroupBytes, bool cpuDevice) {
  const size_t count = graph.ops.size();
  RowSoftmaxFolds r(count);
  if (cpuDevice || groups.empty() || epilogueOf.empty()) return r;
  const auto free = [&](int m) { return !taken[static_cast<size_t>(m)] && r.free(m); };
  for (size_t i = 0; i < count; ++i) {
    std::optional<RowSoftmaxFold> f;
    if (const auto row = rows.kernels.find(static_cast<int>(i)); row != rows.kernels.end()) {
      // One output: the row kernel writes its last op's value alone.
      if (row->second.outputs == 1) f = gradientIn(graph, use, row->second.fusedOps);
    } else {
      f = causalAt(graph, use, i, groups, epilogueOf, epilogueFrom, elsewhere);
    }
    if (!f) continue;
    const std::vector<int> ops = opsOf(*f, permuteOf);
    if (!std::all_of(ops.begin(), ops.end(), free) || !free(f->place)) continue;
    // The operands are read at the place instead of the product's op.
    bool safe = true;
    for (const int t : operandSources(graph, f->product, permutesOf(permuteOf, f->product)))
      safe = safe && use.untouched(t, f->product, f->place);
    if (!safe || !problemOf(graph, *f, permuteOf, workgroupBytes)) continue;
    const int place = f->place;
    r.add(std::move(*f), place, ops);
  }
  return r;
}

KernelSpec rowSoftmaxKernel(const Graph& graph, const BufferPlan& plan, const RowSoftmaxFold& fold,
                            const std::vector<std::array<int, 2>>& permuteOf,
                            int64_t workgroupBytes) {
  const std::optional<MatmulProblem> p = problemOf(graph, fold, permuteOf, workgroupBytes);
  if (!p) throw std::logic_error("rowSoftmaxKernel: the fold no longer fits the kernel");
  const KernelSource src = fastMatmulKernel(*p);
  const auto bufferOf = [&](int t) { return plan.tensorToBuffer.at(static_cast<size_t>(t)); };
  KernelSpec k{.opIndex = fold.place,
               .kind = graph.ops[static_cast<size_t>(fold.product)].kind,
               .wgsl = src.wgsl,
               .threads = src.threads,
               .workgroupSize = src.workgroupSize};
  for (const int t : operandSources(graph, fold.product, permutesOf(permuteOf, fold.product)))
    k.bindings.push_back(bufferOf(t));
  if (!fold.causal) k.bindings.push_back(bufferOf(fold.y));
  k.bindings.push_back(bufferOf(graph.ops[static_cast<size_t>(fold.place)].out));
  k.fusedOps = opsOf(fold, permuteOf);
  k.loopLength = p->k * p->batches * p->m * p->n / std::max<int64_t>(k.threads, 1);
  return k;
}

}  // namespace tg::detail
