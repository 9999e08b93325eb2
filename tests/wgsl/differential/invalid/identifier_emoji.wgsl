// Issue 26: an emoji is no identifier character (XID_Start/XID_Continue); Tint rejects it.
@compute @workgroup_size(1) fn main() {
  let 😀 = 1;
}
