// WGSL module-scope declarations may be used before they are declared; they are resolved in
// dependency order (what a declaration uses, first), which also finds recursion and cycles.
#pragma once

#include <cstddef>
#include <vector>

#include "ast.h"

namespace wgsl::detail {

struct DeclarationRef {
  enum class Kind { Struct, Global, Function } kind;
  size_t index;  // into Module::structs, globals or functions
};

// Every module-scope declaration, each after those it uses. Fails on a redeclared name, on
// recursion and on cyclic dependencies.
std::vector<DeclarationRef> declarationOrder(const Module& module);

}  // namespace wgsl::detail
