// max_pool_2d_grad — emitted by tensorgrad's codegen (the real template).
// max pooling's gradient: each input sums dy over the windows whose first maximum it is.
// tg-buffer: f32 216 uniform -1 1
// tg-buffer: f32 54 uniform -1 1
// tg-buffer: f32 216 zero
// tg-dispatch: 1
fn argmaxOf(plane : i32, ho : i32, wo : i32) -> i32 {
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
  return arg;
}
@group(0) @binding(0) var<storage, read> input : array<f32>;
@group(0) @binding(1) var<storage, read> dy : array<f32>;
@group(0) @binding(2) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 216u) { return; }
  let wi0 = i32(i % 6u);
  let hi0 = i32((i / 6u) % 6u);
  let c = i32((i / 36u) % 3u);
  let b = i32(i / 108u);
  let plane = (b * 3i + c) * 36i;
  let dyPlane = (b * 3i + c) * 9i;
  var s = 0.0;
  let hi = hi0;
  let wi = wi0;
    for (var kh = 0i; kh < 3i; kh++) {
      let nh = hi + 1i - kh;
      if (nh < 0i || nh % 2i != 0i || nh / 2i >= 3i) { continue; }
      let ho = nh / 2i;
      for (var kw = 0i; kw < 3i; kw++) {
        let nw = wi + 1i - kw;
        if (nw < 0i || nw % 2i != 0i || nw / 2i >= 3i) { continue; }
        let wo = nw / 2i;
        s += select(0.0, dy[dyPlane + ho * 3i + wo], argmaxOf(plane, ho, wo) == hi0 * 6i + wi0);
      }
    }
  out[i] = s;
}
