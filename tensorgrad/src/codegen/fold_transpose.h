// Transpose folding (KernelSet::Fast only). Autograd writes every transpose out as a Permute op
// with its own kernel (a weight gradient is matmul(swapAxes(x), dy), an input gradient
// matmul(dy, swapAxes(W))), which costs a full read and write of the operand and a dispatch for
// nothing: the fast matmul can read either operand transposed. So a matmul operand produced by
// a Permute swapping only the last two axes is read from the permute's input with transposed
// indexing, and the permute emits no kernel, when nothing else needs the permuted value (see
// foldTransposes).
#pragma once

#include <array>
#include <set>
#include <vector>

#include "buffer_use.h"

namespace tg::detail {

// For each op: when it is a matmul with folded operands, the permute op index per operand
// (lhs, rhs; -1 where not folded); else {-1, -1}.
struct TransposeFolds {
  std::vector<std::array<int, 2>> permuteOf;  // by matmul op index
  std::vector<bool> folded;                   // by op index: a permute computed inside a matmul
};

// A permute folds into the matmul reading it when it swaps exactly the last two axes, the
// permuted value is transient (that matmul its only reader, no output, capture or writeback
// source), its source's buffer is not rewritten between the permute and the matmul (the matmul
// reads it later than op order did), and the product is not empty (empty products take
// upstream's kernel, which cannot read transposed). Permutes in `materialized` stay kernels.
TransposeFolds foldTransposes(const Graph& graph, const BufferUse& use,
                              const std::set<int>& materialized = {});

// The permutes folded into matmul op `matmul` (lhs, rhs; -1 where none), read from
// foldTransposes' `permuteOf`, which is empty where the kernel set folds none.
std::array<int, 2> permutesOf(const std::vector<std::array<int, 2>>& permuteOf, int matmul);

// The tensors matmul op `matmul` reads its operands from, under its folded `permutes` (lhs, rhs;
// -1 where none): each operand, or its folded permute's input.
std::array<int, 2> operandSources(const Graph& graph, int matmul,
                                  const std::array<int, 2>& permutes);

}  // namespace tg::detail
