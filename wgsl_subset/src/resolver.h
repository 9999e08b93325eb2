// The resolver: binds every name to its declaration and types every expression by WGSL's rules
// (abstract numerics, implicit conversions, address spaces and access modes, builtin overloads),
// folding const-expressions as it goes. It builds the IR (ir.h) and the reflection; type errors
// are its diagnostics. Control flow and uniformity are the validator's; spelling is the writer's.
//
// One class, in four files by what it resolves: resolve_module.cpp (declarations, types, entry
// points), resolve_stmt.cpp, resolve_expr.cpp (operators, names, indexing) and resolve_call.cpp
// (builtins, conversions, constructors, atomics, user functions); resolve_matrix.cpp holds the
// matrices' constructors, operators and builtins.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ast.h"
#include "ir.h"
#include "wgsl_subset/wgsl_subset.h"

namespace wgsl::detail {

// Resolves every function (each @compute one too); `entryPoint` (empty: the first @compute
// function) is the one `out.entry` names and `reflection` describes.
// `options` gives the entry point and the device features `enable` directives need.
void resolve(const Module& module, const Options& options, ir::Module& out, Reflection& reflection);

class Resolver {
 public:
  Resolver(const Module& module, const Options& options, ir::Module& out, Reflection& reflection)
      : m_(module),
        entryName_(options.entryPoint),
        options_(options),
        out_(out),
        reflection_(reflection) {}
  void run();

 private:
  using X = const ir::Expr*;

  // ---- module scope (resolve_module.cpp) ----
  void enableExtensions();
  void requireF16(SourcePos pos);  // f16 named here: an error without `enable f16;`
  Type resolveType(const TypeExpr& t);
  Type pointerType(const TypeExpr& t);
  Type valueType(const TypeExpr& t);
  Type overrideSizedArray(const TypeExpr& t, const Type& element, bool allowed);
  Type computedCountArray(const Expr& count, const Type& element);
  ir::Variable* computedOverride(X c, SourcePos pos, const std::string& what, int64_t max);
  void assignCountIds();
  int64_t constInt(const Expr& e, const char* what);
  void declareStruct(const StructDecl& s);
  void declareGlobal(const GlobalVar& g);
  void declareConst(const GlobalVar& g);
  void declareOverride(const GlobalVar& g);
  void declareResource(const GlobalVar& g, const Type& t);
  std::string nonHostShareable(const Type& t);
  std::string runtimeSizedIn(const Type& t);  // "" when `t` holds no runtime-sized array
  void declareFunction(const Function& f, ir::Function& fn);
  void entryPointInterface(const Function& f, ir::Function& fn);
  const ir::Variable* workgroupSizeOverride(const Expr& arg, X value);
  bool usesOverride(const Expr& e);
  void usedGlobals(const ir::Function& f, std::set<std::string>& used,
                   std::set<const ir::Function*>& seen);

  // ---- names ----
  ir::Variable* lookup(const std::string& name) const;
  void define(SourcePos pos, const std::string& name, ir::Variable* v);
  ir::Variable* newVariable(ir::Variable v);

  // ---- statements (resolve_stmt.cpp) ----
  std::vector<const ir::Stmt*> block(const std::vector<StmtPtr>& body);
  const ir::Stmt* stmt(const Stmt& s);
  const ir::Stmt* declaration(const Stmt& s);
  void constAssert(const Stmt& s);
  const ir::Stmt* compareExchange(const Stmt& s);
  const ir::Stmt* loop(const Stmt& s);
  const ir::Stmt* switchStmt(const Stmt& s);
  X assignTarget(const Expr& e);
  X condition(const Expr& e, const char* what);
  ir::Stmt* newStmt(ir::Stmt::Kind kind, SourcePos pos);

  // ---- expressions (resolve_expr.cpp) ----
  X expr(const Expr& e);
  X identifier(const Expr& e);
  X intLiteral(const Expr& e);
  X floatLiteral(const Expr& e);
  X unary(const Expr& e);
  X binary(const std::string& op, X l, X r, SourcePos pos);
  X foldConcrete(const std::string& op, X l, X r, const Type& t, SourcePos pos);
  X index(const Expr& e);
  X member(const Expr& e);
  X addressOf(const Expr& e);
  X deref(X p, SourcePos pos);
  X pointee(const Expr& e, const char* what);
  void checkPointerArgument(X arg, SourcePos pos);
  X convert(X v, const Type& to, SourcePos pos);
  void unify(X& l, X& r, SourcePos pos);
  static bool isConstExpr(X e);
  void checkArrayCounts(const Type& t, SourcePos pos);
  static Type concrete(const Type& t);
  ir::Expr* node(ir::Expr::Kind kind, SourcePos pos, Type type, std::vector<X> args = {});
  X literal(double value, const Type& type, SourcePos pos);
  X notEvaluable(SourcePos pos, const std::string& message, const Type& t);

  // ---- calls (resolve_call.cpp) ----
  X call(const Expr& e);
  X userCall(const Expr& e, const ir::Function& f);
  X conversion(const Expr& e);
  X bitcast(const Expr& e);
  X construct(const Expr& e);
  X structConstruct(const Expr& e);
  X inferredArray(const Expr& e);
  X atomic(const Expr& e);
  X arrayLength(const Expr& e);
  X select(const Expr& e);
  X workgroupUniformLoad(const Expr& e);
  X modfFrexp(const Expr& e);
  X builtin(const Expr& e);
  X subgroupBuiltin(const Expr& e);  // resolve_subgroup.cpp; null when `e` names none
  X foldNumeric(const std::string& f, const std::vector<X>& a, const Expr& e);
  X atomicOperand(const Expr& e, const std::string& f);
  std::vector<X> argsOf(const Expr& e);
  static void arity(const Expr& e, size_t n);

  // ---- matrices (resolve_matrix.cpp) ----
  X matrixConstruct(const Expr& e);
  X matrixBinary(const std::string& op, X l, X r, SourcePos pos);
  X matrixBuiltin(const Expr& e);

  const Module& m_;
  std::string entryName_;  // the @compute function the module's `entry` names; empty: the first
  Options options_;
  bool f16_ = false, subgroups_ = false;  // enabled by `enable` directives
  ir::Module& out_;
  Reflection& reflection_;
  std::vector<std::map<std::string, ir::Variable*>> scopes_{1};
  std::map<std::string, const ir::Function*> functions_;  // resolved so far (callees first)
  std::set<std::string> moduleFunctions_;                 // every function the module declares
  Type returnType_;                                       // of the function being resolved
  uint32_t nextOverrideId_ = 0;
  int unevaluated_ = 0;                // inside the right operand of a short-circuiting && or ||
  bool overrideArrayAllowed_ = false;  // resolving the store type of a var<workgroup>
  std::vector<const ir::Variable*> computedCountVariables_;  // to declare before the variable
  const Function* entryDecl_ = nullptr;                      // the @compute function translated
  std::vector<ir::Variable*> hiddenCounts_;  // every computed override, in reflection's order
  bool aliasCheck_ = false;                  // resolving an alias's type only to check it
  // Computed array counts by the count's source position: an alias's copies share it (WGSL:
  // one type), two arrays that spell the same expression do not.
  std::map<std::pair<uint32_t, uint32_t>, ir::Variable*> countsByPos_;
  struct BindingClash {  // two resources at one @group/@binding: the first's, the second's name
    std::string first, second;
    SourcePos pos;  // the second's
  };
  std::vector<BindingClash> bindingClashes_;
};

}  // namespace wgsl::detail
