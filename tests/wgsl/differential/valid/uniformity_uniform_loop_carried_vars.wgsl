struct Params { n : u32, k : u32 }
@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@group(0) @binding(1) var<uniform> params : Params;
var<workgroup> tile : array<f32, 64>;
fn sync(step : u32) { if (step > 0u) { workgroupBarrier(); } }
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) lid : u32,
                                     @builtin(workgroup_id) wid : vec3u) {
  var acc = 0.0;
  for (var t = 0u; t < params.n; t += 64u) {
    tile[lid] = b[t + lid];
    workgroupBarrier();
    for (var k = 0u; k < params.k; k++) { acc += tile[k]; }
    workgroupBarrier();
  }
  var s = 32u;
  loop {
    if (s == 0u) { break; }
    if (lid < s) { tile[lid] += tile[lid + s]; }
    sync(s);
    s = s >> 1u;
  }
  for (var i = wid.x; i < 4u; i++) { sync(i); }
  b[lid] = acc + tile[0];
}
