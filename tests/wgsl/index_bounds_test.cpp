// IndexBounds: which indices the GLSL writer may leave unclamped. Each case is one access into a
// 64-element workgroup array (or a vec4) from a 64-invocation entry point; the writer's output says
// whether the clamp stayed. What each proven index computes is checked against Dawn by the corpus
// kernel index_bounds.wgsl.
#include <gtest/gtest.h>

#include <string>

#include "glsl_writer.h"
#include "parser.h"
#include "resolver.h"
#include "validator.h"

namespace {

using namespace wgsl::detail;

std::string glslOf(const std::string& index, const std::string& workgroupSize = "64") {
  const std::string source = R"(
@group(0) @binding(0) var<storage, read_write> buf : array<u32>;
var<workgroup> t : array<u32, 64>;
override size : u32 = 64u;
@compute @workgroup_size()" + workgroupSize + R"()
fn main(@builtin(local_invocation_index) lid : u32, @builtin(local_invocation_id) l3 : vec3<u32>) {
  let x = buf[0];
  var v = 0u;
  let small = lid / 8u;
  buf[1] = t[)" + index + R"(];
}
)";
  ir::Module m;
  wgsl::Reflection r;
  resolve(parse(source), {}, m, r);
  validate(m);
  return writeGlsl(m);
}

bool clamped(const std::string& index, const std::string& workgroupSize = "64") {
  const std::string glsl = glslOf(index, workgroupSize);
  return glsl.find("w_t[min(uint(") != std::string::npos;  // the writer's clamp
}

TEST(IndexBounds, ProvenIndicesLoseTheirClamp) {
  for (const char* index : {
           "lid",                        // 0..63
           "63u",                        // a literal at the edge
           "lid % 64u",                  // a remainder
           "x % 64u",                    // ... of anything
           "x & 63u",                    // a mask of anything
           "min(x, 63u)",                // a minimum with a bound
           "(lid >> 1u) * 2u + 1u",      // shifts, products and sums: at most 63
           "small * 8u + 7u",            // through a let: lid / 8 is at most 7
           "select(lid, 3u, x > 2u)",    // either value in range
           "lid ^ 32u",                  // at most the next power of two less one
           "x >> 26u",                   // any u32 shifted right by 26
           "x / 0x4000000u",             // ... or divided by 2^26
           "l3.x",                       // a component of local_invocation_id
           "u32(lid)",                   // a conversion from u32
       }) {
    EXPECT_FALSE(clamped(index)) << index;
  }
  EXPECT_FALSE(clamped("l3.y * 8u + l3.x", "8, 8"));
}

TEST(IndexBounds, UnprovenIndicesKeepTheirClamp) {
  for (const char* index : {
           "lid + 1u",                   // 64 at the last invocation
           "64u - lid - 1u",             // subtraction could wrap: not followed
           "x",                          // arbitrary
           "v",                          // a var may change
           "x % 65u",                    // up to 64
           "lid + 0xffffffc1u",          // lid - 63 after wrapping: sums that may wrap are not followed
           "lid << 1u",                  // up to 126
           "x >> lid",                   // shift amount unknown: bounded by x only
           "max(lid, x)",                // unbounded operand
           "u32(i32(lid))",              // through i32: not followed
       }) {
    EXPECT_TRUE(clamped(index)) << index;
  }
  EXPECT_TRUE(clamped("lid", "size"));          // an override sizes the workgroup
  EXPECT_TRUE(clamped("l3.y * 8u + l3.x", "8, 9"));  // l3.y up to 8: 71
  EXPECT_TRUE(clamped("lid", "65"));
}

TEST(IndexBounds, RuntimeSizedArraysKeepTheirClamp) {
  ir::Module m;
  wgsl::Reflection r;
  resolve(parse(R"(
@group(0) @binding(0) var<storage, read_write> buf : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) lid : u32) {
  buf[lid % 4u] = 1u;
}
)"),
          {}, m, r);
  validate(m);
  EXPECT_NE(writeGlsl(m).find("w_buf[min(uint("), std::string::npos);
}

}  // namespace
