// Dawn's ComputeFlowControlTests, re-checked on the shim: a kernel appends values to a storage
// log (a count, then the values) through a helper function, straight or under if / if-else on an
// input, with the log's array runtime-sized or fixed, the count bumped by ++, by assignment or by
// 4; the log must hold exactly the values of the path taken, the rest of the buffer untouched. A
// switch that returns from a helper called twice must give a valid pipeline.
#include <string>

#include "e2e.h"

using namespace e2e;

namespace {

constexpr uint32_t D = 0xdeadbeef;  // the log's initial contents past its count

// The log, the input and push(value); `array` is the log's array type, `bump` advances count.
std::string Prelude(const char* array = "array<u32>", const char* bump = "log.count++;") {
  return std::string("struct Log {\n  count : u32,\n  values : ") + array +
         ",\n}\n"
         "@group(0) @binding(0) var<storage, read> input : array<u32>;\n"
         "@group(0) @binding(1) var<storage, read_write> log : Log;\n"
         "fn push(value : u32) {\n  let at = log.count;\n  log.values[at] = value;\n  " +
         bump + "\n}\n";
}

std::string Main(const std::string& body) {
  return "@compute @workgroup_size(1)\nfn main() {\n  _ = &input;\n  _ = &log;\n" + body + "}\n";
}

void Case(const char* name, const std::string& wgsl, uint32_t input,
          const std::vector<uint32_t>& expected) {
  // Layout "auto": `_ = &input;` makes input statically used, so the layout has both bindings
  // even where no path reads it, as in Dawn.
  wgpu::ComputePipeline pipeline = Pipeline(wgsl.c_str());
  wgpu::Buffer in = BufferFrom({input}, wgpu::BufferUsage::Storage);
  std::vector<uint32_t> initial(expected.size(), D);
  initial[0] = 0;
  wgpu::Buffer log = BufferFrom(initial, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, in}, {1, log}}));
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
  ExpectBufferEq(expected, log, 0, name);
}

const char kIf[] =
    "  push(0xA0u);\n  if (input[0] != 0u) {\n    push(0xA1u);\n  }\n  push(0xA3u);\n";
const char kIfElse[] =
    "  push(0xA0u);\n  if (input[0] != 0u) {\n    push(0xA1u);\n  } else {\n    push(0xA2u);\n  }\n"
    "  push(0xA3u);\n";

}  // namespace

int main() {
  Init();
  Case("one push", Prelude() + Main("  push(0xA0u);\n"), 0, {1, 0xA0, D});
  Case("two pushes", Prelude() + Main("  push(0xA0u);\n  push(0xA1u);\n"), 0, {2, 0xA0, 0xA1, D});
  Case("three pushes", Prelude() + Main("  push(0xA0u);\n  push(0xA1u);\n  push(0xA2u);\n"), 0,
       {3, 0xA0, 0xA1, 0xA2, D});
  Case("if, taken", Prelude() + Main(kIf), 1, {3, 0xA0, 0xA1, 0xA3, D});
  Case("if, not taken", Prelude() + Main(kIf), 0, {2, 0xA0, 0xA3, D});
  Case(
      "if, not taken, pushes written inline",
      Prelude() +
          Main(
              "  {\n    let at = log.count;\n    log.values[at] = 0xA0u;\n    log.count++;\n  }\n"
              "  if (input[0] != 0u) {\n    let at = log.count;\n    log.values[at] = 0xA1u;\n"
              "    log.count++;\n  }\n"
              "  {\n    var at = log.count;\n    log.values[at] = 0xA3u;\n    log.count++;\n  }\n"),
      0, {2, 0xA0, 0xA3, D});
  Case("if, not taken, fixed-size log", Prelude("array<u32, 2>") + Main(kIf), 0,
       {2, 0xA0, 0xA3, D});
  Case("if, not taken, count assigned", Prelude("array<u32>", "log.count = at + 1u;") + Main(kIf),
       0, {2, 0xA0, 0xA3, D});
  Case("if, not taken, count bumped by 4", Prelude("array<u32>", "log.count += 4u;") + Main(kIf), 0,
       {8, 0xA0, D, D, D, 0xA3, D, D, D});
  Case("if-else, true", Prelude() + Main(kIfElse), 1, {3, 0xA0, 0xA1, 0xA3, D});
  Case("if-else, false", Prelude() + Main(kIfElse), 0, {3, 0xA0, 0xA2, 0xA3, D});

  // A switch that returns from the helper, called twice: the pipeline must build.
  ++checks;
  const bool failed = RaisesValidationError([] {
    Pipeline(R"(
var<private> s : i32;
var<private> u : i32;
fn step() {
  switch (s) {
    case 0i: {}
    case 2i: { return; }
    case 4i: {}
    default: { s = s / u; }
  }
  switch (s) {
    case 0i: { s = 0; }
    case 1i, 4i: {}
    default: { s = 0; }
  }
}
@compute @workgroup_size(1)
fn main() {
  step();
  step();
}
)");
  });
  if (failed) Fail("a switch returning from a helper called twice: no pipeline");
  return Finish("compute flow control");
}
