// The translator's stages one at a time: what the resolver builds (the IR), what the validator
// rejects that the resolver lets through, and how the GLSL writer spells WGSL's semantics.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "expand_aliases.h"
#include "glsl_writer.h"
#include "layout.h"
#include "parser.h"
#include "resolver.h"
#include "validator.h"

namespace {

using namespace wgsl::detail;
using EK = ir::Expr::Kind;
using SK = ir::Stmt::Kind;
using K = Type::K;

// Parse and resolve only; the IR does not point into the syntax tree.
ir::Module resolved(const std::string& source, wgsl::Reflection* reflection = nullptr) {
  ir::Module m;
  wgsl::Reflection r;
  resolve(parse(source), {}, m, reflection ? *reflection : r);
  return m;
}

// The message of the CompileError `f` throws ("" when it throws none).
std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

const ir::Function& function(const ir::Module& m, const std::string& name) {
  for (const auto& f : m.functions) {
    if (f.name == name) return f;
  }
  throw std::runtime_error("no function " + name);
}

const std::string kMain = "@compute @workgroup_size(1) fn main() {}\n";

// ---- resolve ----

TEST(Resolve, NamesBindToTheirDeclarations) {
  const ir::Module m = resolved(R"(
fn g(x : i32) -> i32 { let y = x; { let x = 2i; return x + y; } }
const n = 4;
struct S { a : array<f32, n> }
@group(0) @binding(0) var<storage, read_write> s : S;
@compute @workgroup_size(1) fn main() { s.a[0] = f32(g(1)); }
)");
  // Dependencies first: n before S (an array count), S before s (its type), g and s before main.
  std::vector<std::string> order;
  for (const auto& d : m.order)
    order.push_back(d.kind == ir::Declaration::Kind::Struct   ? d.structName
                    : d.kind == ir::Declaration::Kind::Global ? d.global->name
                                                              : d.function->name);
  EXPECT_EQ(order, (std::vector<std::string>{"n", "S", "s", "g", "main"}));
  // `let y = x` reads the parameter; the inner `x + y` reads the inner let.
  const ir::Function& g = function(m, "g");
  const ir::Stmt& letY = *g.body[0];
  ASSERT_EQ(letY.kind, SK::Declare);
  EXPECT_EQ(letY.value->kind, EK::Ref);
  EXPECT_EQ(letY.value->var, g.params[0]);
  const ir::Stmt& ret = *g.body[1]->body[1];
  ASSERT_EQ(ret.kind, SK::Return);
  const ir::Expr& sum = *ret.value;
  ASSERT_EQ(sum.kind, EK::Binary);
  EXPECT_EQ(sum.args[0]->var, g.body[1]->body[0]->var) << "the inner x shadows the parameter";
  EXPECT_EQ(sum.args[1]->var, letY.var);
  EXPECT_EQ(m.structs.at("S")[0].second.n, 4) << "an array count from a module const";
}

TEST(Resolve, FoldsConstExpressionsAndMakesConversionsExplicit) {
  const ir::Module m = resolved(R"(
const c = 2 + 3 * 4;
@compute @workgroup_size(1) fn main() {
  let f : f32 = c;
  let u = u32(f);
  let m = max(1, 2.5);
  var v = vec3<f32>(1.0);
  let d = dot(v, v);
}
)");
  const ir::Function& main = function(m, "main");
  const ir::Variable& c = *m.order[0].global;
  EXPECT_EQ(c.type.k, K::AbstractInt);
  EXPECT_EQ(*c.constant, 14.0);
  // The abstract 14 becomes an f32 literal where the declared type needs it.
  const ir::Expr& f = *main.body[0]->value;
  EXPECT_EQ(f.kind, EK::Literal);
  EXPECT_EQ(f.type.k, K::F32);
  EXPECT_EQ(*f.constant, 14.0);
  // A value conversion is a node of its own; a let of an f32 is not a const-expression.
  const ir::Expr& u = *main.body[1]->value;
  EXPECT_EQ(u.kind, EK::Convert);
  EXPECT_EQ(u.args[0]->type.k, K::F32);
  EXPECT_FALSE(u.constant);
  // max(1, 2.5) on abstract constants folds to 2.5, made an f32 by the let.
  const ir::Expr& mx = *main.body[2]->value;
  EXPECT_EQ(mx.kind, EK::Literal);
  EXPECT_EQ(mx.type.k, K::F32);
  EXPECT_EQ(*mx.constant, 2.5);
  // dot's overload returns the vector's scalar.
  const ir::Expr& d = *main.body[4]->value;
  EXPECT_EQ(d.kind, EK::Builtin);
  EXPECT_EQ(d.type.k, K::F32);
}

TEST(Resolve, TypeErrorsAreTheResolversOwn) {
  EXPECT_EQ(
      errorOf([&] { resolved("@compute @workgroup_size(1) fn main() { let x : u32 = 1.5; }"); }),
      "cannot convert an abstract float to u32 implicitly (use u32(...))");
  EXPECT_EQ(errorOf([&] { resolved("@compute @workgroup_size(1) fn main() { let x = y; }"); }),
            "unresolved identifier 'y'");
  EXPECT_EQ(errorOf([&] { resolved("const a = 2147483647i + 1i;\n" + kMain); }), "");  // wraps
  EXPECT_EQ(errorOf([&] { resolved("const a = 1 / 0;\n" + kMain); }),
            "integer division by zero in a constant expression");
}

// ---- validate: rules the resolver does not check ----

TEST(Validate, ControlFlowIsCheckedAfterResolution) {
  const auto check = [](const std::string& body) {
    const ir::Module m = resolved("fn f() -> i32 { " + body + " }\n" + kMain);
    return errorOf([&] { validate(m); });
  };
  EXPECT_EQ(check("break; return 1;"), "'break' outside a loop or switch");
  EXPECT_EQ(check("loop { } "), "loop does not exit");
  EXPECT_EQ(check("loop { continuing { return 1; } }"),
            "a continuing block must not contain a return statement");
  EXPECT_EQ(check("if (true) { return 1; }"), "function 'f' must end with a return statement");
  EXPECT_EQ(check("switch (1) { case 1: { } } return 1;"), "a switch needs a default clause");
  EXPECT_EQ(check("loop { if (true) { break; } } return 1;"), "");
}

TEST(Validate, BarriersNeedUniformControlFlow) {
  const std::string src = R"(
@group(0) @binding(0) var<storage, read_write> b : array<u32>;
fn sync(x : u32) { if (x > 0u) { workgroupBarrier(); } }
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i : u32) {
  sync(4u);
  sync(i);
}
)";
  const ir::Module m = resolved(src);  // the resolver has nothing against it
  EXPECT_EQ(errorOf([&] { validate(m); }),
            "argument 1 of 'sync' must be uniform: a barrier in 'sync' depends on it");
  // A variable made non-uniform late in a loop taints the barrier before it (the loop's fixed
  // point).
  const ir::Module loop = resolved(R"(
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i : u32) {
  var x = 0u;
  for (var k = 0u; k < 4u; k++) {
    if (x == 0u) { workgroupBarrier(); }
    x = i;
  }
}
)");
  EXPECT_EQ(errorOf([&] { validate(loop); }),
            "'workgroupBarrier' must only be called from uniform control flow");
  // Outside a loop the analysis follows the flow: the assignment after the barrier is harmless.
  const ir::Module straight = resolved(R"(
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i : u32) {
  var x = 0u;
  if (x == 0u) { workgroupBarrier(); }
  x = i;
}
)");
  EXPECT_EQ(errorOf([&] { validate(straight); }), "");
}

TEST(Validate, TheModuleNeedsAComputeEntryPoint) {
  const ir::Module m = resolved("fn f() {}\n");
  EXPECT_EQ(errorOf([&] { validate(m); }), "no @compute entry point");
}

// ---- write: WGSL's semantics spelled in GLSL ----

std::string written(const std::string& source) {
  const ir::Module m = resolved(source);
  validate(m);
  return writeGlsl(m);
}

TEST(Write, SpellsWgslSemanticsExplicitly) {
  const std::string glsl = written(R"(
@group(0) @binding(0) var<storage, read_write> b : array<i32>;
var<workgroup> tile : array<f32, 8>;
@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i : u32) {
  let q = b[0] / b[1];
  let s = b[0] << u32(b[1]);
  let f = i32(tile[i]);
  b[i] = q + s + f;
}
)");
  EXPECT_NE(glsl.find("tg_div(w_b[min(uint(0), uint(w_b.length()) - 1u)]"), std::string::npos)
      << glsl;
  EXPECT_NE(glsl.find("int tg_div(int a, int b)"), std::string::npos) << "the helper it calls";
  EXPECT_EQ(glsl.find("tg_rem("), std::string::npos) << "and no helper it does not call";
  EXPECT_NE(glsl.find(" & 31u))"), std::string::npos) << "shift amounts are masked";
  // (tile[i] needs no clamp: i < 8 by the workgroup size, index_bounds.h.)
  EXPECT_NE(glsl.find("tg_f2i(w_tile[w_i])"), std::string::npos) << "saturating";
  EXPECT_NE(glsl.find("for (uint tg_w = gl_LocalInvocationIndex; tg_w < 8u;"), std::string::npos)
      << "workgroup memory zeroed by the workgroup";
  EXPECT_NE(glsl.find("layout(local_size_x = 8, local_size_y = 1, local_size_z = 1) in;"),
            std::string::npos);
}

TEST(Write, ContinueReachesTheContinuingBlock) {
  const std::string glsl = written(R"(
@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(1) fn main() {
  var i = 0u;
  loop {
    if (i == 2u) { continue; }
    if (i > 5u) { break; }
    b[i] = i;
    continuing { i++; break if i >= 8u; }
  }
}
)");
  EXPECT_NE(glsl.find("bool tg_break_2 = false;"), std::string::npos) << glsl;
  EXPECT_NE(glsl.find("break;  // continue"), std::string::npos);
  EXPECT_NE(glsl.find("{ tg_break_2 = true; break; }"), std::string::npos);
  EXPECT_NE(glsl.find("if ((w_i_1 >= 8u)) break;"), std::string::npos);
}

// A `continue` in a switch (nested too) in a loop with a continuing block: a flag, and a break
// after each enclosing switch, since a plain break would only leave the switch.
TEST(Write, ContinueInASwitchLeavesEachSwitch) {
  const std::string glsl = written(R"(
@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(1) fn main() {
  var i = 0u;
  loop {
    switch (b[i]) {
      case 0u: { switch (b[i + 1u]) { case 1u: { continue; } default: {} } }
      default: {}
    }
    b[i] = i;
    continuing { i++; break if i >= 8u; }
  }
}
)");
  const size_t declared = glsl.find("bool tg_cont_");
  ASSERT_NE(declared, std::string::npos) << glsl;
  const std::string flag = glsl.substr(declared + 5, glsl.find(' ', declared + 5) - declared - 5);
  EXPECT_NE(glsl.find("{ " + flag + " = true; break; }"), std::string::npos) << glsl;
  size_t checks = 0;
  for (size_t at = glsl.find("if (" + flag + ") break;"); at != std::string::npos;
       at = glsl.find("if (" + flag + ") break;", at + 1))
    ++checks;
  EXPECT_EQ(checks, 2u) << "one after each switch\n" << glsl;
}

TEST(Write, OnlyTheChosenEntryPointIsWritten) {
  ir::Module m;
  wgsl::Reflection r;
  resolve(parse(R"(
@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(1) fn first() { b[0] = 1u; }
@compute @workgroup_size(2) fn second() { b[0] = 2u; }
)"),
          wgsl::Options{.entryPoint = "second"}, m, r);
  validate(m);
  const std::string glsl = writeGlsl(m);
  EXPECT_NE(glsl.find("local_size_x = 2"), std::string::npos);
  EXPECT_EQ(glsl.find("= 1u;"), std::string::npos) << glsl;
  EXPECT_EQ(r.entryPoints, (std::vector<std::string>{"first", "second"}));
}

}  // namespace

namespace {

// Aliases are gone before the resolver runs: every use in a type or as a constructor's name is the
// named type, itself expanded; a local of the alias's name shadows it.
TEST(ExpandAliases, ReplacesEveryUseWithTheNamedType) {
  Module m = parse(R"(
alias Arr = array<V, 2>;
alias V = vec3<f32>;
fn f(a : Arr) -> V { let V = 1.0; return a[0] * V; }
@compute @workgroup_size(1) fn main() { _ = f(Arr(V(1.0), V())); }
)");
  expandAliases(m);
  const Function& f = m.functions[0];
  EXPECT_EQ(f.params[0].type.name, "array");
  EXPECT_EQ(f.params[0].type.args[0].name, "vec3");
  EXPECT_EQ(f.params[0].type.args[0].args[0].name, "f32");
  EXPECT_EQ(f.returnType->name, "vec3");
  const Expr& call = *m.functions[1].body[0]->expr;  // f(Arr(V(1.0), V()))
  const Expr& arr = *call.args[0];
  EXPECT_EQ(arr.text, "array");
  ASSERT_TRUE(arr.typeArgs.has_value());
  EXPECT_EQ(arr.typeArgs->args[0].name, "vec3");
  EXPECT_EQ(arr.args[0]->text, "vec3");
  // In f, the local V shadows the alias: the return expression's V is that value.
  const Expr& ret = *f.body[1]->expr;
  EXPECT_EQ(ret.args[1]->text, "V");
}

TEST(ExpandAliases, RejectsCyclesAndRedeclarations) {
  const auto error = [](const char* src) {
    return errorOf([&] {
      Module m = parse(src);
      expandAliases(m);
    });
  };
  EXPECT_NE(error("alias A = array<B, 2>; alias B = A;").find("refers to itself"),
            std::string::npos);
  EXPECT_NE(error("struct S { a : u32 } alias S = u32;").find("redeclaration of 'S'"),
            std::string::npos);
}

TEST(Resolve, PointersAreTypedAndDereferenced) {
  const ir::Module m = resolved(R"(
fn f(p : ptr<function, array<f32, 2>>) { (*p)[1] = 1.0; p[0] = 2.0; }
@compute @workgroup_size(1) fn main() { var a : array<f32, 2>; f(&a); let q = &a[1]; *q = 3.0; }
)");
  const ir::Function& f = function(m, "f");
  EXPECT_EQ(f.params[0]->type.wgsl(), "ptr<function, array<f32, 2>, read_write>");
  // p[0] is (*p)[0]: an index into a dereference.
  const ir::Expr* shorthand = f.body[1]->target;
  ASSERT_EQ(shorthand->kind, EK::Index);
  EXPECT_EQ(shorthand->args[0]->kind, EK::Deref);
  // *q for `let q = &a[1]` dereferences the let; the writer spells what q's initializer names.
  const ir::Function& main = function(m, "main");
  ASSERT_EQ(main.body[3]->target->kind, EK::Deref);
  EXPECT_EQ(main.body[3]->target->args[0]->var->init->kind, EK::AddressOf);
}

TEST(Write, PointersAreLowered) {
  const std::string glsl = written(R"(
@group(0) @binding(0) var<storage, read_write> b : array<f32>;
fn inc(p : ptr<function, f32>) { *p += 1.0; }
fn put(p : ptr<storage, f32, read_write>) { *p = 2.0; }
@compute @workgroup_size(1) fn main() {
  var a : array<f32, 4>;
  var i = 1;
  let q = &a[i];
  i = 3;
  inc(q);
  put(&b[2]);
}
)");
  EXPECT_NE(glsl.find("void w_inc(inout float w_p)"), std::string::npos) << glsl;
  // The index is evaluated where the pointer is formed, once.
  EXPECT_NE(glsl.find("uint tg_i_3 = uint(w_i_2);"), std::string::npos) << glsl;
  EXPECT_NE(glsl.find("w_inc(w_a_1[min(uint(tg_i_3), 3u)]);"), std::string::npos) << glsl;
  // A storage pointer: the callee is written for the memory it is passed.
  EXPECT_NE(glsl.find("w_b[min(uint(2), uint(w_b.length()) - 1u)] = 2.0;"), std::string::npos)
      << glsl;
  EXPECT_NE(glsl.find("void w_put_s"), std::string::npos) << glsl;
}

// ---- issue 29: matrices, layouts, decomposed uniform matrices ----

TEST(Resolve, MatrixOperatorsHaveWgslsResultTypes) {
  const ir::Module m = resolved(R"(
@group(0) @binding(0) var<storage, read_write> o : array<f32>;
@compute @workgroup_size(1) fn main() {
  let a = mat2x3<f32>();
  let b = mat4x2f();
  let ab = a * b;                   // mat2x3 * mat4x2: inner sizes 2 and 2 -> mat4x3
  let av = a * vec2f(1.0);          // vec3
  let va = vec3f(1.0) * a;          // vec2
  let t = transpose(a);             // mat3x2
  let s = 2.0 * a - a;              // mat2x3
  let c = a[1];                     // its column, vec3
  o[0] = determinant(mat3x3f()) + ab[3].z + av.z + va.y + t[2].y + s[0].x + c.x;
}
)");
  std::map<std::string, std::string> types;
  for (const ir::Stmt* st : function(m, "main").body) {
    if (st->kind == SK::Declare) types[st->var->name] = st->var->type.wgsl();
  }
  EXPECT_EQ(types["ab"], "mat4x3<f32>");
  EXPECT_EQ(types["av"], "vec3<f32>");
  EXPECT_EQ(types["va"], "vec2<f32>");
  EXPECT_EQ(types["t"], "mat3x2<f32>");
  EXPECT_EQ(types["s"], "mat2x3<f32>");
  EXPECT_EQ(types["c"], "vec3<f32>");
  EXPECT_NE(errorOf([] { resolved("fn f() { let m = mat2x3f() * mat2x3f(); }\n" + kMain); }), "");
}

TEST(Layout, SizeAndAlignOpenGapsThatPaddingMembersFill) {
  const ir::Module m = resolved(R"(
struct Inner { @size(12) x : f32, @align(16) y : vec2f }
struct S { a : f32, @size(20) b : u32, @align(32) c : vec2f, inner : Inner, m : mat3x2f, last : f32 }
struct Plain { a : f32, v : vec4f, m : mat2x3f }
)" + kMain);
  // WGSL's layout: Inner {x 0, y 16} size 32 align 16; S {a 0, b 4, c 32, inner 48, m 80,
  // last 104}, size 128 (align 32).
  EXPECT_EQ(m.layouts.at("Inner").offsets, (std::vector<uint32_t>{0, 16}));
  EXPECT_EQ(m.layouts.at("Inner").size, 32u);
  EXPECT_EQ(m.layouts.at("S").offsets, (std::vector<uint32_t>{0, 4, 32, 48, 80, 104}));
  EXPECT_EQ(m.layouts.at("S").size, 128u);
  EXPECT_EQ(sizeOf(Type::mat(3, 2), m.layouts), 24u);
  EXPECT_EQ(sizeOf(Type::mat(2, 3), m.layouts), 32u);
  EXPECT_EQ(alignOf(Type::mat(4, 2), m.layouts), 8u);
  // Padding only where std430 would put a member elsewhere; none without the attributes.
  const std::string inner = glslMemberDecls("Inner", m.structs, m.layouts, "", " ");
  EXPECT_EQ(inner, "float w_x; uint tg_pad_0; uvec2 tg_pad_1; vec2 w_y; uvec2 tg_pad_2; ");
  EXPECT_EQ(glslMemberDecls("Plain", m.structs, m.layouts, "", " "),
            "float w_a; vec4 w_v; mat2x3 w_m; ");
  EXPECT_TRUE(glslHasPadding(Type{K::Struct, 0, nullptr, "S"}, m.structs, m.layouts));
  EXPECT_FALSE(glslHasPadding(Type{K::Struct, 0, nullptr, "Plain"}, m.structs, m.layouts));
  // std140 agrees with WGSL for Plain (a matCx2 is decomposed), not for an array of f32.
  EXPECT_EQ(std140Mismatch(Type{K::Struct, 0, nullptr, "Plain"}, m.structs, m.layouts), "");
  EXPECT_NE(std140Mismatch(Type::array(Type::scalar(K::F32), 4), m.structs, m.layouts)
                .find("element stride 4 bytes"),
            std::string::npos);
}

TEST(Write, UniformMatCx2IsDecomposed) {
  const std::string glsl = written(R"(
struct S { a : f32, m : mat2x2f, @align(16) arr : array<mat2x2f, 2> }
@group(0) @binding(0) var<uniform> u : S;
@group(0) @binding(1) var<storage, read_write> o : array<f32>;
@compute @workgroup_size(1) fn main() { let m = u.m; o[0] = m[1].x + u.arr[1][0].y; }
)");
  EXPECT_NE(glsl.find("struct tgs_mat2x2 { vec2 c0; vec2 c1; };"), std::string::npos) << glsl;
  EXPECT_NE(glsl.find("std140, set = 0, binding = 0) uniform tg_block_0_0 { float w_a; "
                      "vec2 tgc0_w_m; vec2 tgc1_w_m; uvec2 tg_pad_0; tgs_mat2x2 w_arr[2]; } w_u;"),
            std::string::npos)
      << glsl;
  EXPECT_NE(glsl.find("mat2x2(w_u.tgc0_w_m, w_u.tgc1_w_m)"), std::string::npos) << glsl;
}

}  // namespace
