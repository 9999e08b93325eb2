// The fast set's matmul kernel with its folded neighbours: operands read through folded permutes
// (fold_transpose.h), an identity sum_to_shape written in its place (fold_identity_sum.h), an
// element-wise epilogue (fold_epilogue.h), a second output (fold_second_output.h), other
// products added in its K loop (fold_product_sum.h) and an outer product computed after it
// (fold_outer_product.h). A product whose epilogue first swaps its last two axes is computed
// transposed, so its store keeps runs of 4. fusedOps lists every op it computes, so tools show
// them as one kernel.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "../ops/matmul_fast.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

struct MatmulFolds {
  std::array<int, 2> permutes{-1, -1};  // per operand, the folded permute op (-1: none)
  int sumOp = -1;                       // the identity sum_to_shape computed in its place
  std::vector<int> epilogue{};          // the fused group computed in its store, in op order
  std::vector<int> second{};            // the group of a second output (fold_second_output.h)
  // Matmuls whose products its K loop adds (fold_product_sum.h), in binding order, and for each
  // of them its folded permute per operand (-1: none): one entry each.
  std::vector<int> summed{};
  std::vector<std::array<int, 2>> summedPermutes{};
  // A K = 1 product computed after it from its stored or second value (fold_outer_product.h):
  // the matmul op, its folded permute per operand (-1: none), its epilogue group.
  int outer = -1;
  std::array<int, 2> outerPermutes{-1, -1};
  std::vector<int> outerEpilogue{};
};

// The problem matmul op `matmul` computes, its operands read through `permutes` (transposed),
// with the products of the matmuls `summed` added as K parts after its own. No epilogue.
MatmulProblem foldedProblem(const Graph& graph, int matmul, const std::array<int, 2>& permutes,
                            const std::vector<int>& summed, int64_t workgroupBytes,
                            bool cpuDevice);

// The kernel of matmul op `matmul` with `folds`, under chooseTiling's tiling or `tiling`. With a
// sum or an epilogue it stands at that op's place and writes that op's buffer. `problem`, when
// given, receives the product the kernel computes (for product families).
KernelSpec foldedMatmulKernel(const Graph& graph, const BufferPlan& plan, int matmul,
                              const MatmulFolds& folds,
                              std::optional<GemmTiling> tiling = std::nullopt,
                              int64_t workgroupBytes = kDefaultWorkgroupBytes,
                              bool cpuDevice = false, MatmulProblem* problem = nullptr);

// The matmul op of an emitted matmul kernel and its folds, read back from its fusedOps (for a
// test that re-emits it under another tiling).
std::pair<int, MatmulFolds> foldsOf(const Graph& graph, const KernelSpec& kernel);

}  // namespace tg::detail
