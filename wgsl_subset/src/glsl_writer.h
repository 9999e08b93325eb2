// The GLSL writer: spells a resolved, validated module as GLSL 450 for glslang, with WGSL's
// semantics made explicit (the table in README.md): integer division and remainder helpers,
// masked shift amounts, saturating float-to-integer conversion, clamped indices, zeroed
// variables and workgroup memory, `continue` reaching the continuing block. It never rejects:
// whatever it cannot spell, the resolver or validator has already refused.
#pragma once

#include <string>

#include "ir.h"

namespace wgsl::detail {

// The module's entry point (`module.entry`) as GLSL's main, with every function it may call.
std::string writeGlsl(const ir::Module& module);

}  // namespace wgsl::detail
