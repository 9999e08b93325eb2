// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. shadowing/loop.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  var i = 0u;
  loop {
    var x = i;
    continuing {
      var x = 2u;
      i += x;
      break if i > 6u;
    }
  }
  out[0] = i;
}
