// WGSL memory layouts (issue 29): @size and @align members (GLSL pads the struct so std430 and
// std140 put every member at WGSL's offset), nested and in arrays, in a storage and a uniform
// buffer; a runtime-sized array as a struct's last member; storage buffers whose type is a
// scalar, a vector, an atomic or a matrix. Inputs are random bits, so a member read from the
// wrong offset reads a different value than Dawn's.
// tg-buffer: u32 64 bits
// tg-buffer: u32 64 bits
// tg-buffer: u32 64 zero
// tg-buffer: u32 40 bits
// tg-buffer: u32 1 zero
// tg-buffer: f32 4 uniform -4 4
// tg-buffer: u32 1 zero
// tg-buffer: f32 8 uniform -4 4
// tg-dispatch: 1
struct Inner {
  @size(12) x : u32,
  @align(16) y : vec2u,
}
struct S {
  a : u32,
  @size(20) b : u32,
  @align(32) c : vec2u,
  inner : Inner,
  arr : array<Inner, 2>,
  @align(64) last : u32,
}
struct Tail {
  count : u32,
  @align(16) scale : u32,
  items : array<vec2u>,
}
@group(0) @binding(0) var<storage, read> src : S;
@group(0) @binding(1) var<uniform> usrc : S;
@group(0) @binding(2) var<storage, read_write> dst : S;
@group(0) @binding(3) var<storage, read_write> tail : Tail;
@group(0) @binding(4) var<storage, read_write> counter : atomic<u32>;
@group(0) @binding(5) var<storage, read_write> v : vec3<f32>;
@group(0) @binding(6) var<storage, read_write> n : u32;
@group(0) @binding(7) var<storage, read_write> m : mat4x2<f32>;

@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) i : u32) {
  atomicAdd(&counter, i + 1u);
  workgroupBarrier();
  if (i == 0u) {
    // Whole-struct copy from storage, then members from the uniform copy.
    dst = src;
    dst.b = usrc.b ^ src.last;
    dst.inner = usrc.arr[1];
    dst.arr[0].y = usrc.inner.y + usrc.c;
    dst.last = usrc.last + usrc.a + usrc.arr[0].x;
    // A local copy, built with a constructor (its padding is invisible to WGSL).
    let local = S(1u, 2u, vec2u(3u, 4u), Inner(5u, vec2u(6u)), array(Inner(7u, vec2u(8u)), src.inner),
                  9u);
    dst.arr[1].x = local.arr[1].x + local.inner.y.y + local.last;
    tail.count = arrayLength(&tail.items);
    tail.scale = tail.scale * 3u;
    n = atomicLoad(&counter) + tail.count;
    v = vec3f(v.z, v.x, v.y) * 2.0;
    m[3] = m[0] + m[1];
    m[2].y = 1.5;
  }
  let k = arrayLength(&tail.items);
  tail.items[i % k] = tail.items[(i + 1u) % k] + vec2u(tail.scale, i);
}
