// The constructs issue 26 made translate (classes from Tint's test corpus), run on random inputs
// against Dawn: integer vector / and % (zero divisors, INT_MIN / -1, scalar operands), vector
// f32 -> i32/u32 conversions (saturating), bool & and |, dot on integer vectors, struct and
// inferred array constructors, const vectors and arrays, an inferred module-scope var, a body
// `let` used in `continuing`, swizzle assignment, a whole-struct copy between storage buffers.
// tg-buffer: f32 256 uniform -3e9 3e9
// tg-buffer: u32 1024 zero
// tg-buffer: u32 8 bits
// tg-buffer: u32 8 zero
// tg-dispatch: 1
struct S { a : vec4<u32>, n : u32 }
struct P { x : f32, k : vec2<u32> }
@group(0) @binding(0) var<storage, read> floats : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<u32>;
@group(0) @binding(2) var<storage, read> src : S;
@group(0) @binding(3) var<storage, read_write> dst : S;

fn ints(j : u32) -> i32 { return bitcast<i32>(floats[j] * 7.0) >> (j & 15u); }

const table = array(vec2(1, -2), vec2(3, 4));
const scale = vec3(0.5, 2, 4);
var<private> bias = vec2(7u, 9u);

fn pick(p : P) -> u32 { return p.k.y + u32(p.x); }

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i : u32) {
  let o = i * 16u;
  let a = vec3<i32>(ints(i), ints((i + 1u) % 256u), -2147483647 - 1);
  let b = vec3<i32>(ints((i + 7u) % 256u) % 5, 0, -1);
  let q = a / b;
  let r = a % b;
  let s = 1000 / b;
  let uq = vec2<u32>(u32(ints(i)), 9u) / vec2<u32>(u32(b.x), 0u);
  out[o] = bitcast<u32>(q.x) ^ bitcast<u32>(q.y) ^ bitcast<u32>(q.z);
  out[o + 1u] = bitcast<u32>(r.x + r.y + r.z + s.x + s.y + s.z) + uq.x + uq.y;

  let f = vec4<f32>(floats[i], floats[(i + 3u) % 256u], floats[(i + 5u) % 256u] * 1e30, -floats[i]);
  let fi = vec4<i32>(f);
  let fu = vec4<u32>(f);
  out[o + 2u] = bitcast<u32>(fi.x) ^ bitcast<u32>(fi.y) ^ bitcast<u32>(fi.z) ^ bitcast<u32>(fi.w);
  out[o + 3u] = fu.x ^ fu.y ^ fu.z ^ fu.w;
  let fr = vec2<f32>(5.5, -5.5) % vec2<f32>(f.x * 1e-9 + 0.75, 2.0);
  out[o + 4u] = bitcast<u32>(fr.x + fr.y);

  let yes = ((a.x > 0) & (b.x != 0)) | (q.x < 0);
  let vb = vec2<bool>(a.x > 0, a.y > 0) | vec2<bool>(false, b.x == 0);
  out[o + 5u] = select(0u, 1u, yes) + select(0u, 2u, vb.x) + select(0u, 4u, vb.y);
  out[o + 6u] = bitcast<u32>(dot(a, vec3<i32>(1, 2, 3))) + dot(vec2<u32>(i, 3u), vec2<u32>(5u, i));

  out[o + 7u] = pick(P(f32(i) * 0.5, vec2(i, 2u * i))) + array(i, i + 1u, 3u)[i % 3u];
  out[o + 8u] = bitcast<u32>(table[i & 1u].y) + u32(scale.z) + bias.y;
  bias.x += i;

  var acc = 0u;
  var k = 0u;
  loop {
    let step = (k * 3u + i) & 7u;
    if (step == 5u) { k++; continue; }
    acc += step;
    continuing {
      k += 1u;
      acc += step * 16u;
      break if k >= 6u;
    }
  }
  out[o + 9u] = acc;

  var v = vec4<u32>(i, 1u, 2u, 3u);
  v.zy = vec2(5u, i);
  v.yz.y += 7u;
  v.xw = v.wx;
  out[o + 10u] = v.x * 1000u + v.y * 100u + v.z * 10u + v.w;
  let z = vec3<f32>();
  out[o + 11u] = u32(z.x + z.y + z.z) + u32(bool()) + u32() + bias.x;

  if (i == 0u) {
    dst = src;
    dst.n = src.n + 1u;
  }
}
