// The resolved module: every name bound to its declaration, every expression typed, constants
// folded and implicit conversions made explicit. resolve() builds it, validate() checks the rules
// that are not about types (control flow, uniformity), writeGlsl() spells it. Nodes live in the
// module's arenas and point at each other; nothing here knows GLSL.
#pragma once

#include <array>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diagnostics.h"
#include "types.h"

namespace wgsl::detail::ir {

struct Expr;
struct Function;

// A name bound by a declaration: a module-scope variable, const or override, a parameter, or a
// function-scope let, var or const.
struct Variable {
  enum class Kind { Let, Var, Const, Param, Global, Override } kind = Kind::Var;
  std::string name;  // as written
  SourcePos pos;
  Type type;
  std::string space;  // storage, uniform, workgroup, private; "function" for locals
  bool writable = false;
  std::optional<double> constant;  // a const's folded scalar value
  const Expr* inlined = nullptr;   // module-scope and abstract consts: a use is this value
  const Expr* init = nullptr;  // a local's or private variable's initializer; an override's default
  uint32_t group = 0, binding = 0;  // storage and uniform variables
  bool readOnly = true;             // storage: access mode read
  uint32_t overrideId = 0;          // the SpecId of an override
  std::string builtin;              // an entry point parameter's @builtin
  bool arrayCount = false;          // an override that sizes a workgroup array
  size_t paramIndex = 0;            // a parameter's position
};

using StructMembers = std::vector<std::pair<std::string, Type>>;

// WGSL's layout of a struct (layout.h): each member's offset, the struct's alignment and size.
struct StructLayout {
  std::vector<uint32_t> offsets;
  uint32_t align = 4, size = 0;
  uint32_t glslAlign = 0;  // std430's alignment of the GLSL struct (0: not computed yet)
};

struct Expr {
  enum class Kind {
    Literal,      // `constant`, of `type`
    Ref,          // `var`
    Paren,        // (args[0])
    Unary,        // `name` args[0]: "-", "!", "~"
    Binary,       // args[0] `name` args[1]: arithmetic, comparison, logical, bitwise, shift
    Index,        // args[0][args[1]]: an array or vector element
    Member,       // args[0].`name`: a struct member
    Swizzle,      // args[0].`name`: vector components, spelled with x, y, z, w
    Convert,      // args[0] converted to `type` (value conversion)
    Bitcast,      // args[0] reinterpreted as `type`
    Construct,    // a vector or array of `type` from args; no args: the zero value
    Call,         // user function `function`
    Builtin,      // builtin function `name`
    ArrayLength,  // arrayLength(&args[0])
    Atomic,       // atomic builtin `name`: args[0] is the atomic, args[1] the operand (if any)
    Barrier,      // workgroupBarrier or storageBarrier (`name`)
    Select,       // select(args[0], args[1], args[2])
    AddressOf,    // &args[0]: a pointer to the memory args[0] names
    Deref,        // *args[0]: the memory the pointer args[0] points at
  } kind = Kind::Literal;
  SourcePos pos;
  Type type;
  std::optional<double> constant;  // the folded value of a const-expression
  bool assignable = false;         // names a memory location
  bool writable = false;           // ... that may be written
  std::string name;
  std::vector<const Expr*> args;
  const Variable* var = nullptr;
  const Function* function = nullptr;
};

struct Stmt {
  enum class Kind {
    Declare,    // `var` (init may be null)
    Assign,     // target = value (compound assignments: value is the whole operation)
    Increment,  // target++
    Decrement,  // target--
    Evaluate,   // value; (a call)
    Phony,      // _ = value;
    Return,     // value may be null
    If,         // value: condition; body, elseBody
    Block,      // body
    While,      // value: condition; body
    For,        // init, value (condition, may be null), update; body
    Loop,       // body, continuing
    Break,
    BreakIf,  // value: condition
    Continue,
    Switch,           // value: selector; cases
    CompareExchange,  // var = atomicCompareExchangeWeak(&target, compare, value)
  } kind = Kind::Block;
  SourcePos pos;
  Variable* var = nullptr;
  const Expr* target = nullptr;
  const Expr* value = nullptr;
  const Expr* rhs = nullptr;      // a compound assignment's right operand
  const Expr* compare = nullptr;  // CompareExchange
  std::vector<const Stmt*> body, elseBody, continuing;
  const Stmt* init = nullptr;
  const Stmt* update = nullptr;
  struct Case {
    SourcePos pos;
    std::vector<const Expr*> selectors;  // literals of the selector's type
    bool isDefault = false;
    std::vector<const Stmt*> body;
  };
  std::vector<Case> cases;
};

struct Function {
  std::string name;
  SourcePos pos;
  bool entryPoint = false;  // @compute
  std::vector<const Variable*> params;
  Type returnType;
  std::vector<const Stmt*> body;
  std::array<uint32_t, 3> workgroupSize{1, 1, 1};
  std::array<const Variable*, 3> workgroupSizeOverrides{};  // the override of a dimension, or null
};

// A module-scope declaration, in the order the writer emits them (dependencies first).
struct Declaration {
  enum class Kind { Struct, Global, Function } kind = Kind::Struct;
  std::string structName;
  const Variable* global = nullptr;  // Global (const and override included)
  const Function* function = nullptr;
};

struct Module {
  std::deque<Variable> variables;
  std::deque<Expr> exprs;
  std::deque<Stmt> stmts;
  std::deque<Function> functions;
  std::vector<Declaration> order;
  std::map<std::string, StructMembers> structs;  // by WGSL name
  std::map<std::string, StructLayout> layouts;   // by WGSL name
  // A struct's members' @builtin names ("" for none), for compute entry point parameters.
  std::map<std::string, std::vector<std::string>> memberBuiltins;
  const Function* entry = nullptr;      // the entry point to write
  bool f16 = false, subgroups = false;  // `enable f16;`, `enable subgroups;`
  bool subgroupUniformityOff = false;   // `diagnostic(off, subgroup_uniformity);`
};

}  // namespace wgsl::detail::ir
