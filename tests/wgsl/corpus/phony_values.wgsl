// `_ = v;` (a phony assignment of a value, not a pointer) is a static use of v in WGSL, so layout
// "auto" keeps the binding of a buffer that only such statements read, as Dawn's does. From Tint's
// corpus (statements/assign/phony/storage_buffer.wgsl): the shim's layout had left bindings 1 and
// 2 out, since glslang dropped the bare loads, and a bind group with Dawn's entries failed.
// tg-buffer: u32 4 zero
// tg-buffer: i32 4 bits
// tg-buffer: u32 4 bits
// tg-dispatch: 1
struct S {
  i : i32,
  f : f32,
}
@group(0) @binding(0) var<storage, read_write> out : array<u32, 4>;
@group(0) @binding(1) var<storage, read> s : S;
@group(0) @binding(2) var<storage, read> v : vec3u;

@compute @workgroup_size(1)
fn main() {
  _ = s;
  _ = s.i;
  _ = v;
  _ = v.x;
  out[0] = 7u;
}
