// Structs: parameters in a uniform buffer and a result struct (scalars and a fixed array) in a
// read_write storage buffer; a private variable and a module-scope const.
// tg-buffer: f32 4 uniform 0.5 2
// tg-buffer: f32 256 uniform -1 1
// tg-buffer: f32 256 zero
// tg-buffer: f32 8 zero
// tg-dispatch: 1
struct Params {
  scale : f32,
  offset : f32,
  bias : f32,
  unused : f32,
}
struct Stats {
  count : u32,
  total : f32,
  corners : array<f32, 4>,
  pad : vec2<f32>,
}
const HALF : f32 = 0.5;
var<private> seen : u32;
@group(0) @binding(0) var<uniform> params : Params;
@group(0) @binding(1) var<storage, read> x : array<f32>;
@group(0) @binding(2) var<storage, read_write> y : array<f32>;
@group(0) @binding(3) var<storage, read_write> stats : Stats;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) i : u32) {
  seen = i;
  y[i] = x[i] * params.scale + params.offset * HALF + f32(seen) * 0.0;
  if (i == 0u) {
    stats.count = 256u;
    stats.total = params.scale + params.offset + params.bias;
    for (var k = 0u; k < 4u; k++) { stats.corners[k] = x[k * 85u]; }
    stats.pad = vec2<f32>(params.bias, -params.bias);
  }
}
