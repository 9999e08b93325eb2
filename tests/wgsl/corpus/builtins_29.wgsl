// Issue 29's builtins: workgroupUniformLoad (a scalar, an array element, an atomic, through a
// helper's pointer parameter; its value steers a barrier), modf and frexp (scalars and vectors,
// their result structs), bitcasts between 32-bit vectors, cross, select with a vector condition,
// builtins as a struct's members.
// Every result is exact, so it must match Dawn bit for bit.
// tg-buffer: f32 64 uniform -1000 1000
// tg-buffer: u32 64 bits
// tg-buffer: u32 512 zero
// tg-dispatch: 2
@group(0) @binding(0) var<storage, read> xs : array<f32, 64>;
@group(0) @binding(1) var<storage, read> bits : array<vec4u, 16>;
@group(0) @binding(2) var<storage, read_write> out : array<u32>;

var<workgroup> steps : u32;
var<workgroup> table : array<vec2f, 8>;
var<workgroup> hits : atomic<u32>;

fn loadSteps(p : ptr<workgroup, u32>) -> u32 { return workgroupUniformLoad(p); }

// The entry point's builtins as a struct's members.
struct Ids {
  @builtin(local_invocation_index) li : u32,
  @builtin(workgroup_id) wg : vec3u,
}

@compute @workgroup_size(8)
fn main(ids : Ids) {
  let li = ids.li;
  let wg = ids.wg;
  let t = wg.x * 8u + li;
  if (li == 0u) { steps = 3u + wg.x; }
  table[li] = vec2f(f32(li), f32(t));
  atomicAdd(&hits, li + 1u);
  let n = workgroupUniformLoad(&steps);
  var acc = 0u;
  for (var k = 0u; k < n; k++) {
    workgroupBarrier();  // uniform: n came from workgroupUniformLoad
    acc += k;
  }
  let row = workgroupUniformLoad(&table[5]);
  let h = workgroupUniformLoad(&hits);
  let o = t * 16u;
  out[o] = acc + loadSteps(&steps);
  out[o + 1u] = bitcast<u32>(row.y) ^ h;
  // modf and frexp of scalars and vectors.
  let x = xs[t];
  let m = modf(x);
  let mv = modf(vec3f(x, -x * 0.5, x / 7.0));
  let f = frexp(x);
  let fv = frexp(vec2f(x * 3.0, x - 1000.5));
  out[o + 2u] = bitcast<u32>(m.fract) ^ bitcast<u32>(m.whole);
  out[o + 3u] = bitcast<u32>(mv.fract.y + mv.whole.z + mv.fract.z);
  out[o + 4u] = bitcast<u32>(f.fract) + bitcast<u32>(f.exp);
  out[o + 5u] = bitcast<u32>(fv.fract.x) ^ bitcast<u32>(fv.exp.y + fv.exp.x * 64);
  // Vector bitcasts.
  let b = bits[t % 16u];
  let asF = bitcast<vec4f>(b & vec4u(0x3fffffffu));
  let asI = bitcast<vec4i>(b);
  out[o + 6u] = dot(bitcast<vec4u>(asI >> vec4u(3u)), vec4u(1u, 3u, 5u, 7u));
  out[o + 7u] = bitcast<vec2u>(asF.xz + vec2f(1.0)).x ^ bitcast<u32>(asF.w);
  // cross of small integers: exact.
  let c = cross(vec3f(floor(x), 1.0, 2.0), vec3(3.0, floor(x / 10.0), -1.0));
  out[o + 8u] = bitcast<u32>(c.x + c.y * 4096.0) ^ bitcast<u32>(c.z);
  // select with a vector condition: component by component.
  out[o + 9u] = dot(select(vec4u(1u, 2u, 3u, 4u), b, b > vec4u(0x80000000u)), vec4u(1u, 5u, 7u, 11u));
}
