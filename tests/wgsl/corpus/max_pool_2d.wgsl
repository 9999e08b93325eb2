// max_pool_2d — emitted by tensorgrad's codegen (the real template).
// 3x3 max pooling, stride 2, padding 1 (padding counts as -inf).
// tg-buffer: f32 216 uniform -1 1
// tg-buffer: f32 54 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> input : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 54u) { return; }
  let wo = i32(i % 3u);
  let ho = i32((i / 3u) % 3u);
  let c = i32((i / 9u) % 3u);
  let b = i32(i / 27u);
  let plane = (b * 3i + c) * 36i;
  var m = -3.4e38;
  var arg = -1i;
    for (var kh = 0i; kh < 3i; kh++) {
      let hi = ho * 2i + kh - 1i;
      if (hi < 0i || hi >= 6i) { continue; }
      for (var kw = 0i; kw < 3i; kw++) {
        let wi = wo * 2i + kw - 1i;
        if (wi < 0i || wi >= 6i) { continue; }
        let v = input[plane + hi * 6i + wi];
        if (v > m) { m = v; arg = hi * 6i + wi; }
      }
    }
  out[i] = m;
}
