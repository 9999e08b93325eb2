// Matrix products. `matmul` takes a rank-2 rhs and broadcasts the lhs's leading axes;
// `matmul_batched` pairs equal batch axes. Two kinds keep each adjoint rule simple.
#include "matmul_fast.h"
#include "op_registry.h"

namespace tg::detail {
namespace {

void requireF32(const InferArgs& a) {
  if (a.in[0]->dtype != Dtype::F32 || a.in[1]->dtype != Dtype::F32) {
    a.fail(a.name() + ": requires f32, got " + std::string(dtypeName(a.in[0]->dtype)) + " and " +
           std::string(dtypeName(a.in[1]->dtype)));
  }
}

// out[b, m, n] = sum_k a[b, m, k] * rhs[(b if batched), k, n], accumulated in double.
HostTensor product(const EvalArgs& e, bool batched) {
  const HostTensor& a = *e.in[0];
  const HostTensor& b = *e.in[1];
  const auto m = static_cast<size_t>(a.shape[a.shape.size() - 2]);
  const auto k = static_cast<size_t>(a.shape.back());
  const auto n = static_cast<size_t>(b.shape.back());
  HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
  const size_t batches = r.f.size() / (m * n);
  for (size_t bi = 0; bi < batches; ++bi) {
    const float* ap = a.f.data() + bi * m * k;
    const float* bp = b.f.data() + (batched ? bi * k * n : 0);
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        double s = 0;
        for (size_t kk = 0; kk < k; ++kk) s += double{ap[i * k + kk]} * double{bp[kk * n + j]};
        r.f[bi * m * n + i * n + j] = static_cast<float>(s);
      }
    }
  }
  return r;
}

constexpr int64_t kTile = 16;  // kTile² = the workgroup size: one tile per workgroup

// Upstream's three forms, chosen as it chooses them:
// - 16×16 shared-memory tiles when every dimension is a tile multiple (no bounds checks in the
//   hot loop);
// - unbatched rhs, few outputs and K >= 256 otherwise (a weight gradient over every row the
//   layer saw): a workgroup per output, 256 threads striding K, then a tree in shared memory;
// - otherwise one thread per output element, summing k in order.
KernelSource matmulKernel(const KernelArgs& a, bool batched) {
  const Shape& x = a.in(0).shape;
  const int64_t m = x[x.size() - 2], k = x.back(), n = a.in(1).shape.back();
  const int64_t batches = shapeSize(a.out().shape) / (m * n);
  const std::string bBase = batched ? "bi * " + u(k * n) : "0u";
  const bool tiled = m % kTile == 0 && n % kTile == 0 && k % kTile == 0;
  const int64_t outputs = batches * m * n;
  if (!batched && !tiled && treeReduces(outputs, k)) {
    return perWorkgroup(a, outputs,
                        "  let bi = i / " + u(m * n) + ";\n  let row = (i % " + u(m * n) + ") / " +
                            u(n) + ";\n  let col = i % " + u(n) + ";\n  let aRow = bi * " +
                            u(m * k) + " + row * " + u(k) +
                            ";\n  var s = 0.0;\n"
                            "  for (var kk = lid; kk < " + u(k) + "; kk += " + u(kWorkgroupSize) +
                            ") {\n    s = s + a[aRow + kk] * b[kk * " + u(n) + " + col];\n  }\n" +
                            workgroupReduce("partial", "s") + "  if (lid == 0u) { out[i] = partial[0]; }\n");
  }
  if (tiled) {
    const int64_t tilesM = m / kTile, tilesN = n / kTile;
    std::string w =
        "var<workgroup> aTile : array<f32, 256>;\nvar<workgroup> bTile : array<f32, 256>;\n" +
        a.bindings() +
        "@compute @workgroup_size(256)\n"
        "fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : "
        "u32) {\n"
        "  let wg = wid.x + wid.y * " +
        u(kMaxWorkgroupsPerDim) +
        ";\n"
        "  if (wg >= " +
        u(batches * tilesM * tilesN) +
        ") { return; }\n"
        "  let bi = wg / " +
        u(tilesM * tilesN) + ";\n  let tile = wg % " + u(tilesM * tilesN) +
        ";\n"
        "  let row = lid / 16u;\n  let col = lid % 16u;\n"
        "  let gRow = (tile / " +
        u(tilesN) + ") * 16u + row;\n  let gCol = (tile % " + u(tilesN) +
        ") * 16u + col;\n"
        "  let aRow = bi * " +
        u(m * k) + " + gRow * " + u(k) + ";\n  let bOff = " + bBase +
        ";\n"
        "  var s = 0.0;\n"
        "  for (var k0 = 0u; k0 < " +
        u(k) +
        "; k0 += 16u) {\n"
        "    aTile[lid] = a[aRow + k0 + col];\n"
        "    bTile[lid] = b[bOff + (k0 + row) * " +
        u(n) +
        " + gCol];\n"
        "    workgroupBarrier();\n"
        "    for (var kk = 0u; kk < 16u; kk++) {\n"
        "      s = s + aTile[row * 16u + kk] * bTile[kk * 16u + col];\n    }\n"
        "    workgroupBarrier();\n  }\n"
        "  out[bi * " +
        u(m * n) + " + gRow * " + u(n) + " + gCol] = s;\n}\n";
    return {std::move(w), batches * tilesM * tilesN * kWorkgroupSize, kWorkgroupSize};
  }
  return elementwise(a, batches * m * n,
                     "  let bi = i / " + u(m * n) + ";\n  let row = (i % " + u(m * n) + ") / " +
                         u(n) + ";\n  let col = i % " + u(n) +
                         ";\n"
                         "  let aRow = bi * " +
                         u(m * k) + " + row * " + u(k) + ";\n  let bOff = " + bBase +
                         ";\n"
                         "  var s = 0.0;\n  for (var kk = 0u; kk < " +
                         u(k) +
                         "; kk++) {\n"
                         "    s = s + a[aRow + kk] * b[bOff + kk * " +
                         u(n) + " + col];\n  }\n  out[i] = s;\n");
}

}  // namespace

void registerLinalgOps(OpTable& t) {
  t.push_back({.kind = OpKind::Matmul,
               .name = "matmul",
               .inputNames = {"a", "b"},
               .infer =
                   [](const InferArgs& a) {
                     requireF32(a);
                     const Shape& x = a.in[0]->shape;
                     const Shape& y = a.in[1]->shape;
                     if (x.size() < 2)
                       a.fail(a.name() + ": lhs must have rank >= 2, got " + showShape(x));
                     if (y.size() != 2)
                       a.fail(a.name() + ": rhs must have rank 2 here, got " + showShape(y));
                     if (x.back() != y[0]) {
                       a.fail(a.name() + ": inner dims don't match — " + showShape(x) + " · " +
                              showShape(y) + " (last axis of lhs = " + std::to_string(x.back()) +
                              ", first axis of rhs = " + std::to_string(y[0]) + ")");
                     }
                     Shape out(x.begin(), x.end() - 1);
                     out.push_back(y[1]);
                     return OutType{out, Dtype::F32};
                   },
               .eval = [](const EvalArgs& e) { return product(e, false); },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     const Tensor a = c.in(0), b = c.in(1);
                     c.accumulate(0, matmul(c.dy(), swapAxes(b, -1, -2, c.loc()), c.loc()));
                     // dB = A2ᵀ · dY2 with the lhs batch axes folded into rows.
                     const int64_t k = a.shape().back(), n = b.shape().back();
                     const int64_t rows = a.size() / k;
                     const Tensor a2 = reshape(a, {rows, k}, c.loc());
                     const Tensor dy2 = reshape(c.dy(), {rows, n}, c.loc());
                     // Upstream always emits this sum_to_shape (an identity copy here); kept so
                     // graphs compare op for op.
                     c.accumulate(1, sumToShape(matmul(swapAxes(a2, -1, -2, c.loc()), dy2, c.loc()),
                                                b.shape(), c.loc()));
                   }});
  t.push_back({.kind = OpKind::MatmulBatched,
               .name = "matmul_batched",
               .inputNames = {"a", "b"},
               .infer =
                   [](const InferArgs& a) {
                     requireF32(a);
                     const Shape& x = a.in[0]->shape;
                     const Shape& y = a.in[1]->shape;
                     if (x.size() < 2 || y.size() < 2) {
                       a.fail(a.name() + ": both inputs must have rank >= 2, got " + showShape(x) +
                              " and " + showShape(y));
                     }
                     if (x.size() != y.size()) {
                       a.fail(a.name() + ": rank mismatch — lhs " + showShape(x) + " vs rhs " +
                              showShape(y) +
                              ". When rhs is batched (rank > 2), lhs must have the same rank. "
                              "Reshape explicitly if needed.");
                     }
                     if (!std::equal(x.begin(), x.end() - 2, y.begin())) {
                       a.fail(a.name() + ": batch dims must match — " + showShape(x) + " vs " +
                              showShape(y));
                     }
                     if (x.back() != y[y.size() - 2]) {
                       a.fail(a.name() + ": inner dims don't match — " + showShape(x) + " · " +
                              showShape(y) + " (last axis of lhs = " + std::to_string(x.back()) +
                              ", second-to-last of rhs = " + std::to_string(y[y.size() - 2]) + ")");
                     }
                     Shape out(x.begin(), x.end() - 1);
                     out.push_back(y.back());
                     return OutType{out, Dtype::F32};
                   },
               .eval = [](const EvalArgs& e) { return product(e, true); },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     c.accumulate(0, matmul(c.dy(), swapAxes(c.in(1), -1, -2, c.loc()), c.loc()));
                     c.accumulate(1, matmul(swapAxes(c.in(0), -1, -2, c.loc()), c.dy(), c.loc()));
                   }});

  kernelOf(t, OpKind::Matmul) = [](const KernelArgs& a) { return matmulKernel(a, false); };
  kernelOf(t, OpKind::MatmulBatched) = [](const KernelArgs& a) { return matmulKernel(a, true); };
  // Operands are contiguous row-major here: autograd materialises transposes as their own ops
  // (codegen folds those into the product under the fast set: src/codegen/fold_transpose.h). An
  // empty product (a zero dimension) dispatches nothing useful; upstream's kernel handles it.
  for (const bool batched : {false, true}) {
    fastKernelOf(t, batched ? OpKind::MatmulBatched : OpKind::Matmul) =
        [batched](const KernelArgs& a) {
          return shapeSize(a.out().shape) == 0 || a.in(0).shape.back() == 0
                     ? KernelSource{}
                     : fastMatmulKernel(matmulProblem(a, batched));
        };
  }
}

}  // namespace tg::detail
