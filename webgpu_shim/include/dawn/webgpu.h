// Dawn's include path for the standard C API: the same header as <webgpu/webgpu.h>.
#pragma once

#include <webgpu/webgpu.h>
