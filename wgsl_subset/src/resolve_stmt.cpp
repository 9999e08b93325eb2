// The resolver's statements: declarations, assignments, conditions and the loops' scopes. Where
// break, continue and return may appear is the validator's concern.
#include <set>

#include "resolver.h"

namespace wgsl::detail {
namespace {
using K = Type::K;
using SK = ir::Stmt::Kind;
}  // namespace

ir::Stmt* Resolver::newStmt(SK kind, SourcePos pos) {
  ir::Stmt& s = out_.stmts.emplace_back();
  s.kind = kind;
  s.pos = pos;
  return &s;
}

std::vector<const ir::Stmt*> Resolver::block(const std::vector<StmtPtr>& body) {
  scopes_.emplace_back();
  std::vector<const ir::Stmt*> out;
  for (const auto& st : body) {
    if (const ir::Stmt* s = stmt(*st)) out.push_back(s);
  }
  scopes_.pop_back();
  return out;
}

const ir::Expr* Resolver::condition(const Expr& e, const char* what) {
  X c = expr(e);
  if (c->type.k != K::Bool) fail(e.pos, std::string(what) + " must be bool, got " + c->type.wgsl());
  return c;
}

const ir::Expr* Resolver::assignTarget(const Expr& e) {
  X v = expr(e);
  if (!v->assignable || !v->writable) {
    const Expr* root = &e;
    while (root->kind == Expr::Kind::Index || root->kind == Expr::Kind::Member)
      root = root->args[0].get();
    const ir::Variable* s = root->kind == Expr::Kind::Ident ? lookup(root->text) : nullptr;
    using VK = ir::Variable::Kind;
    if (s && (s->kind == VK::Const || s->kind == VK::Override))
      fail(e.pos, "cannot assign to constant '" + root->text + "'");
    if (s && s->kind == VK::Let)
      fail(e.pos, "cannot assign to 'let' declaration '" + root->text + "'");
    if (s && s->kind == VK::Param)
      fail(e.pos, "cannot assign to function parameter '" + root->text + "'");
    if (s && s->space == "storage")
      fail(e.pos, "cannot write to '" + root->text +
                      "': it is a read-only storage buffer (var<storage, read>)");
    if (s && s->space == "uniform")
      fail(e.pos, "cannot write to uniform buffer '" + root->text + "'");
    fail(e.pos, "cannot assign to this expression (it is not a variable, array element or member)");
  }
  if (v->type.k == K::Atomic) fail(e.pos, "atomic values are written with atomicStore");
  return v;
}

// Null for a statement that leaves nothing to run (an abstract const: its uses are its value).
const ir::Stmt* Resolver::stmt(const Stmt& s) {
  switch (s.kind) {
    case Stmt::Kind::Let:
    case Stmt::Kind::Const:
    case Stmt::Kind::Var:
      return declaration(s);
    case Stmt::Kind::Assign: {
      ir::Stmt* out = newStmt(SK::Assign, s.pos);
      out->target = assignTarget(*s.lhs);
      if (!runtimeSizedIn(out->target->type).empty())
        fail(s.pos, "cannot assign a value that holds a runtime-sized array");
      if (out->target->type.overrideSized())  // its length is known at pipeline creation only
        fail(s.pos,
             "cannot assign a whole override-sized array (" + out->target->type.wgsl() + ")");
      out->value = convert(expr(*s.expr), out->target->type, s.expr->pos);
      return out;
    }
    case Stmt::Kind::PhonyAssign: {
      X v = expr(*s.expr);
      if (v->type.k == K::Struct && !runtimeSizedIn(v->type).empty())
        fail(s.expr->pos, "cannot load a struct that holds a runtime-sized array");
      if (v->type.overrideSized())
        fail(s.expr->pos, "cannot load a whole override-sized array (" + v->type.wgsl() + ")");
      if (isConstExpr(v)) return nullptr;      // nothing to evaluate (and abstract values stay so)
      checkArrayCounts(v->type, s.expr->pos);  // a value outside the storage address space
      ir::Stmt* out = newStmt(SK::Phony, s.pos);
      out->value = v;
      return out;
    }
    case Stmt::Kind::CompoundAssign: {
      ir::Stmt* out = newStmt(SK::Assign, s.pos);
      out->target = assignTarget(*s.lhs);
      out->rhs = expr(*s.expr);
      out->value = convert(binary(s.name, out->target, out->rhs, s.pos), out->target->type, s.pos);
      return out;
    }
    case Stmt::Kind::Increment:
    case Stmt::Kind::Decrement: {
      ir::Stmt* out =
          newStmt(s.kind == Stmt::Kind::Increment ? SK::Increment : SK::Decrement, s.pos);
      out->target = assignTarget(*s.lhs);
      if (out->target->type.k != K::I32 && out->target->type.k != K::U32)
        fail(s.pos, "'++' and '--' need an i32 or u32 variable, got " + out->target->type.wgsl());
      return out;
    }
    case Stmt::Kind::Call: {
      ir::Stmt* out = newStmt(SK::Evaluate, s.pos);
      out->value = expr(*s.expr);
      return out;
    }
    case Stmt::Kind::Return: {
      ir::Stmt* out = newStmt(SK::Return, s.pos);
      if (!s.expr) {
        if (returnType_.k != K::Void)
          fail(s.pos, "missing return value of type " + returnType_.wgsl());
        return out;
      }
      if (returnType_.k == K::Void) fail(s.pos, "this function returns no value");
      out->value = convert(expr(*s.expr), returnType_, s.expr->pos);
      return out;
    }
    case Stmt::Kind::If: {
      ir::Stmt* out = newStmt(SK::If, s.pos);
      out->value = condition(*s.expr, "if condition");
      out->body = block(s.body);
      out->elseBody = block(s.elseBody);
      return out;
    }
    case Stmt::Kind::Block: {
      ir::Stmt* out = newStmt(SK::Block, s.pos);
      out->body = block(s.body);
      return out;
    }
    case Stmt::Kind::While: {
      ir::Stmt* out = newStmt(SK::While, s.pos);
      out->value = condition(*s.expr, "while condition");
      out->body = block(s.body);
      return out;
    }
    case Stmt::Kind::For: {
      ir::Stmt* out = newStmt(SK::For, s.pos);
      scopes_.emplace_back();
      if (s.init) out->init = stmt(*s.init);
      if (s.expr) out->value = condition(*s.expr, "for-loop condition");
      if (s.update) out->update = stmt(*s.update);
      out->body = block(s.body);
      scopes_.pop_back();
      return out;
    }
    case Stmt::Kind::Loop:
      return loop(s);
    case Stmt::Kind::Break:
      return newStmt(SK::Break, s.pos);
    case Stmt::Kind::Continue:
      return newStmt(SK::Continue, s.pos);
    case Stmt::Kind::BreakIf: {
      ir::Stmt* out = newStmt(SK::BreakIf, s.pos);
      out->value = condition(*s.expr, "'break if' condition");
      return out;
    }
    case Stmt::Kind::Switch:
      return switchStmt(s);
    case Stmt::Kind::Discard:
      unsupported(s.pos, "discard");
    case Stmt::Kind::ConstAssert:
      constAssert(s);
      return nullptr;
  }
  return nullptr;
}

void Resolver::constAssert(const Stmt& s) {
  X c = expr(*s.expr);
  if (c->type.k != K::Bool)
    fail(s.expr->pos, "const assertion condition must be a bool, got '" + c->type.wgsl() + "'");
  if (!c->constant) fail(s.expr->pos, "const assertion requires a const-expression condition");
  if (*c->constant == 0) fail(s.pos, "const assertion failed");
}

const ir::Stmt* Resolver::declaration(const Stmt& s) {
  if (s.expr && s.expr->kind == Expr::Kind::Call && s.expr->text == "atomicCompareExchangeWeak" &&
      !s.type && s.kind != Stmt::Kind::Const)
    return compareExchange(s);
  X init = s.expr ? expr(*s.expr) : nullptr;
  Type t;
  if (s.type)
    t = resolveType(*s.type);
  else if (init)
    t = concrete(init->type);
  if (t.k == K::Void) fail(s.pos, "'" + s.name + "' cannot have type void");
  if (t.k == K::Ptr && s.kind != Stmt::Kind::Let)
    fail(s.pos, "'" + s.name + "': only a 'let' may hold a pointer");
  if (!runtimeSizedIn(t).empty()) fail(s.pos, "a local variable cannot hold a runtime-sized array");
  if (t.overrideSized())
    fail(s.pos, "'" + s.name + "' cannot hold an override-sized array (" + t.wgsl() +
                    "): only a var<workgroup> may");
  if (t.k == K::Atomic)
    fail(s.pos, "atomic types are only allowed in workgroup and storage variables");
  using VK = ir::Variable::Kind;
  if (s.kind == Stmt::Kind::Const && init && !isConstExpr(init))
    fail(s.expr->pos, "const '" + s.name + "' must be initialized with a constant expression");
  if (s.kind != Stmt::Kind::Const) checkArrayCounts(t, s.type ? s.type->pos : s.pos);
  if (s.kind == Stmt::Kind::Const && init && !s.type &&
      (init->type.isAbstract() || (init->type.k == K::Vec && init->type.elem->isAbstract()))) {
    define(s.pos, s.name,
           newVariable({.kind = VK::Const,
                        .name = s.name,
                        .pos = s.pos,
                        .type = init->type,
                        .constant = init->constant,
                        .inlined = init}));
    return nullptr;
  }
  if (init) init = convert(init, t, s.expr->pos);
  const bool isVar = s.kind == Stmt::Kind::Var;
  ir::Variable* v =
      newVariable({.kind = isVar                         ? VK::Var
                           : s.kind == Stmt::Kind::Const ? VK::Const
                                                         : VK::Let,
                   .name = s.name,
                   .pos = s.pos,
                   .type = t,
                   .space = "function",
                   .writable = isVar,
                   // a concrete const keeps its value (array sizes, folding)
                   .constant = s.kind == Stmt::Kind::Const && init ? init->constant : std::nullopt,
                   .init = init});
  define(s.pos, s.name, v);
  ir::Stmt* out = newStmt(SK::Declare, s.pos);
  out->var = v;
  out->value = init;
  return out;
}

// `let r = atomicCompareExchangeWeak(&a, cmp, v);`: its result is WGSL's
// __atomic_compare_exchange_result struct (old_value, exchanged).
const ir::Stmt* Resolver::compareExchange(const Stmt& s) {
  const Expr& call = *s.expr;
  arity(call, 3);
  const Expr& ptr = *call.args[0];
  ir::Stmt* out = newStmt(SK::CompareExchange, s.pos);
  out->target = pointee(ptr, "atomicCompareExchangeWeak");
  if (out->target->type.k != K::Atomic)
    fail(ptr.pos, "atomicCompareExchangeWeak needs an atomic<i32> or atomic<u32>, got " +
                      out->target->type.wgsl());
  if (!out->target->writable)
    fail(ptr.pos, "atomicCompareExchangeWeak writes its operand, which is read-only here");
  const Type& t = *out->target->type.elem;
  const std::string structName = "__atomic_compare_exchange_result_" + t.wgsl();
  if (!out_.structs.contains(structName)) {
    out_.structs[structName] = {{"old_value", t}, {"exchanged", Type::scalar(K::Bool)}};
    out_.layouts[structName] = {{0, 4}, 4, 8};
  }
  out->compare = convert(expr(*call.args[1]), t, call.args[1]->pos);
  out->value = convert(expr(*call.args[2]), t, call.args[2]->pos);
  const bool isVar = s.kind == Stmt::Kind::Var;
  out->var = newVariable({.kind = isVar ? ir::Variable::Kind::Var : ir::Variable::Kind::Let,
                          .name = s.name,
                          .pos = s.pos,
                          .type = Type{K::Struct, 0, nullptr, structName},
                          .space = "function",
                          .writable = isVar});
  define(s.pos, s.name, out->var);
  return out;
}

// loop { body continuing { ... break if c; } }: the continuing block sees the body's names.
const ir::Stmt* Resolver::loop(const Stmt& s) {
  ir::Stmt* out = newStmt(SK::Loop, s.pos);
  if (s.continuing.empty()) {
    out->body = block(s.body);
    return out;
  }
  scopes_.emplace_back();
  for (const auto& st : s.body) {
    if (const ir::Stmt* b = stmt(*st)) out->body.push_back(b);
  }
  scopes_.emplace_back();  // nested in the body's scope: it may redeclare the body's names
  for (const auto& st : s.continuing) {
    if (const ir::Stmt* c = stmt(*st)) out->continuing.push_back(c);
  }
  scopes_.pop_back();
  scopes_.pop_back();
  return out;
}

const ir::Stmt* Resolver::switchStmt(const Stmt& s) {
  ir::Stmt* out = newStmt(SK::Switch, s.pos);
  X sel = expr(*s.expr);
  const Type st = concrete(sel->type);
  if (st.k != K::I32 && st.k != K::U32)
    fail(s.expr->pos, "switch selector must be i32 or u32, got " + sel->type.wgsl());
  out->value = convert(sel, st, s.expr->pos);
  for (const auto& c : s.cases) {
    ir::Stmt::Case& rc = out->cases.emplace_back();
    rc.pos = c.pos;
    rc.isDefault = c.isDefault;
    for (const auto& e : c.selectors) {
      X v = convert(expr(*e), st, e->pos);
      if (!v->constant) fail(e->pos, "case selector must be a constant expression");
      rc.selectors.push_back(v);
    }
    rc.body = block(c.body);
  }
  return out;
}

}  // namespace wgsl::detail
