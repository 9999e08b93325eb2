// Vectors (construction, swizzles, dot, length, normalize), bitcast, bit counting, all/any.
// tg-buffer: f32 256 uniform -2 2
// tg-buffer: u32 256 bits
// tg-buffer: f32 1024 zero
// tg-buffer: u32 1024 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> r : array<u32>;
@group(0) @binding(2) var<storage, read_write> fout : array<f32>;
@group(0) @binding(3) var<storage, read_write> uout : array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid3 : vec3<u32>) {
  let i = lid3.x;
  let x = a[i];
  let v = vec3<f32>(x, 1.0, -x);
  let w = vec4<f32>(v.zyx, 2.0);
  fout[i] = dot(v, vec3<f32>(0.5, 2.0, 1.0)) + length(w.xy) + w.w;
  fout[256u + i] = normalize(v + vec3<f32>(0.0, 0.0, 3.0)).z;
  var acc = vec2<f32>(0.0);
  acc.x = x;
  acc.y = acc.x * 2.0;
  fout[512u + i] = acc.y + bitcast<f32>(r[i] & 0x3fffffffu) * 0.0 + f32(select(1, 2, all(v.xy == v.xy)));
  fout[768u + i] = bitcast<f32>(0x3f800000u + (r[i] & 0xffu));
  uout[i] = countOneBits(r[i]);
  uout[256u + i] = reverseBits(r[i]);
  uout[512u + i] = firstLeadingBit(r[i] >> (r[i] & 31u));
  uout[768u + i] = bitcast<u32>(firstLeadingBit(bitcast<i32>(r[i]))) ^ bitcast<u32>(x);
}
