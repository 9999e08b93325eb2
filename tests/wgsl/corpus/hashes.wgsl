// The PCG hash behind dropout, randn and categorical: u32 multiplication must wrap.
// tg-buffer: i32 1 uniform -2000000000 2000000000
// tg-buffer: u32 512 zero
// tg-buffer: f32 512 zero
// tg-dispatch: 2
fn pcg(v : u32) -> u32 {
  var h = v * 747796405u + 2891336453u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  return (h >> 22u) ^ h;
}
@group(0) @binding(0) var<storage, read> seed : array<i32>;
@group(0) @binding(1) var<storage, read_write> bits : array<u32>;
@group(0) @binding(2) var<storage, read_write> normals : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  if (i >= 512u) { return; }
  let h1 = pcg(u32(seed[0]) ^ 2654435761u ^ i);
  let h2 = pcg(h1);
  bits[i] = h1 ^ (h2 << 3u);
  let u1 = max(1.0e-10, f32(h1) / 4294967296.0);
  let u2 = f32(h2) / 4294967296.0;
  normals[i] = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
