// Dawn's own path for its stream operators (see dawn/webgpu_cpp.h).
#pragma once

#include <webgpu/webgpu_cpp_print.h>  // IWYU pragma: export
