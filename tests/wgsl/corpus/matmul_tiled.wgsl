// 16x16 shared-memory tiled matmul, [2, 32, 48] · [48, 32] (tensorgrad's tiled template).
// tg-buffer: f32 3072 uniform -1 1
// tg-buffer: f32 1536 uniform -1 1
// tg-buffer: f32 2048 zero
// tg-dispatch: 8
var<workgroup> aTile : array<f32, 256>;
var<workgroup> bTile : array<f32, 256>;
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<f32>;
@group(0) @binding(2) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let wg = wid.x + wid.y * 65535u;
  if (wg >= 8u) { return; }
  let bi = wg / 4u;
  let tile = wg % 4u;
  let row = lid / 16u;
  let col = lid % 16u;
  let gRow = (tile / 2u) * 16u + row;
  let gCol = (tile % 2u) * 16u + col;
  let aRow = bi * 1536u + gRow * 48u;
  var s = 0.0;
  for (var k0 = 0u; k0 < 48u; k0 += 16u) {
    aTile[lid] = a[aRow + k0 + col];
    bTile[lid] = b[(k0 + row) * 32u + gCol];
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) {
      s += aTile[row * 16u + kk] * bTile[kk * 16u + col];
    }
    workgroupBarrier();
  }
  out[bi * 1024u + gRow * 32u + gCol] = s;
}
