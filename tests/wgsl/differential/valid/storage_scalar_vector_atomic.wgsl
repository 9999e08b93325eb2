// Issue 29: storage and uniform buffers whose type is a scalar, a vector, an atomic or a matrix.
@group(0) @binding(0) var<storage, read_write> n : u32;
@group(0) @binding(1) var<storage, read_write> v : vec3<f32>;
@group(0) @binding(2) var<storage, read_write> count : atomic<u32>;
@group(0) @binding(3) var<storage, read> m : mat2x2<f32>;
@group(0) @binding(4) var<uniform> k : vec4<i32>;
@group(0) @binding(5) var<storage, read> arr : array<vec4f, 4>;
@group(1) @binding(0) var<uniform> uarr : array<vec4f, 4>;
@compute @workgroup_size(1) fn main() {
  n += 1u;
  v = vec3f(f32(n)) + m[1].xyx + arr[2].xyz + uarr[k.x].xyz;
  atomicAdd(&count, u32(k.y));
}
