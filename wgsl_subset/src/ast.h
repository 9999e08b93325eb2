// The syntax tree: plain structs with owned children. The parser builds it; the resolver turns
// it into the IR (ir.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"

namespace wgsl::detail {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// A type as written: `f32`, `vec3<u32>`, `array<f32, 256>`, `array<i32>`, `atomic<u32>`, `S`.
struct TypeExpr {
  SourcePos pos;
  std::string name;
  std::vector<TypeExpr> args;           // template type arguments
  std::shared_ptr<Expr> count;          // array element count (null: runtime-sized)
  std::vector<std::string> accessArgs;  // unused outside var<> headers
};

struct Expr {
  enum class Kind {
    IntLit,
    FloatLit,
    BoolLit,
    Ident,
    Unary,
    Binary,
    Call,
    Index,
    Member,
    Paren
  } kind;
  SourcePos pos;
  std::string text;           // literal spelling, identifier, operator, called name, member name
  std::vector<ExprPtr> args;  // operands / call arguments / [base, index] / [base]
  std::optional<TypeExpr> typeArgs;  // `vec3<f32>(...)`, `bitcast<u32>(...)`, `array<f32, 4>(...)`
  int height = 0;  // longest path to a leaf, counted as Tint counts expression depth (no parens)
};

// Tint's limit on expression depth ("reached max expression depth of 512"); the parser enforces
// it, so every later recursion over an expression is bounded.
constexpr int kMaxExpressionDepth = 512;

struct Attribute {
  SourcePos pos;
  std::string name;
  std::vector<ExprPtr> args;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  enum class Kind {
    Let,
    Var,
    Const,
    Assign,
    CompoundAssign,
    Increment,
    Decrement,
    Call,
    If,
    For,
    While,
    Loop,
    Switch,
    Return,
    Break,
    BreakIf,
    Continue,
    Block,
    Discard,
    PhonyAssign,
    ConstAssert,
  } kind;
  SourcePos pos;
  std::string name;                 // declared name; compound operator for CompoundAssign
  std::optional<TypeExpr> type;     // declared type
  ExprPtr lhs, expr;                // assignment target / value, condition, return value
  std::vector<StmtPtr> body;        // block / then / loop body
  std::vector<StmtPtr> elseBody;    // else branch (an else-if is a nested If)
  StmtPtr init, update;             // for
  std::vector<StmtPtr> continuing;  // loop { continuing { ... } }
  struct Case {
    SourcePos pos;
    std::vector<ExprPtr> selectors;  // empty with isDefault
    bool isDefault = false;
    std::vector<StmtPtr> body;
  };
  std::vector<Case> cases;
};

struct Param {
  SourcePos pos;
  std::string name;
  TypeExpr type;
  std::vector<Attribute> attributes;
};

struct Function {
  SourcePos pos;
  std::string name;
  std::vector<Attribute> attributes;
  std::vector<Param> params;
  std::optional<TypeExpr> returnType;
  std::vector<StmtPtr> body;
};

struct GlobalVar {
  SourcePos pos;
  std::string name;
  std::vector<Attribute> attributes;
  std::string addressSpace;  // storage, uniform, workgroup, private ("" for const/override)
  std::string access;        // read, read_write ("" when not given)
  std::optional<TypeExpr> type;
  ExprPtr init;
  enum class Kind { Var, Const, Override } kind = Kind::Var;
};

struct StructMember {
  SourcePos pos;
  std::string name;
  TypeExpr type;
  std::vector<Attribute> attributes;  // @size, @align
};

struct StructDecl {
  SourcePos pos;
  std::string name;
  std::vector<StructMember> members;
};

// `alias name = type;` (expand_aliases.h replaces every use before the resolver runs).
struct AliasDecl {
  SourcePos pos;
  std::string name;
  TypeExpr type;
};

// `enable f16;`: one per extension named (`enable f16, subgroups;` gives two).
struct Enable {
  SourcePos pos;
  std::string name;
};

struct Module {
  std::vector<Enable> enables;
  // `diagnostic(off, subgroup_uniformity);` at module scope: subgroup uniformity not checked.
  bool subgroupUniformityOff = false;
  std::vector<AliasDecl> aliases;
  std::vector<StmtPtr> constAsserts;  // module-scope const_assert, checked after every declaration
  std::vector<GlobalVar> globals;
  std::vector<Function> functions;
  std::vector<StructDecl> structs;
};

}  // namespace wgsl::detail
