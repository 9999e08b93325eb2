// Issue 29: modf and frexp of f32 scalars and vectors (abstract arguments made f32), their
// result structs' members.
@group(0) @binding(0) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(1) fn main() {
  let m = modf(out[0]);
  let mv = modf(vec4f(out[1]));
  let f = frexp(out[2]);
  let fv = frexp(vec3(1.5, 2.0, out[3]));
  out[4] = m.fract + m.whole + mv.fract.w + f.fract + f32(f.exp) + fv.fract.z + f32(fv.exp.x) +
           modf(1.5).whole + f32(frexp(8).exp) + modf(vec2(3, 4)).whole.y;
}
