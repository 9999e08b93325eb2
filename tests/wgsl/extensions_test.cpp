// `enable f16;`, `enable subgroups;` and override-sized workgroup arrays in the translator:
// programs accepted (and what their GLSL says), rejected ones with line:col, and the subgroup
// uniformity rules (subgroup scope for subgroup functions, workgroup scope for barriers).
#include <gtest/gtest.h>

#include "wgsl_subset/wgsl_subset.h"

namespace {

wgsl::Options Features(bool f16, bool subgroups) {
  wgsl::Options o;
  o.shaderF16 = f16;
  o.subgroups = subgroups;
  return o;
}

const wgsl::Options kBoth = Features(true, true);

std::string Glsl(const std::string& source, const wgsl::Options& options = kBoth) {
  const wgsl::Result r = wgsl::translate(source, options);
  EXPECT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics) << source;
  return r.glsl;
}

void ExpectError(const std::string& source, uint32_t line, uint32_t column,
                 const std::string& message, const wgsl::Options& options = kBoth) {
  SCOPED_TRACE(source);
  const wgsl::Result r = wgsl::translate(source, options);
  ASSERT_FALSE(r.ok()) << "accepted";
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const wgsl::Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.line, line) << d.rendered;
  EXPECT_EQ(d.column, column) << d.rendered;
  EXPECT_NE(d.message.find(message), std::string::npos) << d.rendered;
  EXPECT_EQ(d.rendered.back(), '^');
}

const std::string kOut = "@group(0) @binding(0) var<storage, read_write> o : array<u32>;\n";

// ---- f16 ----

TEST(F16, NeedsTheDeviceFeatureAndTheDirective) {
  const std::string m = "enable f16;\n@compute @workgroup_size(1) fn main() { let x = 1.0h; }\n";
  ExpectError(m, 1, 8, "f16 requires the shader-f16 feature", Features(false, true));
  EXPECT_EQ(Glsl(m, Features(true, false)).find("#extension GL_KHR_shader_subgroup"),
            std::string::npos);
  ExpectError("@compute @workgroup_size(1) fn main() { let x : f16 = 1; }", 1, 49,
              "f16 type used without 'enable f16;'");
  ExpectError("@compute @workgroup_size(1) fn main() { let x = 2.5h; }", 1, 49,
              "f16 type used without 'enable f16;'");
  ExpectError("@compute @workgroup_size(1) fn main() { let x = vec2h(); }", 1, 49,
              "f16 type used without 'enable f16;'");
  ExpectError("enable f16, subgroups, wonders;", 1, 24, "unknown extension 'wonders'");
  ExpectError("const c = 1;\nenable f16;", 2, 1,
              "directives must come before all module-scope declarations");
}

TEST(F16, TypesLayoutsAndSpellings) {
  const std::string glsl = Glsl(R"(enable f16;
struct S { a : f16, v : vec3<f16>, m : mat3x2h }
@group(0) @binding(0) var<storage, read_write> s : S;
@group(0) @binding(1) var<storage, read_write> h : array<vec4h>;
var<workgroup> w : array<f16, 8>;
@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i : u32) {
  w[i] = f16(i) * 0.5h;
  s.v = vec3h(s.a) + vec3(1.0, 2.0, 3.0);
  s.m = s.m * 2.0h;
  h[i] = vec4h(w[i], -w[i], f16(i32(s.a)), f16(f32(s.a) * 2.0));
  s.a = s.a % 1.5h + length(s.v) + max(s.a, 0.25h) + dot(h[0], h[1]);
}
)",
                                Features(true, false));
  for (const char* want :
       {"#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require",
        "#extension GL_EXT_shader_16bit_storage : require", "float16_t w_a;", "f16vec3 w_v;",
        "f16mat3x2 w_m;", "f16vec4 w_h[];", "shared float16_t w_w[8];", "0.5hf", "tg_f2i(float(",
        "float16_t tg_rem(float16_t a, float16_t b)"})
    EXPECT_NE(glsl.find(want), std::string::npos) << want << "\n" << glsl;
}

// Every float builtin of the subset takes f16 scalars and vectors (glslang has each f16 overload).
TEST(F16, EveryFloatBuiltinTakesF16) {
  const std::pair<const char*, int> builtins[] = {
      {"abs", 1},         {"acos", 1},   {"acosh", 1},     {"asin", 1},     {"asinh", 1},
      {"atan", 1},        {"atan2", 2},  {"atanh", 1},     {"ceil", 1},     {"clamp", 3},
      {"cos", 1},         {"cosh", 1},   {"degrees", 1},   {"distance", 2}, {"dot", 2},
      {"exp", 1},         {"exp2", 1},   {"floor", 1},     {"fma", 3},      {"fract", 1},
      {"inverseSqrt", 1}, {"length", 1}, {"log", 1},       {"log2", 1},     {"max", 2},
      {"min", 2},         {"mix", 3},    {"normalize", 1}, {"pow", 2},      {"radians", 1},
      {"round", 1},       {"sign", 1},   {"sin", 1},       {"sinh", 1},     {"smoothstep", 3},
      {"sqrt", 1},        {"step", 2},   {"tan", 1},       {"tanh", 1},     {"trunc", 1}};
  std::string body;
  for (const auto& [name, arity] : builtins) {
    for (const char* arg : {"x", "v"}) {
      std::string call = std::string(name) + "(" + arg;
      for (int i = 1; i < arity; ++i) call += std::string(", ") + arg;
      call += ")";
      const bool scalarResult = std::string(arg) == "x" || std::string(name) == "dot" ||
                                std::string(name) == "length" || std::string(name) == "distance";
      body += std::string("  ") + (scalarResult ? "s" : "w") + " += " + call + ";\n";
    }
  }
  Glsl(
      "enable f16;\n@group(0) @binding(0) var<storage, read_write> o : array<f16>;\n"
      "@compute @workgroup_size(1) fn main() {\n  let x = o[0];\n  let v = vec3h(o[1], o[2], "
      "o[3]);\n  var s = 0.0h;\n  var w = cross(v, v);\n" +
          body + "  o[0] = s + w.x;\n}\n",
      Features(true, false));
}

TEST(F16, MatrixConversionsAndInference) {
  const std::string glsl = Glsl(R"(enable f16;
@group(0) @binding(0) var<storage, read_write> m : mat2x3<f32>;
@group(0) @binding(1) var<storage, read_write> h : mat2x3<f16>;
@compute @workgroup_size(1) fn main() {
  h = mat2x3<f16>(m);
  m = mat2x3f(h);
  h = mat2x3(vec3(1.0h, 2.0h, 3.0h), vec3(4.0, 5.0, 6.0)) + mat2x3(h);
}
)",
                                Features(true, false));
  EXPECT_NE(glsl.find("f16mat2x3(w_m)"), std::string::npos) << glsl;
  EXPECT_NE(glsl.find("mat2x3(w_h)"), std::string::npos) << glsl;
  ExpectError("enable f16;\nconst c = mat2x2<f16>(mat3x3<f32>());", 2, 11,
              "cannot construct mat2x2<f16> from mat3x3<f32>");
}

TEST(F16, ConstantsFoldInHalfPrecision) {
  // Each step rounds to f16: 1 + 0.0004 is 1 twice (one rounding would give 1 + 2^-10).
  std::string glsl = Glsl("enable f16;\n" + kOut +
                          "const c = 1.0h + 0.0004h + 0.0004h;\n"
                          "@compute @workgroup_size(1) fn main() { o[0] = u32(c * 1024.0h); }\n");
  EXPECT_NE(glsl.find("= 1024u;"), std::string::npos) << glsl;  // not 1025u
  glsl = Glsl("enable f16;\n" + kOut +
              "@compute @workgroup_size(1) fn main() { o[0] = u32(f16(65519.0f)); }\n");
  EXPECT_NE(glsl.find("65504"), std::string::npos) << glsl;  // the largest f16
  ExpectError("enable f16;\nconst c = f16(65520.0f);", 2, 11,
              "value 65520.0 cannot be represented as f16");
  ExpectError("enable f16;\nconst c : f16 = 70000.0;", 2, 17, "cannot be represented as f16");
  ExpectError("enable f16;\nconst c = 60000.0h + 6000.0h;", 2, 20,
              "'60000.0hf + 6000.0hf' cannot be represented as 'f16'");
  ExpectError("enable f16;\nconst c = 1.0h + 1.0f;", 2, 16, "");
}

// bitcast between f16 vectors and 32-bit values of the same size, modf/frexp of f16 and f16
// overrides (a 16-bit specialization constant); a constant bitcast to an infinity or NaN is an
// error, as any const-expression that evaluates to one.
TEST(F16, BitcastsModfFrexpAndOverrides) {
  const std::string glsl = Glsl("enable f16;\n" + kOut + R"(override h : f16 = 1.5h;
@group(0) @binding(1) var<storage, read_write> v : array<vec4h>;
@compute @workgroup_size(1) fn main() {
  o[0] = bitcast<u32>(v[0].xy) + u32(bitcast<i32>(v[0].zw)) + u32(bitcast<f32>(v[1].xy));
  let w = bitcast<vec2u>(v[2]);
  v[3] = bitcast<vec4h>(w) + bitcast<vec4h>(vec2f(1.0, 2.0)) + bitcast<vec4h>(vec2i(1, 2));
  v[4] = vec4h(bitcast<vec2h>(o[1]), bitcast<vec2h>(1.0f));
  let m = modf(v[5].xy);
  let f = frexp(h);
  v[6] = vec4h(m.fract, m.whole.x, f.fract) + vec4h(f16(f.exp), modf(h).whole, 0.0h, 0.0h);
  v[7] = bitcast<vec4h>(v[7]);
}
)",
                                Features(true, false));
  for (const char* s :
       {"packFloat2x16(", "int(packFloat2x16(", "uintBitsToFloat(packFloat2x16(", "tg_h4bits(",
        "tg_bitsh4(floatBitsToUint(vec2(1.0, 2.0)))", "tg_bitsh4(uvec2(ivec2(1, 2)))",
        "unpackFloat2x16(floatBitsToUint(1.0))", "tg_modf_2h(f16vec2 x)",
        "tg_frexp_0h(float16_t x)", "r.w_fract = frexp(x, r.w_exp)",
        "layout(constant_id = 0) const float16_t w_h = 1.5hf;"})
    EXPECT_NE(glsl.find(s), std::string::npos) << s << "\n" << glsl;
  ExpectError("enable f16;\nconst b = bitcast<u32>(vec3h(1.0h, 2.0h, 3.0h));", 2, 11,
              "cannot bitcast from vec3<f16> to u32");
  ExpectError("enable f16;\nconst b = bitcast<f16>(1u);", 2, 11, "cannot bitcast from u32 to f16");
  ExpectError("enable f16;\nconst b = bitcast<vec2h>(0x3c007c00u);", 2, 11,
              "bitcast<vec2<f16>> of this constant gives an infinity or NaN");
  ExpectError("const b = bitcast<f32>(vec2(1, 0x7fc00000).y);", 1, 11, "infinity or NaN");
  ExpectError("enable f16;\nconst b = frexp(1i);", 2, 11, "no overload of 'frexp' takes i32");
  Glsl(
      "enable f16;\nconst b = bitcast<vec2h>(0x3c00bc00u);\nconst c = "
      "bitcast<f32>(0x80000000u);\n" +
          kOut + "@compute @workgroup_size(1) fn main() { o[0] = u32(b.y + f16(c)); }",
      Features(true, false));
}

TEST(F16, UniformLayoutsStd140CannotExpressAreUnsupported) {
  Glsl(
      "enable f16;\nstruct U { a : f16, v : vec3h, b : f16 }\n"
      "@group(0) @binding(0) var<uniform> u : U;\n" +
          std::string("@group(0) @binding(1) var<storage, read_write> o : f16;\n") +
          "@compute @workgroup_size(1) fn main() { o = u.a + u.v.y + u.b; }\n",
      Features(true, false));
  // f16 matrices are decomposed into their columns (4 or 8 bytes apart, as in WGSL); arrays of
  // them whose stride is no multiple of 16 stay outside.
  const std::string glsl = Glsl(
      "enable f16;\nstruct U { m : mat3x3h, b : f16, @align(16) a : array<mat4x2h, 2> }\n"
      "@group(0) @binding(0) var<uniform> u : U;\n"
      "@group(0) @binding(1) var<uniform> w : mat2x2h;\n"
      "@group(0) @binding(2) var<storage, read_write> o : f16;\n"
      "@compute @workgroup_size(1) fn main() { o = u.m[2].z + u.b + u.a[1][3].y + w[1].x; }\n",
      Features(true, false));
  for (const char* s : {"f16vec3 tgc0_w_m; f16vec3 tgc1_w_m; f16vec3 tgc2_w_m; float16_t tgcp_w_m; "
                        "float16_t w_b;",
                        "tgs_mat4x2h w_a[2];",
                        "struct tgs_mat4x2h { f16vec2 c0; f16vec2 c1; f16vec2 c2; f16vec2 c3; };",
                        "f16vec2 tgc0_w_w; f16vec2 tgc1_w_w;"})
    EXPECT_NE(glsl.find(s), std::string::npos) << s << "\n" << glsl;
  ExpectError("enable f16;\n@group(0) @binding(0) var<uniform> u : array<mat2x2h, 2>;", 2, 23,
              "unsupported in this WGSL subset: uniform buffer layout that std140 cannot "
              "express: array<mat2x2<f16>, 2> (element stride 8 bytes",
              Features(true, false));
}

// ---- subgroups ----

const std::string kSubgroupEntry =
    "enable subgroups;\n" + kOut +
    "@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i : u32, "
    "@builtin(subgroup_invocation_id) lane : u32, @builtin(subgroup_size) size : u32) {\n";

TEST(Subgroups, NeedTheDeviceFeatureAndTheDirective) {
  const std::string m = kSubgroupEntry + "  o[i] = subgroupAdd(i);\n}\n";
  ExpectError(m, 1, 8, "subgroups requires the subgroups feature", Features(true, false));
  ExpectError(kOut + "@compute @workgroup_size(1) fn main() { o[0] = subgroupAdd(1u); }", 2, 48,
              "cannot call built-in function 'subgroupAdd' without extension 'subgroups'");
  ExpectError("@compute @workgroup_size(1) fn main(@builtin(subgroup_size) s : u32) {}", 1, 37,
              "@builtin(subgroup_size) requires 'enable subgroups;'");
  ExpectError(
      "enable subgroups;\n@compute @workgroup_size(1) fn main(@builtin(subgroup_size) s : "
      "i32) {}",
      2, 65, "@builtin(subgroup_size) must have type u32, got i32");
}

TEST(Subgroups, EveryFunctionSpelledForGlsl) {
  const std::string glsl = Glsl(kSubgroupEntry + R"(
  let f = f32(i);
  o[i] = subgroupAdd(i) + subgroupExclusiveMul(lane) + subgroupInclusiveAdd(size) +
         u32(subgroupMin(f)) + subgroupAnd(vec2u(i)).y + subgroupBallot(i > 3u).x +
         select(0u, 1u, (subgroupElect() && subgroupAll(true)) || subgroupAny(false)) +
         subgroupBroadcast(i, 3) + subgroupBroadcastFirst(i) + subgroupShuffle(i, lane + 1u) +
         subgroupShuffleXor(i, 1u) + subgroupShuffleUp(i, 2u) + subgroupShuffleDown(i, size / 2u) +
         quadBroadcast(i, 1u) + quadSwapX(i) + quadSwapY(i) + quadSwapDiagonal(i);
}
)");
  for (const char* want : {"#extension GL_KHR_shader_subgroup_ballot : require",
                           "gl_SubgroupInvocationID", "gl_SubgroupSize", "subgroupExclusiveMul(",
                           "subgroupBroadcast(w_i, 3u)", "subgroupQuadBroadcast(w_i, 1u)",
                           "subgroupQuadSwapHorizontal(", "subgroupQuadSwapVertical(",
                           "subgroupQuadSwapDiagonal(", "subgroupShuffle(w_i, (w_lane + 1u))"})
    EXPECT_NE(glsl.find(want), std::string::npos) << want << "\n" << glsl;
}

TEST(Subgroups, ArgumentRules) {
  const auto in = [](const std::string& stmt) { return kSubgroupEntry + "  " + stmt + "\n}\n"; };
  ExpectError(in("o[i] = subgroupBroadcast(i, lane);"), 4, 31,
              "the sourceLaneIndex argument of subgroupBroadcast must be a const-expression");
  ExpectError(in("o[i] = subgroupBroadcast(i, 128u);"), 4, 31, "must be less than 128");
  ExpectError(in("o[i] = quadBroadcast(i, 4);"), 4, 27, "must be less than 4");
  ExpectError(in("o[i] = quadBroadcast(i, -1);"), 4, 27, "greater than or equal to zero");
  ExpectError(in("o[i] = subgroupShuffleXor(i, 1i);"), 4, 32,
              "the second argument of 'subgroupShuffleXor' must be u32, got i32");
  ExpectError(in("o[i] = u32(subgroupAnd(1.5));"), 4, 14, "no overload of 'subgroupAnd' takes");
  ExpectError(in("o[i] = u32(subgroupAdd(true));"), 4, 14, "no overload of 'subgroupAdd' takes");
  ExpectError(in("o[i] = u32(subgroupAll(1u));"), 4, 26, "subgroupAll takes a bool, got u32");
  ExpectError(in("o[i] = subgroupElect(i);"), 4, 10, "'subgroupElect' takes 0 arguments");
}

TEST(Subgroups, UniformControlFlowAtSubgroupScope) {
  const auto in = [](const std::string& body) { return kSubgroupEntry + body + "\n}\n"; };
  // Under flow that depends on the invocation: an error at the call.
  ExpectError(in("  if (i > 3u) { o[i] = subgroupAdd(i); }"), 4, 24,
              "'subgroupAdd' must only be called from uniform control flow");
  ExpectError(in("  if (lane == 0u) { o[i] = quadSwapX(i); }"), 4, 28,
              "'quadSwapX' must only be called from uniform control flow");
  // Through a helper that calls one.
  ExpectError("enable subgroups;\n" + kOut +
                  "fn f(v : u32) -> u32 { return subgroupMax(v); }\n"
                  "@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i : u32) "
                  "{\n  if (o[i] == 0u) { o[i] = f(i); }\n}\n",
              5, 28, "'f' must only be called from uniform control flow");
  // A delta or mask must be uniform.
  ExpectError(in("  o[i] = subgroupShuffleDown(i, lane);"), 4, 33,
              "possibly non-uniform value passed as the second argument of 'subgroupShuffleDown'");
  // Reductions, votes and broadcasts are subgroup-uniform; subgroup_size is uniform.
  Glsl(
      in("  if (subgroupAll(i < 1000u)) { o[i] = subgroupAdd(i); }\n"
         "  if (subgroupBroadcastFirst(i) == 0u) { o[i] = subgroupShuffleXor(i, size - 1u); }"));
  // ... but not workgroup-uniform: a barrier under them is an error; under subgroup_size it is not.
  ExpectError(in("  if (subgroupAll(i < 1000u)) { workgroupBarrier(); }"), 4, 33,
              "'workgroupBarrier' must only be called from uniform control flow");
  Glsl(in("  if (size > 4u) { workgroupBarrier(); }"));
  // Elect's result varies within the subgroup.
  ExpectError(in("  if (subgroupElect()) { o[i] = subgroupAdd(i); }"), 4, 33,
              "'subgroupAdd' must only be called from uniform control flow");
  // The module-scope filter turns the subgroup rule off.
  Glsl("diagnostic(off, subgroup_uniformity);\n" + in("  if (i > 3u) { o[i] = subgroupAdd(i); }"));
}

// ---- override-sized workgroup arrays ----

TEST(OverrideArrays, LengthIsASpecializationConstantAndIndicesStayClamped) {
  const std::string glsl = Glsl(R"(override n : u32;
override m = 64;
var<workgroup> a : array<f32, n>;
var<workgroup> b : array<vec2i, m>;
@group(0) @binding(0) var<storage, read_write> o : array<f32>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i : u32) {
  a[i] = f32(i);
  b[i] = vec2i(1);
  workgroupBarrier();
  o[i] = a[3u - i] + f32(b[i].x);
}
)");
  for (const char* want : {"layout(constant_id = 0) const uint w_n = 1u;",
                           "layout(constant_id = 1) const int w_m = 64;", "shared float w_a[w_n];",
                           "shared ivec2 w_b[w_m];", "uint(w_m) - 1u", "uint(w_n) - 1u"})
    EXPECT_NE(glsl.find(want), std::string::npos) << want << "\n" << glsl;
  // b[i] with i < 4 < 64 would lose its clamp in a fixed-size array; m may be set to 2.
  EXPECT_EQ(glsl.find("w_b[w_i]"), std::string::npos) << glsl;
}

// A count that is an override-expression is a hidden specialization constant (the largest free
// SpecId glslang allows) that pipeline creation computes from the reflection's program; its
// default here is the expression's with the overrides' defaults.
TEST(OverrideArrays, ExpressionCountsAreComputedConstants) {
  const wgsl::Result r = wgsl::translate(R"(override n : u32 = 4u;
@id(2046) override m : i32;
var<workgroup> a : array<u32, (n * 2u) + 1u>;
var<workgroup> b : array<f32, u32(-m) % n>;
@group(0) @binding(0) var<storage, read_write> o : array<u32>;
@compute @workgroup_size(1) fn main() { a[7] = 3u; b[0] = 1.0; o[0] = a[7] + u32(b[0]); }
)");
  ASSERT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
  ASSERT_EQ(r.reflection.computedCounts.size(), 2u);
  const wgsl::ComputedCount& a = r.reflection.computedCounts[0];
  EXPECT_EQ(a.id, 2045u);  // 2046 is m's
  EXPECT_EQ(a.text, "(n * 2u) + 1u");
  EXPECT_EQ(a.program, (std::vector<std::string>{"o0u", "u2", "*u", "u1", "+u"}));
  EXPECT_EQ(a.defaultValue, 9.0);
  const wgsl::ComputedCount& b = r.reflection.computedCounts[1];
  EXPECT_EQ(b.program, (std::vector<std::string>{"o2046i", "negi", "asu", "o0u", "%u"}));
  EXPECT_FALSE(b.defaultValue.has_value());  // m has none
  EXPECT_EQ(r.reflection.workgroupStorageBytes, 9u * 4 + 1 * 4);
  EXPECT_EQ(r.reflection.overrides.size(), 2u);  // the counts are no overrides
  const size_t constant = r.glsl.find("layout(constant_id = 2045) const uint ");
  ASSERT_NE(constant, std::string::npos) << r.glsl;
  EXPECT_NE(r.glsl.find(" = 9u;", constant), std::string::npos) << r.glsl;
  EXPECT_LT(constant, r.glsl.find("shared uint w_a[")) << r.glsl;
}

// evaluateCount: WGSL's override-expression arithmetic, exact, with its errors.
TEST(OverrideArrays, CountsEvaluateAsWgslDoes) {
  const auto eval = [](std::vector<std::string> program, double n) {
    const wgsl::ComputedCount c{0, "e", std::move(program), std::nullopt};
    return wgsl::evaluateCount(c, [&](uint32_t) { return std::optional<double>(n); });
  };
  EXPECT_EQ(eval({"o0i", "i3", "%i", "i4", "+i"}, -7).value, 3);  // -7 % 3 = -1 (dividend's sign)
  EXPECT_EQ(eval({"o0i", "i2", "/i", "negi"}, -7).value, 3);      // toward zero
  EXPECT_EQ(eval({"o0u", "u31", ">>u"}, 4294967295.0).value, 1);
  EXPECT_EQ(eval({"o0i", "u1", ">>i", "negi"}, -8).value, 4);  // arithmetic
  EXPECT_EQ(eval({"o0i", "asu", "u30", ">>u"}, -1).value, 3);  // the same bits
  EXPECT_EQ(eval({"o0u", "~u", "u4294967294", "-u"}, 0).value, 1);
  EXPECT_EQ(eval({"o0u", "u12", "&u", "u3", "|u", "u1", "^u"}, 6).value, 6);
  EXPECT_NE(eval({"o0u", "u2", "*u"}, 2147483648.0).error.find("overflows"), std::string::npos);
  EXPECT_NE(eval({"o0u", "u1", "-u"}, 0).error.find("overflows"), std::string::npos);
  EXPECT_NE(eval({"o0i", "i-1", "/i"}, -2147483648.0).error.find("overflows"), std::string::npos);
  EXPECT_NE(eval({"u8", "o0u", "/u"}, 0).error.find("divides by zero"), std::string::npos);
  EXPECT_NE(eval({"u8", "o0u", "%u"}, 0).error.find("divides by zero"), std::string::npos);
  EXPECT_NE(eval({"u1", "o0u", "<<u"}, 32).error.find("shifts by 32"), std::string::npos);
  EXPECT_NE(eval({"o0u", "u31", "<<u"}, 2).error.find("overflows"), std::string::npos);
  EXPECT_NE(eval({"o0i", "i1", "-i"}, 1).error.find("is 0 (it must be greater than 0)"),
            std::string::npos);
  EXPECT_NE(eval({"o0u"}, -1).error.find("which is no u32"), std::string::npos);
  EXPECT_NE(eval({"o0u", "+u"}, 1).error.find("malformed"), std::string::npos);
  EXPECT_NE(eval({"u4294967296"}, 1).error.find("malformed"), std::string::npos);
  EXPECT_EQ(eval({"i-7", "o0i", "+i"}, 8).value, 1);
  const wgsl::ComputedCount unset{0, "n", {"o0u"}, std::nullopt};
  EXPECT_NE(wgsl::evaluateCount(unset, [](uint32_t) { return std::optional<double>(); })
                .error.find("which is not set"),
            std::string::npos);
}

TEST(OverrideArrays, Rules) {
  ExpectError(
      "override n = 4;\nvar<private> a : array<f32, n>;", 2, 29,
      "unsupported in this WGSL subset: override-sized array other than the store type of a "
      "var<workgroup>");
  ExpectError("@id(2047) override n = 4;", 1, 5,
              "unsupported in this WGSL subset: @id(2047) above 2046");
  ExpectError("override n = 4;\nvar<workgroup> a : array<f32, max(n, 2)>;", 2, 31,
              "unsupported in this WGSL subset: override-expression array count with this kind "
              "of expression");
  ExpectError("override n = 4;\nvar<workgroup> a : array<f32, f32(n) * 2.0>;", 2, 38,
              "array count must be an i32 or u32 override-expression, got f32");
  ExpectError("override n = 4;\nvar<workgroup> a : array<array<f32, n>, 2>;", 2, 37,
              "unsupported in this WGSL subset: override-sized array other than");
  ExpectError("override n = 4.0;\nvar<workgroup> a : array<f32, n>;", 2, 31,
              "array count must be an i32 or u32 override, got f32");
  ExpectError("override n = 0;\nvar<workgroup> a : array<f32, n>;", 2, 31,
              "array count (0, the default of 'n') must be greater than 0");
  const std::string decl = "override n = 4;\nvar<workgroup> a : array<f32, n>;\n";
  ExpectError(decl + "@compute @workgroup_size(1) fn main() { let x = a; }", 3, 41,
              "'x' cannot hold an override-sized array (array<f32, n>): only a var<workgroup> may");
  ExpectError(decl + "@compute @workgroup_size(1) fn main() { _ = a; }", 3, 45,
              "cannot load a whole override-sized array");
  ExpectError(decl + "@compute @workgroup_size(1) fn main() { a = a; }", 3, 41,
              "cannot assign a whole override-sized array");
}

}  // namespace
