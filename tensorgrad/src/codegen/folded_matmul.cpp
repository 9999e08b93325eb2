#include "folded_matmul.h"

#include <algorithm>

#include "../ops/op_registry.h"
#include "fold_epilogue.h"
#include "fold_second_output.h"
#include "fold_transpose.h"

namespace tg::detail {

MatmulProblem foldedProblem(const Graph& graph, int matmul, const std::array<int, 2>& permutes,
                            const std::vector<int>& summed, int64_t workgroupBytes,
                            bool cpuDevice) {
  const Op& op = graph.ops[static_cast<size_t>(matmul)];
  const KernelArgs args{op, graph, opDef(op.kind), workgroupBytes, nullptr, cpuDevice};
  MatmulProblem p = matmulProblem(args, op.kind == OpKind::MatmulBatched);
  p.transA = permutes[0] >= 0;
  p.transB = permutes[1] >= 0;
  if (!summed.empty()) {
    p.kParts = {p.k};
    for (int m : summed) {
      const int64_t k = graph.tensor(graph.ops[static_cast<size_t>(m)].inputs[0]).shape.back();
      p.kParts.push_back(k);
      p.k += k;
    }
  }
  return p;
}

namespace {

// A product stored through a transpose of its last two axes first (the backward's dK = dSᵀ·Q,
// then the head merge) stores each element at its own place, one at a time (D512's dK took 17.3
// µs against 12.4 for the other per-head products, H200, 2026-11-29). Computed transposed
// (Bᵀ·Aᵀ), its store keeps runs of 4: the epilogue the rest of the group is on the transposed
// product's element (none where the transpose is all of it) and the buffers it reads.
struct TransposedStore {
  std::optional<MatmulEpilogue> epilogue;
  std::vector<int> external;
};

// `folds`' epilogue as a transposed store, or nullopt where it starts with no such transpose or
// the rest would not keep runs of 4.
std::optional<TransposedStore> transposedStore(const Graph& graph, int matmul,
                                               const MatmulFolds& folds, const MatmulProblem& p) {
  if (folds.epilogue.empty() || !folds.second.empty() || !folds.summed.empty() ||
      folds.outer >= 0 || folds.sumOp >= 0 || (!p.batchedRhs && p.batches > 1) || p.m % 4)
    return std::nullopt;
  const std::vector<int> path = epiloguePath(graph, matmul, folds.epilogue);
  if (path.empty()) return std::nullopt;
  const Op& first = graph.ops[static_cast<size_t>(path.front())];
  const auto rank = static_cast<int64_t>(graph.tensor(first.inputs[0]).shape.size());
  if (first.kind != OpKind::Permute || rank < 2) return std::nullopt;
  for (int64_t d = 0; d < rank; ++d)
    if (first.attrs.perm[static_cast<size_t>(d)] != (d < rank - 2 ? d : 2 * rank - 3 - d))
      return std::nullopt;
  std::vector<int> rest;
  for (int m : folds.epilogue)
    if (m != path.front()) rest.push_back(m);
  TransposedStore t;
  if (rest.empty()) return t;
  t.epilogue = matmulEpilogue(graph, path.front(), rest, t.external);
  if (t.epilogue->permuted && !t.epilogue->keepsRunsOf4) return std::nullopt;
  return t;
}

// out[b]ᵀ = B[b]ᵀ · A[b]ᵀ: the same sums, the operands swapped and read the other way round.
MatmulProblem transposedProblem(MatmulProblem p) {
  std::swap(p.m, p.n);
  std::swap(p.lhs, p.rhs);
  const bool transA = p.transA;
  p.transA = !p.transB;
  p.transB = !transA;
  return p;
}

}  // namespace

KernelSpec foldedMatmulKernel(const Graph& graph, const BufferPlan& plan, int matmul,
                              const MatmulFolds& folds, std::optional<GemmTiling> tiling,
                              int64_t workgroupBytes, bool cpuDevice, MatmulProblem* problem) {
  const auto bufferOf = [&](int t) { return plan.tensorToBuffer.at(static_cast<size_t>(t)); };
  const Op& op = graph.ops[static_cast<size_t>(matmul)];
  MatmulProblem p =
      foldedProblem(graph, matmul, folds.permutes, folds.summed, workgroupBytes, cpuDevice);
  std::vector<int> external;
  const std::optional<TransposedStore> transposed = transposedStore(graph, matmul, folds, p);
  if (transposed) {
    p = transposedProblem(std::move(p));
    p.epilogue = transposed->epilogue;
    external = transposed->external;
  } else if (!folds.epilogue.empty()) {
    p.epilogue = matmulEpilogue(graph, matmul, folds.epilogue, external, folds.summed);
  }
  if (!folds.second.empty()) {
    if (!p.epilogue)  // the product stored as it is
      p.epilogue =
          MatmulEpilogue{.wgsl = "fn epilogue(o : u32, mm : f32) -> f32 {\n  return mm;\n}\n"};
    const int stored = folds.epilogue.empty()
                           ? op.out
                           : graph.ops[static_cast<size_t>(folds.epilogue.back())].out;
    const std::string second = secondOutputFunction(graph, stored, folds.second);
    p.epilogue->wgsl += second;
    if (!p.epilogue->wgsl4.empty()) p.epilogue->wgsl4 += second;
    p.epilogue->second = true;
  }
  std::vector<int> outerReads;  // the outer product's rhs, then its epilogue's buffers
  if (folds.outer >= 0) {
    const Op& q = graph.ops[static_cast<size_t>(folds.outer)];
    const std::array<int, 2> sources = operandSources(graph, folds.outer, folds.outerPermutes);
    const int stored = folds.epilogue.empty()
                           ? op.out
                           : graph.ops[static_cast<size_t>(folds.epilogue.back())].out;
    OuterProduct o{.n = graph.tensor(q.out).shape.back(), .fromSecond = sources[0] != stored};
    // Buffers this product reads already are read through its operand functions.
    const std::array<int, 2> own = operandSources(graph, matmul, folds.permutes);
    const ReusedBuffers reuse{{own[1], {"rhsElement", "rhsVec4"}},
                              {own[0], {"lhsElement", "lhsVec4"}}};
    o.v = sources[1] == own[0]   ? OuterProduct::Source::Lhs
          : sources[1] == own[1] ? OuterProduct::Source::Rhs
                                 : OuterProduct::Source::Own;
    if (o.v == OuterProduct::Source::Own) outerReads.push_back(sources[1]);
    if (!folds.outerEpilogue.empty()) {
      std::vector<int> outerExternal;
      const size_t firstBinding = 2 * std::max<size_t>(p.kParts.size(), 1) +
                                  (p.epilogue ? p.epilogue->bindings : 0) + outerReads.size();
      const MatmulEpilogue e = matmulEpilogue(graph, folds.outer, folds.outerEpilogue,
                                              outerExternal, {}, firstBinding, "outerEpilogue",
                                              reuse);
      o.wgsl = e.wgsl;
      o.wgsl4 = e.wgsl4;
      o.bindings = e.bindings;
      outerReads.insert(outerReads.end(), outerExternal.begin(), outerExternal.end());
    }
    p.outer = std::move(o);
  }
  const KernelSource src = fastMatmulKernel(p, tiling);
  if (problem) *problem = p;
  KernelSpec k;
  const int place = !folds.epilogue.empty() ? folds.epilogue.back() : folds.sumOp;
  k.opIndex = place >= 0 ? place : matmul;
  k.kind = op.kind;
  k.wgsl = src.wgsl;
  k.threads = src.threads;
  k.workgroupSize = src.workgroupSize;
  // As codegen's loopLength for a matmul: K per output, times the outputs an invocation owns.
  k.loopLength = p.k * shapeSize(graph.tensor(op.out).shape) / std::max<int64_t>(k.threads, 1);
  // The operands of this product, then of each summed one, read through their folded permutes.
  const auto operands = [&](int m, const std::array<int, 2>& permutes) {
    std::array<int, 2> sources = operandSources(graph, m, permutes);
    if (transposed && m == matmul) std::swap(sources[0], sources[1]);
    for (int t : sources) k.bindings.push_back(bufferOf(t));
    for (int perm : permutes)
      if (perm >= 0) k.fusedOps.push_back(perm);
  };
  operands(matmul, folds.permutes);
  for (size_t s = 0; s < folds.summed.size(); ++s)
    operands(folds.summed[s], folds.summedPermutes[s]);
  for (int t : external) k.bindings.push_back(bufferOf(t));
  for (int t : outerReads) k.bindings.push_back(bufferOf(t));
  for (int perm : folds.outerPermutes)
    if (perm >= 0) k.fusedOps.push_back(perm);
  std::sort(k.fusedOps.begin(), k.fusedOps.end());
  k.fusedOps.erase(std::unique(k.fusedOps.begin(), k.fusedOps.end()), k.fusedOps.end());
  k.fusedOps.insert(k.fusedOps.end(), folds.summed.begin(), folds.summed.end());
  k.fusedOps.push_back(matmul);
  if (folds.sumOp >= 0) k.fusedOps.push_back(folds.sumOp);
  k.fusedOps.insert(k.fusedOps.end(), folds.epilogue.begin(), folds.epilogue.end());
  k.bindings.push_back(bufferOf(place >= 0 ? graph.ops[static_cast<size_t>(place)].out : op.out));
  if (!folds.second.empty()) {
    k.fusedOps.insert(k.fusedOps.end(), folds.second.begin(), folds.second.end());
    k.bindings.push_back(bufferOf(graph.ops[static_cast<size_t>(folds.second.back())].out));
    k.outputs = 2;
  }
  if (folds.outer >= 0) {
    k.fusedOps.push_back(folds.outer);
    k.fusedOps.insert(k.fusedOps.end(), folds.outerEpilogue.begin(), folds.outerEpilogue.end());
    const int outerEnd = folds.outerEpilogue.empty() ? folds.outer : folds.outerEpilogue.back();
    k.bindings.push_back(bufferOf(graph.ops[static_cast<size_t>(outerEnd)].out));
    ++k.outputs;
  }
  return k;
}

std::pair<int, MatmulFolds> foldsOf(const Graph& graph, const KernelSpec& kernel) {
  MatmulFolds f;
  const auto isMm = [&](int m) { return isMatmul(graph.ops[static_cast<size_t>(m)].kind); };
  const auto begin = kernel.fusedOps.begin(), end = kernel.fusedOps.end();
  // The kernel's own product is the last matmul listed up to its place: summed products come
  // before it, an outer product after.
  auto mm = std::find(begin, end, kernel.opIndex);
  if (mm == end) return {kernel.opIndex, f};  // nothing folded
  while (!isMm(*mm)) {
    if (mm == begin) return {kernel.opIndex, f};
    --mm;
  }
  for (auto it = begin; it != mm; ++it)
    if (isMm(*it)) f.summed.push_back(*it);
  f.summedPermutes.assign(f.summed.size(), {-1, -1});
  // After the product: the sum, then the epilogue (ending at the kernel's place), then the
  // second output's group, then the outer product and its epilogue.
  bool inEpilogue = kernel.opIndex != *mm;
  for (auto it = mm + 1; it != end; ++it) {
    if (graph.ops[static_cast<size_t>(*it)].kind == OpKind::SumToShape && it == mm + 1 &&
        *it == kernel.opIndex) {
      f.sumOp = *it;
      inEpilogue = false;
    } else if (inEpilogue) {
      f.epilogue.push_back(*it);
      inEpilogue = *it != kernel.opIndex;
    } else if (f.outer >= 0) {
      f.outerEpilogue.push_back(*it);
    } else if (isMm(*it)) {
      f.outer = *it;
    } else {
      f.second.push_back(*it);
    }
  }
  const auto readsThrough = [&](int matmul, size_t i, int permute) {
    return *graph.tensor(graph.ops[static_cast<size_t>(matmul)].inputs[i]).source == permute;
  };
  for (auto it = begin; it != mm; ++it) {
    if (isMm(*it)) continue;
    for (size_t i = 0; i < 2; ++i) {
      if (readsThrough(*mm, i, *it)) f.permutes[i] = *it;
      for (size_t s = 0; s < f.summed.size(); ++s)
        if (readsThrough(f.summed[s], i, *it)) f.summedPermutes[s][i] = *it;
      if (f.outer >= 0 && readsThrough(f.outer, i, *it)) f.outerPermutes[i] = *it;
    }
  }
  return {*mm, f};
}

}  // namespace tg::detail
