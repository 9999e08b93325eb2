#include "tensorgrad/codegen.h"

#include <algorithm>
#include <map>
#include <set>

#include "../ops/op_registry.h"
#include "buffer_use.h"
#include "fold_attention.h"
#include "fold_epilogue.h"
#include "fold_identity_sum.h"
#include "fold_optimizer.h"
#include "fold_outer_product.h"
#include "fold_product_sum.h"
#include "fold_prologue.h"
#include "fold_row_softmax.h"
#include "fold_second_output.h"
#include "fold_sibling_sums.h"
#include "fold_transpose.h"
#include "folded_matmul.h"
#include "fuse_elementwise.h"
#include "fuse_rows.h"
#include "product_families.h"

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

// The inverse of a fold's map from op to op (-1: none), over `n` ops.
std::vector<int> inverse(const std::vector<int>& of, size_t n) {
  std::vector<int> from(n, -1);
  for (size_t m = 0; m < of.size(); ++m)
    if (of[m] >= 0) from[static_cast<size_t>(of[m])] = static_cast<int>(m);
  return from;
}

int64_t loopLength(const Graph& graph, const Op& op, int64_t threads) {
  // A matmul's threads share K among them: all of it per output, or K / 256 when a workgroup
  // sums each output.
  if (detail::isMatmul(op.kind))
    return graph.tensor(op.inputs[0]).shape.back() * shapeSize(graph.tensor(op.out).shape) /
           std::max<int64_t>(threads, 1);
  // Otherwise a thread reads about (input elements / threads) values of its largest input.
  int64_t most = 1;
  for (int in : op.inputs) most = std::max(most, shapeSize(graph.tensor(in).shape) / std::max<int64_t>(threads, 1));
  return most;
}

// One emission: the kernels, the product each folded matmul kernel computes and the permute its
// rhs is read through (by kernel index; none where the rhs is read as stored).
struct Emission {
  std::vector<KernelSpec> kernels;
  std::map<size_t, detail::MatmulProblem> problems;
  std::map<size_t, int> rhsPermutes;
};

// The kernels of `graph`, every permute a matmul can read through folded except `materialized`.
Emission emitOnce(const Graph& graph, const BufferPlan& plan, const EmitOptions& options,
                  const std::set<int>& materialized) {
  const detail::BufferUse use(graph, plan);
  const int64_t workgroupBytes = options.workgroupStorageBytes > 0
                                     ? options.workgroupStorageBytes
                                     : detail::kDefaultWorkgroupBytes;
  std::vector<std::vector<int>> groups;
  const bool fuse = options.fuseElementwise || options.kernels == KernelSet::Fast;
  detail::TransposeFolds folds;
  std::vector<int> sumOf, sumFrom;  // matmul → identity sum_to_shape it computes, and back
  if (options.kernels == KernelSet::Fast) {
    folds = detail::foldTransposes(graph, use, materialized);
    sumOf = detail::foldIdentitySums(graph, use, folds.permuteOf);
    sumFrom = inverse(sumOf, graph.ops.size());
  }
  // Permutes folded into matmuls and the ops the fused optimizer computes stay out of groups
  // (and so out of epilogues).
  const detail::OptimizerFold* fold = plan.optimizerFold.get();
  std::vector<bool> elsewhere = folds.folded;
  if (fold) {
    elsewhere.resize(graph.ops.size());
    for (size_t i = 0; i < elsewhere.size(); ++i) elsewhere[i] = elsewhere[i] || fold->folded[i];
  }
  detail::RowFusion rows;  // chains around row reductions, one kernel each
  if (options.kernels == KernelSet::Fast) {
    // Ops a matmul would compute in its store stay there: a row kernel takes the rest.
    std::vector<bool> excluded = elsewhere;
    excluded.resize(graph.ops.size());
    const auto firstGroups = detail::fuseGroups(graph, use, elsewhere);
    const auto firstEpilogues =
        detail::foldEpilogues(graph, use, firstGroups, elsewhere, folds.permuteOf, sumOf);
    for (size_t m = 0; m < firstEpilogues.size(); ++m) {
      if (firstEpilogues[m] < 0) continue;
      for (int e : firstGroups[static_cast<size_t>(firstEpilogues[m])])
        excluded[static_cast<size_t>(e)] = true;
    }
    for (size_t m = 0; m < sumOf.size(); ++m)
      if (sumOf[m] >= 0) excluded[m] = excluded[static_cast<size_t>(sumOf[m])] = true;
    rows = detail::fuseRows(graph, use, excluded);
    elsewhere.resize(graph.ops.size());
    for (size_t i = 0; i < elsewhere.size(); ++i) elsewhere[i] = elsewhere[i] || rows.folded[i];
  }
  if (fuse) groups = detail::fuseGroups(graph, use, elsewhere);
  std::vector<int> epilogueOf, epilogueFrom;  // matmul → last op of the group in its store, and back
  if (options.kernels == KernelSet::Fast) {
    epilogueOf = detail::foldEpilogues(graph, use, groups, elsewhere, folds.permuteOf, sumOf);
    epilogueFrom = inverse(epilogueOf, graph.ops.size());
  }
  detail::PrologueFolds prologues;  // reductions computing the group that produces their input
  if (options.kernels == KernelSet::Fast)
    prologues = detail::foldPrologues(graph, use, groups, elsewhere, epilogueFrom, sumFrom, workgroupBytes,
                                      options.cpuDevice);
  std::vector<int> secondOf, secondFrom;  // matmul kernel's place → group written second, and back
  if (options.kernels == KernelSet::Fast) {
    secondOf = detail::foldSecondOutputs(graph, use, groups, elsewhere, epilogueOf, epilogueFrom,
                                         sumOf, prologues.folded, folds.permuteOf);
    secondFrom = inverse(secondOf, graph.ops.size());
  }
  // Products added into another's K loop (by the matmul whose epilogue adds them), and back.
  std::vector<std::vector<int>> summedInto;
  std::vector<int> summedBy;
  if (options.kernels == KernelSet::Fast) {
    summedInto = detail::foldProductSums(graph, use, groups, epilogueOf, secondOf, folds.permuteOf,
                                         sumOf, workgroupBytes, options.cpuDevice);
    summedBy.assign(graph.ops.size(), -1);
    for (size_t m = 0; m < summedInto.size(); ++m)
      for (int p : summedInto[m]) summedBy[static_cast<size_t>(p)] = static_cast<int>(m);
  }
  // Outer products computed by the matrix-vector product whose value they multiply.
  detail::OuterFolds outer;
  if (options.kernels == KernelSet::Fast)
    outer = detail::foldOuterProducts(graph, use, groups, epilogueOf, epilogueFrom, secondOf,
                                      sumOf, summedInto, summedBy, folds.permuteOf,
                                      workgroupBytes, options.cpuDevice);
  // Causal attention's scores, softmax and weighted sum as one kernel a head, where no other
  // fold holds either product.
  detail::AttentionFolds attention;
  // Softmaxes of products' rows, and their gradients, computed by the products.
  detail::RowSoftmaxFolds rowSoftmax;
  if (options.kernels == KernelSet::Fast) {
    std::vector<bool> taken(graph.ops.size(), false);
    for (size_t i = 0; i < taken.size(); ++i)
      taken[i] = (!sumOf.empty() && sumOf[i] >= 0) || (!secondOf.empty() && secondOf[i] >= 0) ||
                 (!summedInto.empty() && !summedInto[i].empty()) ||
                 (!summedBy.empty() && summedBy[i] >= 0) ||
                 (!outer.outerOf.empty() && outer.outerOf[i] >= 0) ||
                 (!outer.folded.empty() && outer.folded[i]);
    attention = detail::foldAttention(graph, use, groups, epilogueOf, epilogueFrom, elsewhere,
                                      taken, folds.permuteOf, workgroupBytes);
    for (size_t i = 0; i < taken.size(); ++i)
      taken[i] = taken[i] || attention.folded[i] || attention.at[i] >= 0;
    rowSoftmax = detail::foldRowSoftmaxes(graph, use, groups, rows, epilogueOf, epilogueFrom,
                                          elsewhere, taken, folds.permuteOf, workgroupBytes,
                                          options.cpuDevice);
  }
  // Column sums reading a buffer in common, one kernel each set, of the ops no fold above took.
  detail::SiblingSums siblings;
  if (options.kernels == KernelSet::Fast) {
    std::vector<bool> absorbed(graph.ops.size(), false);
    for (size_t i = 0; i < absorbed.size(); ++i)
      absorbed[i] = (!epilogueOf.empty() && epilogueOf[i] >= 0) ||
                    (!secondOf.empty() && secondOf[i] >= 0) ||
                    (!secondFrom.empty() && secondFrom[i] >= 0) ||
                    (!summedInto.empty() && !summedInto[i].empty()) ||
                    (!summedBy.empty() && summedBy[i] >= 0) ||
                    (!outer.outerOf.empty() && outer.outerOf[i] >= 0) ||
                    (!outer.folded.empty() && outer.folded[i]) ||
                    (!attention.folded.empty() && (attention.folded[i] || attention.at[i] >= 0)) ||
                    (!rowSoftmax.folded.empty() && (rowSoftmax.folded[i] || rowSoftmax.at[i] >= 0));
    siblings = detail::foldSiblingSums(graph, use, groups, elsewhere, epilogueFrom, sumFrom,
                                       absorbed, folds.permuteOf, sumOf);
  }
  // Clipping's scale computed by the norm's second stage, and the op its group ends at. No other
  // fold can hold that group: it reads the fold's total alone, which no matmul stores, and its
  // scalar is read by the clip's per-parameter products, not by a reduction as a transient input.
  detail::NormScale normScale;
  if (fold && fuse) normScale = detail::foldNormScale(graph, use, *fold, groups);
  const int normScaleEnd = normScale.group.empty() ? -1 : normScale.group.back();
  const auto secondAt = [&](size_t place) {
    return secondOf.empty() || secondOf[place] < 0 ? std::vector<int>{}
                                                   : groups[static_cast<size_t>(secondOf[place])];
  };
  const auto permutesOf = [&](size_t m) {
    return detail::permutesOf(folds.permuteOf, static_cast<int>(m));
  };
  Emission emitted;
  std::vector<KernelSpec>& kernels = emitted.kernels;
  std::map<size_t, detail::MatmulProblem>& problems = emitted.problems;
  const auto recordRhs = [&](const std::array<int, 2>& permutes) {
    if (permutes[1] >= 0) emitted.rhsPermutes[kernels.size()] = permutes[1];
  };
  // The kernel of the fast matmul standing at op `place`: matmul `m` (the place itself, or the
  // matmul whose epilogue ends there) with its second output, the products summed into it and
  // the outer product it computes.
  const auto matmulKernelAt = [&](size_t place, int m) {
    detail::MatmulFolds f{.permutes = permutesOf(static_cast<size_t>(m)), .second = secondAt(place)};
    if (m != static_cast<int>(place)) f.epilogue = groups[place];
    recordRhs(f.permutes);
    if (!summedInto.empty())
      for (int p : summedInto[static_cast<size_t>(m)]) {
        f.summed.push_back(p);
        f.summedPermutes.push_back(permutesOf(static_cast<size_t>(p)));
      }
    if (!outer.outerOf.empty() && outer.outerOf[place] >= 0) {
      f.outer = outer.outerOf[place];
      f.outerPermutes = permutesOf(static_cast<size_t>(f.outer));
      if (const int end = epilogueOf[static_cast<size_t>(f.outer)]; end >= 0)
        f.outerEpilogue = groups[static_cast<size_t>(end)];
    }
    return detail::foldedMatmulKernel(graph, plan, m, f, std::nullopt, workgroupBytes,
                                      options.cpuDevice, &problems[kernels.size()]);
  };
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (!attention.folded.empty() && attention.folded[i]) {  // in an attention kernel
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (!attention.at.empty() && attention.at[i] >= 0) {
      kernels.push_back(detail::attentionKernel(
          graph, plan, attention.folds[static_cast<size_t>(attention.at[i])], groups,
          folds.permuteOf, workgroupBytes));
      continue;
    }
    if (!rowSoftmax.folded.empty() && rowSoftmax.folded[i]) {  // in a row softmax's product
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (!rowSoftmax.at.empty() && rowSoftmax.at[i] >= 0) {
      kernels.push_back(detail::rowSoftmaxKernel(
          graph, plan, rowSoftmax.folds[static_cast<size_t>(rowSoftmax.at[i])], folds.permuteOf,
          workgroupBytes));
      continue;
    }
    if (fold && fold->folded[i]) {
      KernelSpec k{.opIndex = static_cast<int>(i), .kind = op.kind};
      if (auto hosted = detail::foldedOptimizerKernel(*fold, plan, static_cast<int>(i),
                                                      normScale.group.empty() ? nullptr : &normScale)) {
        k = std::move(*hosted);
        k.kind = op.kind;
      }
      kernels.push_back(std::move(k));
      continue;
    }
    if (!outer.folded.empty() && outer.folded[i]) {  // computed by a matrix-vector product
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (!outer.outerOf.empty() && outer.outerOf[i] >= 0) {  // that matrix-vector product
      kernels.push_back(matmulKernelAt(
          i, !epilogueFrom.empty() && epilogueFrom[i] >= 0 ? epilogueFrom[i] : static_cast<int>(i)));
      continue;
    }
    if (!summedBy.empty() && summedBy[i] >= 0) {  // added in another product's K loop
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (static_cast<int>(i) == normScaleEnd) {  // computed by the norm's second stage
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (!rows.folded.empty() && rows.folded[i]) {
      if (const auto it = rows.kernels.find(static_cast<int>(i)); it != rows.kernels.end())
        kernels.push_back(std::move(it->second));
      else
        kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (!siblings.folded.empty() && siblings.folded[i]) {  // in a later column sums kernel
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (const auto it = siblings.kernels.find(static_cast<int>(i)); it != siblings.kernels.end()) {
      kernels.push_back(std::move(it->second));
      continue;
    }
    if (!prologues.folded.empty() && prologues.folded[i]) {  // computed by a reduction
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (const auto it = prologues.kernels.find(static_cast<int>(i)); it != prologues.kernels.end()) {
      kernels.push_back(std::move(it->second));
      continue;
    }
    if (!secondFrom.empty() && secondFrom[i] >= 0) {  // a matmul's second output
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (!epilogueFrom.empty() && epilogueFrom[i] >= 0) {  // a matmul with this group in its store
      kernels.push_back(matmulKernelAt(i, epilogueFrom[i]));
      continue;
    }
    if (!epilogueOf.empty() && epilogueOf[i] >= 0) {  // computed at its epilogue's place
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (!secondOf.empty() && secondOf[i] >= 0) {  // a matmul storing its product and a second output
      kernels.push_back(matmulKernelAt(i, static_cast<int>(i)));
      continue;
    }
    const bool folded = !folds.folded.empty() && folds.folded[i];
    if (options.kernels == KernelSet::Fast && !groups[i].empty() && !folded &&
        !use.aliasedReshape(op)) {
      if (auto k = detail::vec4Kernel(graph, plan, groups[i])) {  // a group of one op too
        kernels.push_back(std::move(*k));
        continue;
      }
    }
    if (fuse && groups[i].size() > 1) {
      kernels.push_back(detail::fusedKernel(graph, plan, groups[i]));
      continue;
    }
    if (!sumOf.empty() && sumOf[i] >= 0) {  // computed at its sum_to_shape's place
      kernels.push_back({.opIndex = static_cast<int>(i), .kind = op.kind});
      continue;
    }
    if (!sumFrom.empty() && sumFrom[i] >= 0) {
      const int m = sumFrom[i];
      recordRhs(permutesOf(static_cast<size_t>(m)));
      kernels.push_back(detail::foldedMatmulKernel(
          graph, plan, m,
          {.permutes = permutesOf(static_cast<size_t>(m)), .sumOp = static_cast<int>(i)},
          std::nullopt, workgroupBytes, options.cpuDevice, &problems[kernels.size()]));
      continue;
    }
    if (permutesOf(i) != std::array<int, 2>{-1, -1}) {
      recordRhs(permutesOf(i));
      kernels.push_back(detail::foldedMatmulKernel(graph, plan, static_cast<int>(i),
                                                   {.permutes = permutesOf(i)}, std::nullopt,
                                                   workgroupBytes, options.cpuDevice,
                                                   &problems[kernels.size()]));
      continue;
    }
    const detail::OpDef& def = detail::opDef(op.kind);
    KernelSpec k;
    k.opIndex = static_cast<int>(i);
    k.kind = op.kind;
    if (def.kernel && !folded && !use.aliasedReshape(op) && !(fuse && groups[i].empty())) {
      const detail::KernelArgs args{op, graph, def, workgroupBytes, nullptr, options.cpuDevice};
      detail::KernelSource src;
      if (options.kernels == KernelSet::Fast && def.fastKernel) src = def.fastKernel(args);
      if (!src.wgsl.empty() && detail::isMatmul(op.kind))  // a product with nothing folded
        problems[kernels.size()] = detail::matmulProblem(args, op.kind == OpKind::MatmulBatched);
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
  return emitted;
}

}  // namespace

std::vector<KernelSpec> emitKernels(const Graph& graph, const BufferPlan& plan,
                                    EmitOptions options) {
  Emission emitted = emitOnce(graph, plan, options, {});
  if (options.kernels != KernelSet::Fast) return std::move(emitted.kernels);
  // Products reading a weight transposed that would join a family reading theirs as stored read
  // a transposed copy instead, its permute a kernel of its own (product_families.h).
  if (const std::set<int> copies = detail::transposesJoiningFamilies(
          emitted.kernels, emitted.problems, emitted.rhsPermutes);
      !copies.empty())
    emitted = emitOnce(graph, plan, options, copies);
  detail::shareProductKernels(emitted.kernels, emitted.problems);
  return std::move(emitted.kernels);
}

}  // namespace tg
