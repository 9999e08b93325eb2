// Type aliases (`alias T = array<f32, 4>;`) are names for types, nothing more: this stage, between
// parse and resolve, replaces every use of an alias, in a type or as a constructor's name, with
// the type it names, so the resolver and the writer never see one (the resolver only checks that
// each alias names a valid type, used or not).
#pragma once

#include "ast.h"

namespace wgsl::detail {

// Expands every use of module.aliases in place, and each alias's own type. Fails on a redeclared
// name and on cyclic aliases.
void expandAliases(Module& module);

}  // namespace wgsl::detail
