// Issue 26: & and | take bool operands, ^ does not.
@compute @workgroup_size(1) fn main() {
  let x = true ^ false;
}
