// conv2d_input_grad — emitted by tensorgrad's codegen (the real template).
// conv2d's input gradient (gather form), stride (2, 1), padding 1.
// tg-buffer: f32 108 uniform -1 1
// tg-buffer: f32 144 uniform -1 1
// tg-buffer: f32 216 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> weight : array<f32>;
@group(0) @binding(1) var<storage, read> dy : array<f32>;
@group(0) @binding(2) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 216u) { return; }
  let wi = i32(i % 6u);
  let hi = i32((i / 6u) % 6u);
  let ci = i32((i / 36u) % 3u);
  let b = i32(i / 108u);
  let grp = ci / 3i;
  let cl = ci - grp * 3i;
  var s = 0.0;
  for (var col = 0i; col < 4i; col++) {
    let co = grp * 4i + col;
    for (var kh = 0i; kh < 3i; kh++) {
      let nh = hi + 1i - kh;
      if (nh < 0i || nh % 2i != 0i || nh / 2i >= 3i) { continue; }
      let ho = nh / 2i;
      for (var kw = 0i; kw < 3i; kw++) {
        let nw = wi + 1i - kw;
        if (nw < 0i || nw % 1i != 0i || nw / 1i >= 6i) { continue; }
        let wo = nw / 1i;
        s += weight[((co * 3i + cl) * 3i + kh) * 3i + kw] * dy[((b * 4i + co) * 3i + ho) * 6i + wo];
      }
    }
  }
  out[i] = s;
}
