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

KernelSpec foldedMatmulKernel(const Graph& graph, const BufferPlan& plan, int matmul,
                              const MatmulFolds& folds, std::optional<GemmTiling> tiling,
                              int64_t workgroupBytes, bool cpuDevice) {
  const auto bufferOf = [&](int t) { return plan.tensorToBuffer.at(static_cast<size_t>(t)); };
  const Op& op = graph.ops[static_cast<size_t>(matmul)];
  MatmulProblem p =
      foldedProblem(graph, matmul, folds.permutes, folds.summed, workgroupBytes, cpuDevice);
  std::vector<int> external;
  if (!folds.epilogue.empty())
    p.epilogue = matmulEpilogue(graph, matmul, folds.epilogue, external, folds.summed);
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
  const KernelSource src = fastMatmulKernel(p, tiling);
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
    for (int t : operandSources(graph, m, permutes)) k.bindings.push_back(bufferOf(t));
    for (int perm : permutes)
      if (perm >= 0) k.fusedOps.push_back(perm);
  };
  operands(matmul, folds.permutes);
  for (size_t s = 0; s < folds.summed.size(); ++s)
    operands(folds.summed[s], folds.summedPermutes[s]);
  for (int t : external) k.bindings.push_back(bufferOf(t));
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
  return k;
}

std::pair<int, MatmulFolds> foldsOf(const Graph& graph, const KernelSpec& kernel) {
  MatmulFolds f;
  const auto isMm = [&](int m) { return isMatmul(graph.ops[static_cast<size_t>(m)].kind); };
  // The kernel's own product is the last matmul listed: summed products come before it.
  const auto last = std::find_if(kernel.fusedOps.rbegin(), kernel.fusedOps.rend(), isMm);
  if (last == kernel.fusedOps.rend()) return {kernel.opIndex, f};  // nothing folded
  const auto mm = std::prev(last.base());
  const Op& op = graph.ops[static_cast<size_t>(*mm)];
  for (auto it = kernel.fusedOps.begin(); it != mm; ++it)
    if (isMm(*it)) f.summed.push_back(*it);
  f.summedPermutes.assign(f.summed.size(), {-1, -1});
  for (auto it = kernel.fusedOps.begin(); it != mm; ++it) {
    if (isMm(*it)) continue;
    for (size_t i = 0; i < 2; ++i) {
      if (*graph.tensor(op.inputs[i]).source == *it) f.permutes[i] = *it;
      for (size_t s = 0; s < f.summed.size(); ++s)
        if (*graph.tensor(graph.ops[static_cast<size_t>(f.summed[s])].inputs[i]).source == *it)
          f.summedPermutes[s][i] = *it;
    }
  }
  // After the product: the sum, then the epilogue (ending at the kernel's place), then the
  // second output's group.
  bool inEpilogue = kernel.opIndex != *mm;
  for (auto it = mm + 1; it != kernel.fusedOps.end(); ++it) {
    if (graph.ops[static_cast<size_t>(*it)].kind == OpKind::SumToShape && it == mm + 1 &&
        *it == kernel.opIndex) {
      f.sumOp = *it;
      inEpilogue = false;
    } else if (inEpilogue) {
      f.epilogue.push_back(*it);
      inEpilogue = *it != kernel.opIndex;
    } else {
      f.second.push_back(*it);
    }
  }
  return {*mm, f};
}

}  // namespace tg::detail
