// The validator: WGSL's rules that are not about types, checked on the resolved module.
// Control flow (validate_control_flow.cpp): where break, continue, break if and return may
// appear, that loops exit, that functions returning a value end with a return, switch cases,
// and that the module has a compute entry point.
// Uniformity (validate_uniformity.cpp): barriers only under uniform control flow.
#pragma once

#include "ir.h"

namespace wgsl::detail {

void validate(const ir::Module& module);

void checkControlFlow(const ir::Function& function);
void checkUniformity(const ir::Module& module);

}  // namespace wgsl::detail
