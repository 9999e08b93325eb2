// Issue 26 (Tint corpus bug/chromium/339704114.wgsl): WGSL does not evaluate the right side of
// `false &&` or `true ||`, so its const-expressions may not be evaluable.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
fn a(v : i32) -> i32 { return v; }
@compute @workgroup_size(1) fn main() {
  let x = false && (0 < a(4294967295));
  let y = true || (1 / 0 > 0);
  out[0] = select(0u, 1u, x || y);
}
