// Recursive-descent parser for the WGSL subset. Syntax errors and constructs outside the subset
// throw CompileError with the offending token's position.
#pragma once

#include "ast.h"
#include "lexer.h"

namespace wgsl::detail {

Module parse(std::string_view source);

}  // namespace wgsl::detail
