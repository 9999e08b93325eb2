#include "product_families.h"

#include <stdexcept>
#include <tuple>

#include "../ops/matmul_problem.h"

namespace tg::detail {

void shareProductKernels(std::vector<KernelSpec>& kernels,
                         const std::map<size_t, MatmulProblem>& problems) {
  // Candidates by tiling, shape but K, and operand layouts, in kernel order.
  using Key = std::tuple<std::string, int64_t, int64_t, bool, bool>;
  std::map<Key, std::vector<size_t>> groups;
  std::map<size_t, MatmulProblem> normal;  // batch axes of the lhs folded into its rows
  for (const auto& [index, raw] : problems) {
    const MatmulProblem& p = normal[index] = normalized(raw);
    const GemmTiling g = chooseTiling(p);
    if (g.form != GemmTiling::Form::Tiled) continue;  // familyUnsupported checks the rest
    groups[{g.describe(), p.m, p.n, p.transA, p.transB}].push_back(index);
  }
  for (const auto& [key, indices] : groups) {
    const GemmTiling g = chooseTiling(normal.at(indices.front()));
    // Its variants (one per distinct WGSL), each joining while the family stays valid.
    std::vector<MatmulProblem> members;
    std::map<std::string, size_t> memberOf;  // a variant's WGSL → its member
    for (size_t i : indices) {
      if (memberOf.contains(kernels[i].wgsl)) continue;
      members.push_back(normal.at(i));
      if (!familyUnsupported(members, g).empty()) {
        members.pop_back();
        continue;
      }
      memberOf[kernels[i].wgsl] = members.size() - 1;
    }
    if (members.size() < 2) continue;
    const KernelSource family = fastMatmulFamilyKernel(members, g);
    const int64_t blocks = family.threads / g.invocations();
    for (size_t i : indices) {
      const auto it = memberOf.find(kernels[i].wgsl);
      if (it == memberOf.end()) continue;
      const size_t j = it->second;
      KernelSpec& k = kernels[i];
      // Its bindings: lhs, rhs, its epilogue's, out; the others' epilogue slots get its lhs.
      const std::vector<int> own = k.bindings;
      if (own.size() != 3 + (members[j].epilogue ? members[j].epilogue->bindings : 0))
        throw std::logic_error("shareProductKernels: a member's bindings are not its problem's");
      k.bindings = {own[0], own[1]};
      for (size_t m = 0; m < members.size(); ++m) {
        const size_t e = members[m].epilogue ? members[m].epilogue->bindings : 0;
        for (size_t b = 0; b < e; ++b) k.bindings.push_back(m == j ? own[2 + b] : own[0]);
      }
      k.bindings.push_back(own.back());
      k.wgsl = family.wgsl;
      k.threads = (blocks + static_cast<int64_t>(j)) * g.invocations();
    }
  }
}

}  // namespace tg::detail
