#version 450
// Copies an indirect dispatch's workgroup counts to scratch, zeroing them when any count exceeds
// the device limit: WebGPU skips such a dispatch, where Vulkan's behaviour would be undefined.
layout(local_size_x = 1) in;
layout(push_constant) uniform Params {
  uint srcWord;   // index of the x count in `src`
  uint maxCount;  // maxComputeWorkgroupsPerDimension
} params;
layout(set = 0, binding = 0, std430) readonly buffer Src { uint src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uint dst[]; };

void main() {
  uint x = src[params.srcWord];
  uint y = src[params.srcWord + 1u];
  uint z = src[params.srcWord + 2u];
  bool ok = x <= params.maxCount && y <= params.maxCount && z <= params.maxCount;
  dst[0] = ok ? x : 0u;
  dst[1] = ok ? y : 0u;
  dst[2] = ok ? z : 0u;
}
