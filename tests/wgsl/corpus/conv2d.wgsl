// Grouped conv2d, NCHW, padding 1, stride 1: input [1, 4, 6, 6], weight [4, 2, 3, 3], groups 2.
// tg-buffer: f32 144 uniform -1 1
// tg-buffer: f32 72 uniform -1 1
// tg-buffer: f32 144 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> input : array<f32>;
@group(0) @binding(1) var<storage, read> weight : array<f32>;
@group(0) @binding(2) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 144u) { return; }
  let wo = i32(i % 6u);
  let ho = i32((i / 6u) % 6u);
  let co = i32((i / 36u) % 4u);
  let b = i32(i / 144u);
  let grp = co / 2i;
  var s = 0.0;
  for (var cl = 0i; cl < 2i; cl++) {
    let ci = grp * 2i + cl;
    for (var kh = 0i; kh < 3i; kh++) {
      let hi = ho + kh - 1i;
      if (hi < 0i || hi >= 6i) { continue; }
      for (var kw = 0i; kw < 3i; kw++) {
        let wi = wo + kw - 1i;
        if (wi < 0i || wi >= 6i) { continue; }
        s += input[((b * 4i + ci) * 6i + hi) * 6i + wi] * weight[((co * 2i + cl) * 3i + kh) * 3i + kw];
      }
    }
  }
  out[i] = s;
}
