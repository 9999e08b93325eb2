// The remaining trigonometric and hyperbolic builtins, and a block statement. WGSL bounds their
// error only loosely (inherited from atan2 / exp), and implementations differ by up to ~1e-4
// (llvmpipe's GLES vs Vulkan acos), so this file is compared with a looser tolerance.
// tg-rtol: 5e-4
// tg-buffer: f32 256 uniform -3 3
// tg-buffer: f32 1024 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  let x = a[i];
  {
    let y = x / 3.5;
    out[i] = acos(y) + asin(y);
    out[256u + i] = atan(x) + tan(y);
    out[512u + i] = cosh(y) - sinh(y);
    out[768u + i] = ceil(x) + abs(y);
  }
}
