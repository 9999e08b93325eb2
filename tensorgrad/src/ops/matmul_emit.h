// Pieces of the fast matmul's WGSL that its forms share: the split-K and column forms
// (matmul_fast.cpp) and the tiled form (matmul_tiled.cpp). Internal to those files.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "matmul_fast.h"

namespace tg::detail::matmul_emit {

std::string both(const std::string& a, const std::string& b);  // a && b, either may be empty
std::string guarded(const std::string& cond, const std::string& stmt);  // if (cond) { stmt }
// The K parts of `p` (MatmulProblem::kParts): one, all of K, where it names none.
std::vector<int64_t> partsOf(const MatmulProblem& p);
// The binding name of K part `part` of an operand named `name` (no kernel names a value so).
std::string partName(const std::string& name, size_t part);

// A product family's member j (fastMatmulFamilyKernel): the names its epilogue defines and reads
// made its own, e<j>_epilogue, e<j>_in<k>, ...; memberEpilogue also moves its bindings from 2,
// 3, ... to `slot`, slot + 1, ...
std::string memberNames(const std::string& wgsl, size_t j);
std::string memberEpilogue(const std::string& wgsl, size_t j, int64_t slot);

// Whether 4 consecutive product elements (from a multiple of 4) may go out as one vec4.
bool vec4Stores(const MatmulProblem& p);
// Stores product element `idx` with value `v` through the epilogue (and an outer product's row
// value to workgroup memory); store4: elements idx .. idx + 3 as one vec4.
std::string store(const MatmulProblem& p, const std::string& idx, const std::string& v);
std::string store4(const MatmulProblem& p, const std::string& idx,
                   const std::array<std::string, 4>& v);
// The forms' shared head: bindings, entry point, the workgroup's batch and block; with
// `family`, every member's epilogue and the member's K.
std::string head(const MatmulProblem& p, const GemmTiling& g, bool vecA, bool vecB, bool vecOut,
                 const std::string& workgroupVars, const std::vector<MatmulProblem>& family = {});

// The tiled form (matmul_tiled.cpp); with `family`, p is its first member.
KernelSource tiledKernel(const MatmulProblem& p, const GemmTiling& g,
                         const std::vector<MatmulProblem>& family = {});

}  // namespace tg::detail::matmul_emit
