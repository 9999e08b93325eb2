// The front end piece by piece: tokens, precedence, templates, abstract numerics and the
// lowering of WGSL-defined semantics, checked on the GLSL it produces.
#include <gtest/gtest.h>

#include "lexer.h"
#include "wgsl_subset/wgsl_subset.h"

namespace {

using wgsl::detail::Tok;

TEST(Lexer, LiteralsOperatorsAndNestedComments) {
  const auto t =
      wgsl::detail::lex("1u 0x1Fi 2.5e3f 1e-3 .5 >> <<= a_b // line\n/* a /* nested */ b */ x");
  const std::vector<std::pair<Tok, std::string>> want = {
      {Tok::IntLit, "1u"},     {Tok::IntLit, "0x1Fi"}, {Tok::FloatLit, "2.5e3f"},
      {Tok::FloatLit, "1e-3"}, {Tok::FloatLit, ".5"},  {Tok::Gt, ">"},
      {Tok::Gt, ">"},          {Tok::ShlEq, "<<="},    {Tok::Ident, "a_b"},
      {Tok::Ident, "x"},       {Tok::End, ""}};
  ASSERT_EQ(t.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(t[i].kind, want[i].first) << i;
    EXPECT_EQ(t[i].text, want[i].second) << i;
  }
  EXPECT_EQ(t[9].pos.line, 2u);  // positions survive comments
  EXPECT_EQ(t[9].pos.column, 24u);
}

std::string lowered(const std::string& statements) {
  const std::string src =
      "@group(0) @binding(0) var<storage, read_write> b : array<u32>;\n"
      "@group(0) @binding(1) var<storage, read_write> f : array<f32>;\n"
      "@compute @workgroup_size(1) fn main() {\n" +
      statements + "\n}\n";
  const wgsl::Result r = wgsl::translate(src);
  EXPECT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
  return r.glsl;
}

// Any name, and several @compute entry points in one module: each translates alone (as SPIR-V's
// "main"), the others left out; the reflection lists them all.
TEST(Lowering, EntryPointsAreChosenByName) {
  const std::string src = R"(
@group(0) @binding(0) var<storage, read_write> a : array<u32>;
@compute @workgroup_size(64) fn cs_main(@builtin(global_invocation_id) id : vec3<u32>) { a[id.x] = 1u; }
@compute @workgroup_size(8, 2) fn second(@builtin(local_invocation_index) i : u32) { a[i] = 2u; }
)";
  const wgsl::Result first = wgsl::translate(src);
  ASSERT_TRUE(first.ok()) << first.diagnostics.front().rendered;
  EXPECT_EQ(first.reflection.entryPoint, "cs_main");
  EXPECT_EQ(first.reflection.entryPoints, (std::vector<std::string>{"cs_main", "second"}));
  EXPECT_EQ(first.reflection.workgroupSize, (std::array<uint32_t, 3>{64, 1, 1}));
  wgsl::Options o;
  o.entryPoint = "second";
  const wgsl::Result r = wgsl::translate(src, o);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().rendered;
  EXPECT_EQ(r.reflection.entryPoint, "second");
  EXPECT_EQ(r.reflection.workgroupSize, (std::array<uint32_t, 3>{8, 2, 1}));
  EXPECT_EQ(r.glsl.find("cs_main"), std::string::npos) << "the other entry point is left out";
  o.entryPoint = "third";
  const wgsl::Result missing = wgsl::translate(src, o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.diagnostics.front().message.find(
                "no @compute entry point named 'third' (the module has 'cs_main', 'second')"),
            std::string::npos)
      << missing.diagnostics.front().message;
}

TEST(Lowering, PrecedenceFollowsWgsl) {
  // * binds tighter than +; a shift takes unary operands, so the sum is parenthesised.
  const std::string g =
      lowered("  b[0] = (b[1] + b[2] * b[3]) << 1u;\n  b[1] = b[0] & b[1] & b[2];");
  EXPECT_NE(g.find("(((w_b[min(uint(1), uint(w_b.length()) - 1u)] + (w_b[min(uint(2), "
                   "uint(w_b.length()) - 1u)] * "
                   "w_b[min(uint(3), uint(w_b.length()) - 1u)]))) << (1u & 31u))"),
            std::string::npos)
      << g;
  // WGSL's grammar, not C's precedence: mixing these operators needs parentheses (as Tint says).
  for (const auto& [expr, message] : std::vector<std::pair<std::string, std::string>>{
           {"b[1] + b[2] << 1u", "mixing '+' and '<<' requires parenthesis"},
           {"b[0] | b[1] & b[2]", "mixing '|' and '&' requires parenthesis"},
           {"b[0] << 1u >> 1u", "mixing '<<' and '>>' requires parenthesis"}}) {
    const wgsl::Result r = wgsl::translate(
        "@group(0) @binding(0) var<storage, read_write> b : array<u32>;\n"
        "@compute @workgroup_size(1) fn main() { b[0] = " +
        expr + "; }\n");
    ASSERT_FALSE(r.ok()) << expr;
    EXPECT_EQ(r.diagnostics[0].message, message) << expr;
  }
}

TEST(Lowering, NestedTemplatesCloseWithAdjacentAngles) {
  const std::string g =
      lowered("  var v : array<vec2<f32>, 2>;\n  v[1] = vec2<f32>(1.0, 2.0);\n  f[0] = v[1].y;");
  EXPECT_NE(g.find("vec2 w_v_"), std::string::npos) << g;
}

TEST(Lowering, AbstractLiteralsRoundToF32AndFoldInDouble) {
  const std::string g = lowered(
      "  let a : f32 = 1;\n  let c = 16777217.0;\n  let d = 1.0 / 3.0;\n  f[0] = a + c + d + 0.1;");
  EXPECT_NE(g.find("float w_a_1 = 1.0;"), std::string::npos) << g;
  EXPECT_NE(g.find("16777216.0"), std::string::npos) << g;   // nearest f32
  EXPECT_NE(g.find("0.333333343"), std::string::npos) << g;  // folded in double, then rounded once
  EXPECT_NE(g.find("0.100000001"), std::string::npos) << g;
}

TEST(Lowering, IntegerSemanticsAreExplicit) {
  const std::string g = lowered(
      "  let x = i32(b[0]);\n  let y = i32(b[1]);\n  b[2] = u32(x / y + x % y);\n  b[3] = b[0] >> "
      "b[1];"
      "\n  b[4] = u32(f[0]);");
  EXPECT_NE(g.find("tg_div("), std::string::npos) << g;
  EXPECT_NE(g.find("tg_rem("), std::string::npos) << g;
  EXPECT_NE(g.find(" & 31u))"), std::string::npos) << g;  // masked shift amount
  EXPECT_NE(g.find("tg_f2u("), std::string::npos) << g;   // saturating conversion
}

TEST(Lowering, BuiltinsOnConstantsFoldToConstants) {
  // The folded value and type: max(1, 2) stays abstract (so it converts to u32), max(1, 2.5) is
  // an abstract float, and a function-scope concrete const sizes an array.
  const std::string g = lowered(
      "  const c = max(1, 2);\n  let u : u32 = c;\n  const d = max(1, 2.5);\n  let x : f32 = d;\n"
      "  const k = clamp(-7, -3, 3) + abs(-4) + select(10, 20, c > 1);\n  let y : i32 = k;\n"
      "  const m = min(3u, 4u);\n  var w : array<u32, m>;\n  b[0] = u + u32(x) + u32(y) + w[2];");
  EXPECT_NE(g.find("uint w_u_1 = 2u;"), std::string::npos) << g;
  EXPECT_NE(g.find("float w_x_2 = 2.5;"), std::string::npos) << g;
  EXPECT_NE(g.find("int w_y_3 = 21;"), std::string::npos) << g;
  EXPECT_NE(g.find("uint w_w_5[3];"), std::string::npos) << g;
}

// glslang is not linked (translate.cpp), so it keeps uncalled functions: only the helpers the
// code calls are emitted.
TEST(Lowering, PreludeHoldsOnlyTheHelpersTheCodeCalls) {
  const std::string g = lowered("  b[0] = b[1] / b[2];");
  EXPECT_NE(g.find("uint tg_div(uint a, uint b)"), std::string::npos) << g;
  EXPECT_EQ(g.find("tg_rem("), std::string::npos) << g;
  EXPECT_EQ(g.find("tg_f2i("), std::string::npos) << g;
}

TEST(Lowering, IdentifiersNeverCollideWithGlsl) {
  const std::string g = lowered(
      "  let input = 1u;\n  let output = input + 1u;\n  let sample = output;\n  b[0] = sample;");
  EXPECT_EQ(g.find(" input "), std::string::npos) << g;
  EXPECT_NE(g.find("w_input_"), std::string::npos) << g;
}

TEST(Lowering, ReflectionListsBindingsOverridesAndWorkgroupMemory) {
  const wgsl::Result r = wgsl::translate(R"(override n : u32 = 4u;
@id(7) override gain = 1.5;
var<workgroup> tile : array<f32, 64>;
@group(1) @binding(3) var<storage, read> x : array<i32>;
@group(0) @binding(0) var<storage, read_write> y : array<f32>;
@compute @workgroup_size(8, 4)
fn k(@builtin(local_invocation_index) i : u32) {
  tile[i] = f32(x[i]) * gain;
  workgroupBarrier();
  y[i] = tile[(i + n) % 32u];
})");
  ASSERT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
  EXPECT_EQ(r.reflection.entryPoint, "k");
  EXPECT_EQ(r.reflection.workgroupSize, (std::array<uint32_t, 3>{8, 4, 1}));
  EXPECT_EQ(r.reflection.workgroupStorageBytes, 256u);
  ASSERT_EQ(r.reflection.bindings.size(), 2u);
  EXPECT_EQ(r.reflection.bindings[0].group, 1u);
  EXPECT_EQ(r.reflection.bindings[0].binding, 3u);
  EXPECT_EQ(r.reflection.bindings[0].elementType, "i32");
  EXPECT_TRUE(r.reflection.bindings[0].readOnly);
  EXPECT_FALSE(r.reflection.bindings[1].readOnly);
  ASSERT_EQ(r.reflection.overrides.size(), 2u);
  EXPECT_EQ(r.reflection.overrides[0].name, "n");
  EXPECT_EQ(r.reflection.overrides[1].id, 7u);
  EXPECT_EQ(r.reflection.overrides[1].type, "f32");
  EXPECT_EQ(r.reflection.overrides[1].defaultValue, 1.5);
  EXPECT_EQ(r.reflection.workgroupSizeOverrides, (std::array<std::string, 3>{"", "", ""}));
}

TEST(Lowering, WorkgroupSizeOverrideIsASpecializationConstant) {
  const wgsl::Result r = wgsl::translate(R"(@id(5) override wy : u32 = 4u;
@group(0) @binding(0) var<storage, read_write> y : array<u32>;
@compute @workgroup_size(16, wy) fn main(@builtin(local_invocation_index) i : u32) { y[i] = i; })");
  ASSERT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
  EXPECT_EQ(r.reflection.workgroupSize, (std::array<uint32_t, 3>{16, 4, 1}));  // the default
  EXPECT_EQ(r.reflection.workgroupSizeOverrides, (std::array<std::string, 3>{"", "wy", ""}));
  EXPECT_NE(r.glsl.find("local_size_y = 4, local_size_z = 1, local_size_y_id = 5) in;"),
            std::string::npos)
      << r.glsl;
}

// WebGPU checks an override's workgroup size at pipeline creation, where a pipeline constant may
// replace it: a default outside the limits translates (the SPIR-V's default is then 1 and the
// reflection keeps the real one); a constant outside them is still an error here.
TEST(Lowering, WorkgroupSizeOverrideDefaultOutsideTheLimitsIsCheckedLater) {
  const wgsl::Result r = wgsl::translate(R"(override z = 9999u;
@compute @workgroup_size(2, 1, z) fn main() {})");
  ASSERT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
  EXPECT_EQ(r.reflection.workgroupSize, (std::array<uint32_t, 3>{2, 1, 1}));
  ASSERT_EQ(r.reflection.overrides.size(), 1u);
  EXPECT_EQ(r.reflection.overrides[0].defaultValue, 9999.0);
  EXPECT_NE(r.glsl.find("local_size_z = 1, local_size_z_id = 0) in;"), std::string::npos) << r.glsl;
  const wgsl::Result c =
      wgsl::translate("const z = 9999u;\n@compute @workgroup_size(2, 1, z) fn main() {}");
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].message, "@workgroup_size argument 9999 exceeds the maximum (64)");
}

// An override-expression in @workgroup_size (or an override without a default) is a hidden
// specialization constant that pipeline creation computes (Reflection::computedCounts); only the
// entry point translated gets one.
TEST(Lowering, WorkgroupSizeOverrideExpressionsAreComputed) {
  const std::string source = R"(override wg : u32 = 4u;
override h : u32;
@compute @workgroup_size(wg * 2u, h) fn main() {}
@compute @workgroup_size(wg + h) fn other() {}
)";
  const wgsl::Result r = wgsl::translate(source);
  ASSERT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
  EXPECT_EQ(r.reflection.workgroupSize, (std::array<uint32_t, 3>{8, 1, 1}));
  EXPECT_EQ(r.reflection.workgroupSizeOverrides, (std::array<std::string, 3>{"wg * 2u", "h", ""}));
  ASSERT_EQ(r.reflection.computedCounts.size(), 2u);
  EXPECT_EQ(r.reflection.computedCounts[0].program, (std::vector<std::string>{"o0u", "u2", "*u"}));
  EXPECT_EQ(r.reflection.computedCounts[0].defaultValue, 8.0);
  EXPECT_FALSE(r.reflection.computedCounts[1].defaultValue.has_value());
  EXPECT_NE(r.glsl.find("local_size_x = 8, local_size_y = 1, local_size_z = 1, local_size_x_id = "
                        "2046, local_size_y_id = 2045) in;"),
            std::string::npos)
      << r.glsl;
  wgsl::Options other;
  other.entryPoint = "other";
  EXPECT_EQ(wgsl::translate(source, other).reflection.computedCounts.size(), 1u);
  const wgsl::Result f =
      wgsl::translate("override w = 4.0;\n@compute @workgroup_size(w * 2.0) fn main() {}");
  ASSERT_EQ(f.diagnostics.size(), 1u);
  EXPECT_NE(f.diagnostics[0].message.find("must be a constant or override-expression of type"),
            std::string::npos);
}

}  // namespace
