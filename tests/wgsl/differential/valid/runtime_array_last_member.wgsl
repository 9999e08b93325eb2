// Issue 29: a runtime-sized array as the last member of a storage buffer's struct.
struct Particles { count : u32, @align(16) scale : f32, items : array<vec2f> }
@group(0) @binding(0) var<storage, read_write> ps : Particles;
@compute @workgroup_size(1) fn main() {
  let n = arrayLength(&ps.items);
  ps.count = n;
  ps.items[n - 1u] = vec2f(ps.scale);
  let p = &ps.items;
  (*p)[0] = vec2f(1.0);
}
