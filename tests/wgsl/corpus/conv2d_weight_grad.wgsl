// conv2d_weight_grad — emitted by tensorgrad's codegen (the real template).
// conv2d's weight gradient, stride (2, 1), padding 1.
// tg-buffer: f32 216 uniform -1 1
// tg-buffer: f32 144 uniform -1 1
// tg-buffer: f32 108 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> input : array<f32>;
@group(0) @binding(1) var<storage, read> dy : array<f32>;
@group(0) @binding(2) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 108u) { return; }
  let kw = i32(i % 3u);
  let kh = i32((i / 3u) % 3u);
  let cl = i32((i / 9u) % 3u);
  let co = i32(i / 27u);
  let ci = (co / 4i) * 3i + cl;
  var s = 0.0;
  for (var b = 0i; b < 2i; b++) {
    for (var ho = 0i; ho < 3i; ho++) {
      let hi = ho * 2i + kh - 1i;
      if (hi < 0i || hi >= 6i) { continue; }
      for (var wo = 0i; wo < 6i; wo++) {
        let wi = wo * 1i + kw - 1i;
        if (wi < 0i || wi >= 6i) { continue; }
        s += input[((b * 3i + ci) * 6i + hi) * 6i + wi] * dy[((b * 4i + co) * 3i + ho) * 6i + wo];
      }
    }
  }
  out[i] = s;
}
