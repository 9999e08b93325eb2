// Dawn's own path for its C++ header (Dawn's <webgpu/webgpu_cpp.h> forwards here): programs
// written for Dawn include either, and both give the shim's header.
#pragma once

#include <webgpu/webgpu_cpp.h>  // IWYU pragma: export
