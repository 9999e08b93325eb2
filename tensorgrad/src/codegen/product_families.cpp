#include "product_families.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <tuple>

#include "../ops/matmul_problem.h"

namespace tg::detail {

namespace {

constexpr double kCopyMinFlops = 1 << 30;

// A family: its tiling, its members' problems (one per variant) and each of its kernels' member.
struct Family {
  GemmTiling tiling;
  std::vector<MatmulProblem> members;
  std::map<size_t, size_t> memberOf;  // kernel index → member
};

// The families among `problems` (by kernel index), kernels of one `variant` one member; each
// variant joins its candidates' family in kernel order while the family stays valid.
std::vector<Family> findFamilies(const std::map<size_t, MatmulProblem>& problems,
                                 const std::function<std::string(size_t)>& variant) {
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
  std::vector<Family> families;
  for (const auto& [key, indices] : groups) {
    Family f{.tiling = chooseTiling(normal.at(indices.front()))};
    std::map<std::string, size_t> memberOfVariant;
    for (size_t i : indices) {
      const std::string v = variant(i);
      if (const auto it = memberOfVariant.find(v); it != memberOfVariant.end()) {
        f.memberOf[i] = it->second;
        continue;
      }
      f.members.push_back(normal.at(i));
      if (!familyUnsupported(f.members, f.tiling).empty()) {
        f.members.pop_back();
        continue;
      }
      f.memberOf[i] = memberOfVariant[v] = f.members.size() - 1;
    }
    if (f.members.size() >= 2) families.push_back(std::move(f));
  }
  return families;
}

}  // namespace

std::set<int> transposesJoiningFamilies(const std::vector<KernelSpec>& kernels,
                                        const std::map<size_t, MatmulProblem>& problems,
                                        const std::map<size_t, int>& rhsPermutes) {
  // Only long products: the copy reads and writes the weight once a step in a kernel of its
  // own, which products under 2^30 multiply-adds ×2 did not win back (on an H200, with
  // upstream's permute making the copies: MLP H1024 B256 and H256 B4096 6–13 µs slower a step,
  // D256 30–40). The count in double: four dimensions' product can pass int64's range.
  std::map<size_t, int> candidates;
  for (const auto& [index, permute] : rhsPermutes) {
    const MatmulProblem& p = problems.at(index);
    const double flops = 2.0 * static_cast<double>(p.batches) * static_cast<double>(p.m) *
                         static_cast<double>(p.n) * static_cast<double>(p.k);
    if (flops >= kCopyMinFlops) candidates[index] = permute;
  }
  std::map<size_t, MatmulProblem> asCopies = problems;
  for (const auto& [index, permute] : candidates) asCopies.at(index).transB = false;
  const auto variant = [&](size_t i) {
    return candidates.contains(i) ? kernels[i].wgsl + "\n// read from a copy" : kernels[i].wgsl;
  };
  std::set<int> copies;
  for (const Family& f : findFamilies(asCopies, variant)) {
    const auto readsAsStored = [&](const auto& km) { return !candidates.contains(km.first); };
    if (std::ranges::none_of(f.memberOf, readsAsStored)) continue;  // a family without copies too
    for (const auto& [index, member] : f.memberOf)
      if (const auto it = candidates.find(index); it != candidates.end()) copies.insert(it->second);
  }
  return copies;
}

void shareProductKernels(std::vector<KernelSpec>& kernels,
                         const std::map<size_t, MatmulProblem>& problems) {
  const auto variant = [&](size_t i) { return kernels[i].wgsl; };
  for (const Family& family : findFamilies(problems, variant)) {
    const GemmTiling& g = family.tiling;
    const std::vector<MatmulProblem>& members = family.members;
    const KernelSource kernel = fastMatmulFamilyKernel(members, g);
    const int64_t blocks = kernel.threads / g.invocations();
    for (const auto& [i, j] : family.memberOf) {
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
      k.wgsl = kernel.wgsl;
      k.threads = (blocks + static_cast<int64_t>(j)) * g.invocations();
    }
  }
}

}  // namespace tg::detail
