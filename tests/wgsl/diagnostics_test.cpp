// Every diagnostic the front end gives: position, message and the rendered caret line; anything
// outside the subset is "unsupported in this WGSL subset: <construct>". Never a crash.
#include <gtest/gtest.h>

#include "wgsl_subset/wgsl_subset.h"

namespace {

const char* kOk = R"(@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  b[gid.x] = b[gid.x] + 1u;
}
)";

struct Case {
  const char* source;
  uint32_t line, column;
  const char* message;  // a substring of the message
};

void expectError(const Case& c) {
  SCOPED_TRACE(c.source);
  const wgsl::Result r = wgsl::translate(c.source);
  ASSERT_FALSE(r.ok()) << "accepted";
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const wgsl::Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.line, c.line) << d.rendered;
  EXPECT_EQ(d.column, c.column) << d.rendered;
  EXPECT_NE(d.message.find(c.message), std::string::npos) << d.rendered;
  const std::string prefix =
      "error: " + std::to_string(c.line) + ":" + std::to_string(c.column) + ": ";
  EXPECT_EQ(d.rendered.rfind(prefix, 0), 0u) << d.rendered;
  EXPECT_EQ(d.rendered.back(), '^');  // the caret line
  EXPECT_TRUE(r.spirv.empty());
}

const std::string kHead = "@group(0) @binding(0) var<storage, read_write> b : array<u32>;\n";
const std::string kEntry = "@compute @workgroup_size(1) fn main() {\n";

std::string body(const std::string& stmts) {
  return kHead + kEntry + stmts + "\n}\n";
}

TEST(Diagnostics, ValidKernelTranslatesAndReflects) {
  const wgsl::Result r = wgsl::translate(kOk);
  ASSERT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
  EXPECT_FALSE(r.spirv.empty());
  EXPECT_EQ(r.spirv[0], 0x07230203u);  // SPIR-V magic
  EXPECT_EQ(r.reflection.entryPoint, "main");
  EXPECT_EQ(r.reflection.workgroupSize, (std::array<uint32_t, 3>{64, 1, 1}));
  ASSERT_EQ(r.reflection.bindings.size(), 1u);
  EXPECT_EQ(r.reflection.bindings[0].elementType, "u32");
  EXPECT_FALSE(r.reflection.bindings[0].readOnly);
}

TEST(Diagnostics, LexicalErrors) {
  expectError({"fn main() { let x = 1 $ 2; }", 1, 23, "unexpected character '$'"});
  expectError({"/* never closed", 1, 1, "unterminated block comment"});
  expectError({"const x = 12abc;", 1, 11, "invalid character 'a' in numeric literal"});
  expectError({"const x = 1.5u;", 1, 11, "cannot take the suffix 'u'"});
  expectError({"const x = 1e+;", 1, 11, "malformed exponent"});
  expectError(
      {"const x = 0x1p4;", 1, 11, "unsupported in this WGSL subset: hexadecimal float literal"});
  expectError({"const x = 1.0h;", 1, 11, "f16 type used without 'enable f16;'"});
}

TEST(Diagnostics, SyntaxErrors) {
  expectError({"fn main() { let x = ; }", 1, 21, "expected an expression, got ';'"});
  expectError({"fn main() { let x = 1 }", 1, 23, "expected ';' after the statement, got '}'"});
  expectError({"fn main( { }", 1, 10, "expected a parameter name"});
  expectError({"let x = 1;", 1, 1, "'let' is not allowed at module scope"});
  expectError({"@frobnicate fn main() {}", 1, 1, "unknown attribute '@frobnicate'"});
  expectError({"fn main() {", 1, 12, "expected '}' to close the block"});
  expectError({"fn main() { let y; }", 1, 18, "needs an initializer"});
  expectError(
      {"fn main() { x + 1; }", 1, 18, "expected an assignment, increment or function call"});
  expectError({"banana", 1, 1, "expected a module-scope declaration"});
  expectError({"alias A = array<B, 2>;\nalias B = A;", 1, 1,
               "cyclic dependency: alias 'A' refers to itself"});
  expectError({"alias T = f32;\nalias T = u32;", 2, 1, "redeclaration of 'T'"});
  expectError({"alias T = nonesuch;\n@compute @workgroup_size(1) fn main() {}", 1, 11,
               "unknown type 'nonesuch'"});
}

TEST(Diagnostics, UnsupportedConstructs) {
  expectError({"requires readonly_and_readwrite_storage_textures;", 1, 1,
               "unsupported in this WGSL subset: 'requires' directive"});
  expectError({"enable clip_distances;", 1, 8,
               "unsupported in this WGSL subset: extension 'clip_distances'"});
  expectError({"@group(0) @binding(0) var<uniform> u : array<mat3x2<f32>, 2>;", 1, 23,
               "unsupported in this WGSL subset: uniform buffer layout that std140 cannot express: "
               "array<mat3x2<f32>, 2> (element stride 24 bytes"});
  expectError({"struct U { a : array<vec2f, 2> }\n@group(0) @binding(0) var<uniform> u : U;", 2, 23,
               "std140 cannot express: array<vec2<f32>, 2> (element stride 8 bytes"});
  expectError({"struct S { @location(0) a : f32 }", 1, 12,
               "unsupported in this WGSL subset: member attribute '@location'"});
  expectError(
      {"@vertex fn main() {}", 1, 1, "unsupported in this WGSL subset: @vertex entry point"});
  expectError(
      {"@group(0) @binding(0) var<storage, read_write> b : array<u32>;\n"
       "fn f(p : ptr<storage, u32, read_write>) { *p = 1u; }\n"
       "@compute @workgroup_size(1) fn main() { var i = 0u; f(&b[i]); }",
       3, 55, "unsupported in this WGSL subset: pointer argument into <storage> memory"});
  expectError({body("  let t = textureLoad(b, 0);").c_str(), 3, 11,
               "unsupported in this WGSL subset: builtin function 'textureLoad'"});
  expectError({body("  discard;").c_str(), 3, 3, "unsupported in this WGSL subset: 'discard'"});
}

// Matrices, @size / @align and runtime-sized struct members (issue 29).
TEST(Diagnostics, MatrixAndLayoutErrors) {
  expectError({body("  let m = mat2x3f();\n  let n = m * m;").c_str(), 4, 13,
               "operator '*' cannot combine mat2x3<f32> and mat2x3<f32>"});
  expectError({body("  let m = mat2x2f() + 1.0;").c_str(), 3, 21,
               "operator '+' cannot combine mat2x2<f32> and abstract-float"});
  expectError({body("  let m = -mat2x2f();").c_str(), 3, 11,
               "unary '-' needs a signed or float operand, got mat2x2<f32>"});
  expectError({body("  let m = mat2x2f(1.0, 2.0, 3.0);").c_str(), 3, 11,
               "mat2x2<f32> constructor needs 2 column vectors or 4 scalars, got 3 arguments"});
  expectError({body("  let m = mat2x2(vec3f(), vec3f());").c_str(), 3, 18,
               "constructor takes 2 columns of type vec2<f32>, got vec3<f32>"});
  expectError(
      {body("  let m = mat2x2();").c_str(), 3, 11, "cannot infer the element type of 'mat2x2()'"});
  expectError({body("  let m = mat2x2(1, 2, 3, 4u);").c_str(), 3, 27,
               "constructor takes f32 scalars, got u32"});
  expectError({body("  var m : mat2x2<i32>;").c_str(), 3, 18,
               "matrix element type must be f32 or f16, got i32"});
  expectError({body("  let d = determinant(mat2x3f());").c_str(), 3, 11,
               "determinant needs a square matrix, got mat2x3<f32>"});
  expectError({body("  let m = mat2x2f();\n  let c = m[2];").c_str(), 4, 13,
               "index 2 out of bounds [0..1]"});
  expectError({body("  let v = bitcast<vec2f>(vec4u(1u));").c_str(), 3, 11,
               "cannot bitcast from vec4<u32> to vec2<f32>"});
  expectError(
      {body("  let v = bitcast<u32>(true);").c_str(), 3, 11, "cannot bitcast from bool to u32"});
  expectError({body("  let m = modf(1i);").c_str(), 3, 11, "no overload of 'modf' takes i32"});
  const std::string wul =
      "var<private> n : u32;\n" + kEntry + "let a = workgroupUniformLoad(&n);\n}";
  expectError({wul.c_str(), 3, 30, "workgroupUniformLoad takes a pointer into <workgroup> memory"});
  const std::string wulIndex =
      "var<workgroup> a : array<u32, 4>;\n@compute @workgroup_size(4) fn "
      "main(@builtin(local_invocation_index) i : u32) {\n"
      "  let x = workgroupUniformLoad(&a[i]);\n}";
  expectError(
      {wulIndex.c_str(), 3, 34, "possibly non-uniform pointer passed to 'workgroupUniformLoad'"});
  expectError({body("  let c = cross(vec2f(1.0), vec2f(2.0));").c_str(), 3, 11,
               "no overload of 'cross' takes vec2<f32>"});
  expectError(
      {"struct In { @builtin(local_invocation_index) li : u32 }\n@compute @workgroup_size(1) "
       "fn main(a : In, @builtin(local_invocation_index) i : u32) {}",
       2, 45, "@builtin(local_invocation_index) appears multiple times as pipeline input"});
  expectError(
      {"struct In { @builtin(local_invocation_index) li : u32, x : u32 }\n"
       "@compute @workgroup_size(1) fn main(a : In) {}",
       2, 37, "member 'x' of entry point parameter 'a' needs a @builtin(...) attribute"});
  expectError({"struct S { @align(12) a : f32 }", 1, 12,
               "'@align' value must be a positive, power-of-two integer"});
  expectError(
      {"struct S { @align(4) v : vec4f }", 1, 19, "alignment must be a multiple of '16' bytes"});
  expectError({"struct S { @size(8) v : vec4f }", 1, 12,
               "'@size' must be at least as big as the type's size (16)"});
  expectError({"struct S { @size(4) @size(4) v : f32 }", 1, 21, "duplicate '@size' attribute"});
  expectError({"struct S { a : array<f32>, n : u32 }", 1, 12,
               "runtime arrays may only appear as the last member of a struct"});
  expectError({"struct S { n : u32, a : array<f32> }\nvar<private> p : S;", 2, 1,
               "runtime-sized arrays can only be used in the <storage> address space"});
  expectError({"struct S { n : u32, a : array<f32> }\nstruct T { s : S }", 2, 16,
               "a struct member cannot hold a runtime-sized array (struct 'S')"});
}

TEST(Diagnostics, TypeAndResolutionErrors) {
  expectError({body("  let p = *b;").c_str(), 3, 11,
               "cannot dereference an expression of type array<u32>"});
  expectError({body("  var v : vec2<f32>;\n  let p = &v.x;").c_str(), 4, 11,
               "cannot take the address of a vector component"});
  expectError({body("  b[0] = 1.5;").c_str(), 3, 10, "cannot convert an abstract float to u32"});
  expectError({body("  let x : i32 = 1u;").c_str(), 3, 17, "type mismatch: expected i32, got u32"});
  expectError({body("  let x = y + 1u;").c_str(), 3, 11, "unresolved identifier 'y'"});
  expectError(
      {body("  let x = 1u;\n  x = 2u;").c_str(), 4, 3, "cannot assign to 'let' declaration 'x'"});
  expectError({body("  let x = 1u + 2i;").c_str(), 3, 14, "cannot combine u32 and i32"});
  expectError({body("  if (1u) { }").c_str(), 3, 6, "if condition must be bool"});
  expectError({body("  let x = 5000000000u;").c_str(), 3, 11, "does not fit in u32"});
  expectError({body("  let x = b[0] << 1i;").c_str(), 3, 16, "shift amount must be u32"});
  expectError({body("  let x = b[0] >> 33u;").c_str(), 3, 16, "must be less than the bit width"});
  expectError({body("  let x = sqrt(4u);").c_str(), 3, 11, "no overload of 'sqrt' takes u32"});
  expectError(
      {body("  let x = frobnicate(1);").c_str(), 3, 11, "unresolved function 'frobnicate'"});
  expectError({body("  let x = max(1.0);").c_str(), 3, 11, "'max' takes 2 arguments, got 1"});
  expectError({body("  break;").c_str(), 3, 3, "'break' outside a loop"});
  expectError({body("  switch (b[0]) { case 1u: { } }").c_str(), 3, 3, "needs a default clause"});
  expectError({body("  let v = vec3<f32>(1.0, 2.0);").c_str(), 3, 11, "needs 3 components, got 2"});
  expectError({body("  let v = vec2<f32>(1.0, 2.0).xyz;").c_str(), 3, 30, "invalid swizzle 'xyz'"});
  expectError(
      {"@group(0) @binding(0) var<storage, read> r : array<f32>;\n@compute @workgroup_size(1) fn "
       "main() { r[0] = 1.0; }",
       2, 42, "read-only storage buffer"});
  expectError({"@compute fn main() {}", 1, 10, "needs @workgroup_size"});
  // Found by the fuzzer: an attribute without its argument.
  expectError({"@group @binding(0) var<storage> a : array<f32>;", 1, 1,
               "@group takes exactly one argument"});
  expectError({"@compute @workgroup_size(0) fn main() {}", 1, 26, "must be at least 1"});
  expectError({"fn helper() {}", 1, 1, "no @compute entry point"});
  expectError({"var<storage> a : array<f32>;\n@compute @workgroup_size(1) fn main() {}", 1, 1,
               "needs @group and @binding"});
  expectError({"fn f() -> u32 { }\n@compute @workgroup_size(1) fn main() {}", 1, 1,
               "must end with a return"});
  expectError(
      {"@group(0) @binding(0) var<storage, read_write> a : array<f32>;\n@group(0) @binding(0) "
       "var<storage, read_write> c : array<f32>;\n"
       "@compute @workgroup_size(1) fn main() {}",
       2, 23,
       "unsupported in this WGSL subset: two resources at one @group/@binding ('a' and 'c')"});
  expectError(
      {"@group(0) @binding(0) var<storage, read_write> a : array<f32>;\n@group(0) @binding(0) "
       "var<storage, read_write> c : array<f32>;\n"
       "@compute @workgroup_size(1) fn main() { a[0] = c[0]; }",
       2, 23, "entry point 'main' uses 'a' and 'c', which have the same @group and @binding"});
}

// The uniformity errors point at the barrier, or at the call argument a callee's barrier needs
// uniform, and at what Tint reports for loop-carried non-uniformity.
TEST(Diagnostics, UniformityErrors) {
  const std::string helper =
      kHead + "fn f(a : u32, v : u32) { if (v > 0u) { b[a] = v; workgroupBarrier(); } }\n";
  expectError({(helper +
                "@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i : u32) {\n"
                "  f(i, 2u);\n  f(1u, i);\n}\n")
                   .c_str(),
               5, 9, "argument 2 of 'f' must be uniform: a barrier in 'f' depends on it"});
  expectError(
      {(kHead + "@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i : u32) {\n"
                "  var x = 0u;\n  while (x < 8u) {\n    workgroupBarrier();\n    x += i;\n  }\n}\n")
           .c_str(),
       5, 5, "'workgroupBarrier' must only be called from uniform control flow"});
}

TEST(Diagnostics, GarbageNeverCrashes) {
  const std::string inputs[] = {"",
                                "@",
                                "fn",
                                "fn main(",
                                "{{{{{{",
                                "var<",
                                "array<array<",
                                ")))",
                                "\x01\x02\xff",
                                "fn main() { loop { continuing { break if; } } }",
                                "struct S { a : f32,,, }",
                                "@compute @workgroup_size(1,1,1,1) fn main() {}",
                                std::string(10000, '(')};
  for (const std::string& s : inputs) {
    const wgsl::Result r = wgsl::translate(s);
    EXPECT_FALSE(r.ok()) << s.substr(0, 40);
  }
}

}  // namespace
