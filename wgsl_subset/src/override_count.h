// Array counts that are override-expressions: the postfix program pipeline creation evaluates
// (wgsl_subset.h: ComputedCount, evaluateCount).
#pragma once

#include <string>
#include <vector>

#include "ir.h"
#include "wgsl_subset/wgsl_subset.h"

namespace wgsl::detail {

// Appends `e`'s program to `program` and spells `e` in `text`: "" when done, else what in `e`
// the program cannot hold (the resolver reports it as unsupported). Overrides are referred to by
// SpecId.
std::string overrideCountProgram(const ir::Expr* e, std::vector<std::string>& program,
                                 std::string& text);

}  // namespace wgsl::detail
