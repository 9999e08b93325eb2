// One workgroup per row: strided partial sums, then a shared-memory tree with barriers; the
// workgroup size and the shared array length are a const expression.
// tg-buffer: f32 3000 uniform -1 1
// tg-buffer: f32 3 zero
// tg-dispatch: 3
const WG = 256u;
var<workgroup> partial : array<f32, WG>;
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let i = wid.x + wid.y * 65535u;
  if (i >= 3u) { return; }
  var s = 0.0;
  for (var j = lid; j < 1000u; j += 256u) {
    s += a[i * 1000u + j];
  }
  partial[lid] = s;
  workgroupBarrier();
  for (var off = 128u; off > 0u; off = off >> 1u) {
    if (lid < off) { partial[lid] = partial[lid] + partial[lid + off]; }
    workgroupBarrier();
  }
  if (lid == 0u) { out[i] = partial[0] / 1000.0; }
}
