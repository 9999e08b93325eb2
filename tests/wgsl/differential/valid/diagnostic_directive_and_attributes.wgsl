// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. diagnostic_filtering/loop_body_attribute.wgsl.
diagnostic(off, derivative_uniformity);
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  var i = 0u;
  loop @diagnostic(off, derivative_uniformity) {
    if (i >= 3u) { break; }
    i++;
  }
  @diagnostic(off, derivative_uniformity) if (i == 3u) { out[0] = i; }
}
