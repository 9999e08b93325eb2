// Column sums read together (KernelSet::Fast only, ops/reduce_fast.h: fastColumnSumsKernel). A
// layernorm's backward sums dy over the rows for its bias's gradient and dy·x̂ for its gain's: a
// column sum reading dy, an element-wise kernel writing dy·x̂ and a column sum reading that back
// (a prologue would give each of that sum's invocations too many elements to compute,
// fold_prologue.h). Column sums of one shape whose inputs read a buffer in common, directly or
// through the fused group that alone computes them, run as one kernel instead: it reads each
// element of their buffers once, evaluates the groups there, and adds the sums side by side.
#pragma once

#include <array>
#include <map>
#include <vector>

#include "buffer_use.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

struct SiblingSums {
  std::vector<bool> folded;           // by op index: computed by a kernel standing at a later op
  std::map<int, KernelSpec> kernels;  // by the op index each kernel stands at (its last sum's)
};

// Up to 4 f32 sum_to_shapes whose fast kernel is a column sum of one [outer, rows, cols] shape
// (cols a multiple of 4), none computed elsewhere or by a matmul (`sumFrom`) or in another
// fold's kernel (`absorbed`); each reads its input from a buffer, or computes it from the group
// its prologue computes or would (reductionInputGroup, fold_prologue.h), and shares a buffer
// with another. A matrix-vector product vᵀ·B (out [1, N], B [K, N] as stored, v K values read
// as stored or through its folded permute, `permuteOf`; nothing folded into it but the identity
// sum it computes, `sumOf`, where it then stands) is such a sum
// of B [1, K, N] with row r weighted by v[r]: an MLP's first-layer weight gradient xᵀ·dh beside
// its bias gradient Σ dh read dh once. The kernel stands at the last sum, where every buffer
// read is still as the sums read it and no op between a sum and there touches that sum's
// output, within 8 storage buffers.
SiblingSums foldSiblingSums(const Graph& graph, const BufferUse& use,
                            const std::vector<std::vector<int>>& groups,
                            const std::vector<bool>& elsewhere,
                            const std::vector<int>& epilogueFrom, const std::vector<int>& sumFrom,
                            const std::vector<bool>& absorbed,
                            const std::vector<std::array<int, 2>>& permuteOf,
                            const std::vector<int>& sumOf);

}  // namespace tg::detail
