// A 2-D grid: rows of workgroups indexed by gid.y, the way tensorgrad splits large dispatches.
// tg-buffer: f32 2048 uniform -1 1
// tg-buffer: u32 2048 zero
// tg-dispatch: 4 2
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>) {
  let i = gid.x + gid.y * (nwg.x * 256u);
  if (i >= 2048u) { return; }
  out[i] = i * 2u + select(0u, 1u, a[i] > 0.0) + nwg.y * 100000u;
}
