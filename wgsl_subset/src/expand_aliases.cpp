#include "expand_aliases.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "diagnostics.h"

namespace wgsl::detail {
namespace {

class AliasExpander {
 public:
  explicit AliasExpander(Module& m) : m_(m) {  // m outlives the expander
    std::set<std::string> declared;
    for (const auto& s : m.structs) declared.insert(s.name);
    for (const auto& g : m.globals) declared.insert(g.name);
    for (const auto& f : m.functions) declared.insert(f.name);
    for (const AliasDecl& a : m.aliases) {
      if (declared.contains(a.name) || aliases_.contains(a.name))
        fail(a.pos, "redeclaration of '" + a.name + "'");
      aliases_[a.name] = &a;
    }
  }

  void run() {
    if (aliases_.empty()) return;
    for (AliasDecl& a : m_.aliases) a.type = target(a.name);  // cycles even in unused aliases
    for (auto& s : m_.structs)
      for (auto& mem : s.members) type(mem.type);
    for (auto& g : m_.globals) {
      attrs(g.attributes);
      if (g.type) type(*g.type);
      if (g.init) expr(*g.init);
    }
    for (auto& f : m_.functions) {
      attrs(f.attributes);
      for (auto& p : f.params) type(p.type);
      if (f.returnType) type(*f.returnType);
      locals_.emplace_back();
      for (const auto& p : f.params) locals_.back().insert(p.name);
      block(f.body);
      locals_.pop_back();
    }
    for (auto& st : m_.constAsserts) stmt(*st);
  }

 private:
  // The alias's type, itself expanded; `inProgress` finds cycles (alias A = array<B, 2>; alias
  // B = A;). Bounded by the number of aliases.
  const TypeExpr& target(const std::string& name) {
    if (auto it = expanded_.find(name); it != expanded_.end()) return it->second;
    const AliasDecl& a = *aliases_.at(name);
    if (!inProgress_.insert(name).second)
      fail(a.pos, "cyclic dependency: alias '" + name + "' refers to itself");
    TypeExpr t = a.type;
    std::vector<std::set<std::string>> outer(1);  // an alias's type is read at module scope
    std::swap(locals_, outer);
    type(t);
    std::swap(locals_, outer);
    inProgress_.erase(name);
    return expanded_[name] = std::move(t);
  }

  // A local declaration (parameter, let, var, const) shadows an alias of its name; the resolver
  // then says the name is a value, not a type.
  bool shadowed(const std::string& name) const {
    for (const auto& scope : locals_)
      if (scope.contains(name)) return true;
    return false;
  }

  void type(TypeExpr& t) {
    if (aliases_.contains(t.name) && !shadowed(t.name)) {  // the parser gives it no arguments
      t = target(t.name);
      return;
    }
    for (auto& a : t.args) type(a);
    if (t.count) expr(*t.count);
  }

  void expr(Expr& e) {  // bounded: the parser limits expression depth
    if (e.typeArgs) type(*e.typeArgs);
    if (e.kind == Expr::Kind::Call && !e.typeArgs && !shadowed(e.text)) {
      if (auto it = aliases_.find(e.text); it != aliases_.end()) {
        // A constructor through an alias: `A(...)` becomes the named type's own constructor,
        // `f32(...)`, `S(...)`, `vec3<f32>(...)` or `array<f32, 4>(...)`.
        const TypeExpr& t = target(e.text);
        e.text = t.name;
        if (!t.args.empty() || t.count) e.typeArgs = t;
      }
    }
    for (auto& a : e.args) expr(*a);
  }

  void attrs(std::vector<Attribute>& as) {
    for (auto& a : as)
      for (auto& x : a.args) expr(*x);
  }

  void block(std::vector<StmtPtr>& body) {
    locals_.emplace_back();
    for (auto& st : body) stmt(*st);
    locals_.pop_back();
  }

  void stmt(Stmt& st) {  // bounded: the parser limits statement nesting
    if (st.type) type(*st.type);
    if (st.lhs) expr(*st.lhs);
    if (st.expr) expr(*st.expr);
    if (st.kind == Stmt::Kind::Let || st.kind == Stmt::Kind::Var || st.kind == Stmt::Kind::Const)
      locals_.back().insert(st.name);
    if (st.kind == Stmt::Kind::For) {  // the initializer's name is in scope in the whole loop
      locals_.emplace_back();
      if (st.init) stmt(*st.init);
      if (st.update) stmt(*st.update);
      block(st.body);
      locals_.pop_back();
      return;
    }
    if (st.kind == Stmt::Kind::Loop) {  // continuing sees the body's declarations
      locals_.emplace_back();
      for (auto& b : st.body) stmt(*b);
      block(st.continuing);
      locals_.pop_back();
    } else {
      block(st.body);
    }
    block(st.elseBody);
    for (auto& c : st.cases) {
      for (auto& sel : c.selectors) expr(*sel);
      block(c.body);
    }
  }

  Module& m_;
  std::map<std::string, const AliasDecl*> aliases_;
  std::map<std::string, TypeExpr> expanded_;
  std::set<std::string> inProgress_;
  std::vector<std::set<std::string>> locals_{1};
};

}  // namespace

void expandAliases(Module& module) {
  AliasExpander(module).run();
}

}  // namespace wgsl::detail
