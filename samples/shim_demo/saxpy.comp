#version 450
// y = a * x + y over a 2-D grid of 256-thread workgroups (large arrays exceed 65535 groups in x).
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, std140) uniform Params { float a; uint n; } params;
layout(set = 0, binding = 1, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 2, std430) buffer Y { float y[]; };
void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (i < params.n) y[i] = params.a * x[i] + y[i];
}
