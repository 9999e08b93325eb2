// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. bug/tint/2201.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  var i = 0u;
  loop {
    let next = i + 1u;
    if (i == 1u) { continue; }
    out[i] = next;
    continuing {
      var next2 = next;
      i = next2;
      break if i >= 4u;
    }
  }
}
