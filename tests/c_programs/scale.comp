// async_pipeline's second kernel, given to the shim as SPIR-V (WGPUShaderSourceSPIRV).
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint v[]; } data;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < data.v.length()) data.v[i] = data.v[i] * 2u + 1u;
}
