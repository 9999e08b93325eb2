#version 450
// The benchmark kernel: one small workgroup that adds 1 to 64 elements in place.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) buffer B { uint b[]; };
void main() { b[gl_GlobalInvocationID.x] += 1u; }
