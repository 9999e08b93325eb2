// Issue 26 (Tint corpus bug/chromium/1367602_storage_space.wgsl): loading a whole storage
// array makes a value of 1000000 elements, over 65535.
@group(0) @binding(0) var<storage> v : array<i32, 1000000>;
@compute @workgroup_size(1) fn main() {
  _ = v;
}
