// Resolves names and types (WGSL's rules: abstract literals, conversions, address spaces and
// access modes, builtin overloads) and lowers the module to GLSL 450 with WGSL semantics made
// explicit: integer division and remainder by zero, masked shift amounts, saturating float to
// integer conversion, clamped array indices (never outside a binding).
#pragma once

#include "ast.h"
#include "wgsl_subset/wgsl_subset.h"

namespace wgsl::detail {

struct Lowered {
  std::string glsl;
  Reflection reflection;
};

// `entryPoint`: the @compute function to lower (the others are left out); empty: the first.
Lowered lower(const Module& module, const std::string& entryPoint = {});

}  // namespace wgsl::detail
