// Matmul epilogue folding (KernelSet::Fast only). A product read by nothing but an element-wise
// chain (a bias added through a broadcast, an activation, a residual add; the reshape and
// permute that split attention heads) is written once by the matmul and read back once by the
// chain's kernel, for work the matmul's invocations could do on values already in registers. So
// the fused group that alone reads a fast matmul's value is computed in the matmul's store: each
// invocation passes its finished sums through the chain (reading the chain's other inputs) and
// stores the chain's result where the chain would have, at the permuted index where the chain
// permutes. The matmul then stands at the group's place and writes the group's buffer.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <set>
#include <vector>

#include "../ops/matmul_fast.h"
#include "buffer_use.h"

namespace tg::detail {

// By op index: for a fast matmul, the last op of the fused group (fuse_elementwise.h) it computes
// as its epilogue, else -1. Folds when the product is not empty and not already folded into an
// identity sum_to_shape (sumOf), no earlier product took the group, its value is transient and
// read by one op of the group only, along a path
// of same-shape reads, reshapes and permutes (so each product element gives exactly one element
// of the group's output), every op of the group is fusable (not computed `elsewhere`), the
// group's result is f32, no op between the matmul and the group's end
// rewrites a buffer the matmul reads (its operands, or the sources of its folded permutes
// `permuteOf`), and the kernel stays within 8 storage buffers.
std::vector<int> foldEpilogues(const Graph& graph, const BufferUse& use,
                               const std::vector<std::vector<int>>& groups,
                               const std::vector<bool>& elsewhere,
                               const std::vector<std::array<int, 2>>& permuteOf,
                               const std::vector<int>& sumOf);

// The values `group` reads from outside itself, other than matmul op `matmul`'s product: the
// buffers its epilogue binds.
std::set<int> epilogueInputs(const Graph& graph, int matmul, const std::vector<int>& group);

// The ops of `group` that carry matmul op `matmul`'s value to the group's result, in order;
// empty when the value does not reach the result one element to one element (it is broadcast,
// read by two ops of the group, or read at another shape by an op that is no reshape or
// permute).
std::vector<int> epiloguePath(const Graph& graph, int matmul, const std::vector<int>& group);

// Whether computing `group` on matmul op `matmul`'s value needs a helper function beside the
// epilogue's own (which another epilogue of the same kernel might define too).
bool epilogueNeedsHelper(const Graph& graph, int matmul, const std::vector<int>& group);

// The product a causal softmax (op `softmax`, computed by a kernel of its own) alone reads: the
// matmul op and the end of the epilogue group its value is stored through (the matmul itself
// where none), each -1 where the softmax runs elsewhere (`elsewhere`, or fused into a group of
// `groups`), is not f32, or reads something other than a matmul's transient value.
std::array<int, 2> softmaxScores(const Graph& graph, const BufferUse& use, int softmax,
                                 const std::vector<std::vector<int>>& groups,
                                 const std::vector<int>& epilogueOf,
                                 const std::vector<int>& epilogueFrom,
                                 const std::vector<bool>& elsewhere);

// The epilogue computing `group` (op indices, in order) on the value of matmul op `matmul`; its
// external inputs, in binding order, go to `external`. The products of the matmuls `summed`
// (fold_product_sum.h) are in the matmul's value already: an add of one is its other input, and
// the group's buffers bind after their operands (from 2 + 2 × their count), or from
// `firstBinding`. The functions are named `name` (and `name`4, outIndex where permuted).
// Buffers the kernel binds already are read through its functions (FusedChain::reuse): tensor →
// (element, vec4) function names.
using ReusedBuffers = std::map<int, std::pair<std::string, std::string>>;
MatmulEpilogue matmulEpilogue(const Graph& graph, int matmul, const std::vector<int>& group,
                              std::vector<int>& external, const std::vector<int>& summed = {},
                              std::optional<size_t> firstBinding = std::nullopt,
                              const std::string& name = "epilogue",
                              const ReusedBuffers& reuse = {});

}  // namespace tg::detail
