#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "../ops/matmul_fast.h"
#include "tensorgrad/passes.h"

namespace tg {
namespace {

// A weight gradient as autograd writes it: matmul(permute(r, [1, 0]), d), r [K, m] and d [K, n],
// whose permute nothing else reads.
struct WeightGradient {
  size_t permute = 0, matmul = 0;
  int64_t k = 0, m = 0, n = 0, splits = 1;
  // The product's one reader where that is upstream's identity sum_to_shape([m, n]) of it (the
  // Matmul adjoint's last op): it then sums the slices itself, and the product goes.
  std::optional<size_t> identity{};
};

std::vector<WeightGradient> findWeightGradients(const Graph& graph, int64_t workgroupBytes,
                                                int64_t forcedSplits, bool cpuDevice) {
  std::vector<int> readers(graph.tensors.size(), 0);
  std::vector<size_t> lastReader(graph.tensors.size(), 0);
  for (size_t i = 0; i < graph.ops.size(); ++i)
    for (int in : graph.ops[i].inputs) {
      ++readers[static_cast<size_t>(in)];
      lastReader[static_cast<size_t>(in)] = i;
    }
  std::set<int> kept(graph.outputs.begin(), graph.outputs.end());
  for (const auto& [name, id] : graph.captures) kept.insert(id);

  std::vector<WeightGradient> found;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (op.kind != OpKind::Matmul) continue;
    const TensorInfo& lhs = graph.tensor(op.inputs[0]);
    const Shape& d = graph.tensor(op.inputs[1]).shape;
    if (lhs.shape.size() != 2 || !lhs.source || readers[static_cast<size_t>(lhs.id)] != 1 ||
        kept.contains(lhs.id))
      continue;
    const Op& permute = graph.ops[static_cast<size_t>(*lhs.source)];
    if (permute.kind != OpKind::Permute || permute.attrs.perm != std::vector<int64_t>{1, 0}) continue;
    WeightGradient w{.permute = static_cast<size_t>(*lhs.source), .matmul = i,
                     .k = d[0], .m = lhs.shape[0], .n = d[1]};
    if (w.k == 0 || w.m == 0 || w.n == 0) continue;  // an empty product takes upstream's kernel
    if (forcedSplits > 0) {
      w.splits = w.k % forcedSplits == 0 ? forcedSplits : 1;
    } else {
      w.splits = detail::chooseKSplits({.m = w.m, .k = w.k, .n = w.n, .transA = true,
                                        .workgroupBytes = workgroupBytes > 0 ? workgroupBytes
                                                                             : detail::kDefaultWorkgroupBytes,
                                        .cpuDevice = cpuDevice});
    }
    if (w.splits <= 1) continue;
    const auto out = static_cast<size_t>(op.out);
    if (readers[out] == 1 && !kept.contains(op.out)) {
      const Op& reader = graph.ops[lastReader[out]];
      if (reader.kind == OpKind::SumToShape && graph.tensor(reader.out).shape == Shape{w.m, w.n})
        w.identity = lastReader[out];
    }
    found.push_back(w);
  }
  return found;
}

}  // namespace

void splitWeightGradients(Graph& graph, int64_t workgroupBytes, int64_t forcedSplits,
                          bool cpuDevice) {
  if (forcedSplits < 0) {
    throw std::invalid_argument("EmitOptions::weightGradientSplits is " + std::to_string(forcedSplits) +
                                ": 0 picks the slices by shape, N >= 1 forces N");
  }
  const std::vector<WeightGradient> found = findWeightGradients(graph, workgroupBytes, forcedSplits, cpuDevice);
  if (found.empty()) return;
  const auto newTensor = [&](Shape shape, int like) {
    TensorInfo t = graph.tensor(like);
    t.id = static_cast<int>(graph.tensors.size());
    t.shape = std::move(shape);
    graph.tensors.push_back(std::move(t));
    return graph.tensors.back().id;
  };
  std::vector<std::vector<Op>> before(graph.ops.size());  // ops written before op i
  std::vector<bool> dropped(graph.ops.size(), false);     // products an identity sum replaces
  for (const WeightGradient& w : found) {
    Op& permute = graph.ops[w.permute];
    Op& matmul = graph.ops[w.matmul];
    const int64_t s = w.splits, slice = w.k / s;
    // r [K, m] → [s, K/s, m] → permuted [s, m, K/s]: the same permute, one batch axis more.
    const int r3 = newTensor({s, slice, w.m}, permute.inputs[0]);
    before[w.permute].push_back(
        {.kind = OpKind::Reshape, .out = r3, .inputs = {permute.inputs[0]}, .attrs = {.shape = {s, slice, w.m}}});
    permute.inputs[0] = r3;
    permute.attrs.perm = {0, 2, 1};
    graph.tensors[static_cast<size_t>(permute.out)].shape = {s, w.m, slice};
    // d [K, n] → [s, K/s, n]; the s partial products; their sum is the gradient.
    const int d3 = newTensor({s, slice, w.n}, matmul.inputs[1]);
    const int partials = newTensor({s, w.m, w.n}, matmul.out);
    before[w.matmul].push_back(
        {.kind = OpKind::Reshape, .out = d3, .inputs = {matmul.inputs[1]}, .attrs = {.shape = {s, slice, w.n}}});
    before[w.matmul].push_back(
        {.kind = OpKind::MatmulBatched, .out = partials, .inputs = {permute.out, d3}});
    if (w.identity) {  // the identity sums the slices; the product's tensor has no producer left
      graph.ops[*w.identity].inputs = {partials};
      graph.tensors[static_cast<size_t>(matmul.out)].source.reset();
      dropped[w.matmul] = true;
      continue;
    }
    matmul = Op{.kind = OpKind::SumToShape, .out = matmul.out, .inputs = {partials},
                .attrs = {.shape = {w.m, w.n}}};
  }
  std::vector<Op> ops;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    for (Op& op : before[i]) ops.push_back(std::move(op));
    if (!dropped[i]) ops.push_back(std::move(graph.ops[i]));
  }
  graph.ops = std::move(ops);
  for (size_t i = 0; i < graph.ops.size(); ++i)
    graph.tensors[static_cast<size_t>(graph.ops[i].out)].source = static_cast<int>(i);
}

}  // namespace tg
