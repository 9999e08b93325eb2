// The GLSL prelude (helpers for WGSL's integer and conversion semantics) and the small
// spellings the writer shares: array dimensions, zero values, builtin names.
#pragma once

#include <string>

#include "types.h"

namespace wgsl::detail {

// The prelude helpers `code` calls, and those they call, in the prelude's order (glslang keeps
// uncalled functions: translate.cpp does not link).
// `f16`: the module enables f16, whose overloads join in.
std::string usedPrelude(const std::string& code, bool f16 = false);
// GLSL's array dimensions of `t`, outermost first ("" for a non-array; "[]" runtime-sized).
std::string dims(const Type& t);
// The zero value of a scalar, vector or matrix; "" for other types.
std::string zeroOf(const Type& t);
// GLSL's name for a WGSL builtin function.
std::string builtinName(const std::string& wgsl);
// GLSL's variable for a compute @builtin.
std::string invocationBuiltin(const std::string& wgsl);

}  // namespace wgsl::detail
