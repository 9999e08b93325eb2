// Resolving a device's limits from the adapter's and the requested ones, with WebGPU's rules:
// "maximum" limits may be requested up to the adapter's value, "alignment" limits down to it.
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <string>

namespace wgpu::detail {

// Fills `out` with the device's limits; returns an error naming the first bad limit, or "".
std::string ResolveLimits(const Limits& adapter, const Limits* required, Limits* out);

}  // namespace wgpu::detail
