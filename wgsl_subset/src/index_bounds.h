// Which indexing of fixed-size arrays and vectors provably stays in range, so the writer can
// leave out the clamp that WGSL's robustness rule otherwise costs every access (an add and a
// min per load in a GEMM's inner loop, and no constant address offsets for the driver to fold).
//
// An upper bound is derived for u32 index expressions from what cannot change: literals and
// constants, immutable `let`s, the entry point's @builtin(local_invocation_index) and
// @builtin(local_invocation_id) (bounded by @workgroup_size), and +, *, /, %, &, |, ^, >>, <<,
// min, max and select over them, with any step that could wrap past 2³² − 1 giving up. An index
// whose bound is below the extent is in range; anything else keeps its clamp.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir.h"

namespace wgsl::detail {

class IndexBounds {
 public:
  explicit IndexBounds(const ir::Module& module);
  // `index` (an Index expression) reads or writes an element that exists.
  bool inRange(const ir::Expr& index) const { return inRange_.contains(&index); }

 private:
  void function(const ir::Function& f);
  void stmt(const ir::Stmt* s);
  void visit(const ir::Expr* e);
  std::optional<uint64_t> max(const ir::Expr* e) const;

  const ir::Function* entry_ = nullptr;  // the function being walked, if an entry point
  std::unordered_map<const ir::Variable*, std::optional<uint64_t>> lets_;
  std::unordered_set<const ir::Expr*> inRange_;
};

}  // namespace wgsl::detail
