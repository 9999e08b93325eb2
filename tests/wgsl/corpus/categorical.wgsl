// categorical — emitted by tensorgrad's codegen (the real template).
// Gumbel-max sampling per row with the PCG hash (one index per row of 18 logits).
// tg-buffer: f32 216 uniform -2 2
// tg-buffer: i32 1 uniform -2000000000 2000000000
// tg-buffer: i32 12 zero
// tg-dispatch: 1
fn pcg(v : u32) -> u32 {
  var h = v * 747796405u + 2891336453u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  return (h >> 22u) ^ h;
}
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> seed : array<i32>;
@group(0) @binding(2) var<storage, read_write> out : array<i32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 12u) { return; }
  var best = -1.0e30;
  var bestIdx = 0i;
  for (var j = 0u; j < 18u; j++) {
    let h = pcg(u32(seed[0]) ^ 0u ^ (i * 18u + j));
    let v = a[i * 18u + j] - log(-log(max(1.0e-10, f32(h) / 4294967296.0)));
    if (v > best) { best = v; bestIdx = i32(j); }
  }
  out[i] = bestIdx;
}
