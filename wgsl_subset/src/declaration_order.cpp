#include "declaration_order.h"

#include <map>
#include <set>
#include <string>
#include <utility>

namespace wgsl::detail {
namespace {

struct Node {
  DeclarationRef ref;
  SourcePos pos;
  std::string name;
  std::vector<std::pair<size_t, SourcePos>> deps;  // other declarations used, where
};

// Names a declaration refers to (types, identifiers, called functions), minus its own locals.
struct RefCollector {
  const std::map<std::string, size_t>& names;
  std::vector<std::pair<size_t, SourcePos>>& out;
  std::vector<std::set<std::string>> locals{1};

  void name(const std::string& n, SourcePos pos) {
    for (const auto& scope : locals) {
      if (scope.contains(n)) return;
    }
    if (auto it = names.find(n); it != names.end()) out.emplace_back(it->second, pos);
  }
  void type(const TypeExpr& t) {
    name(t.name, t.pos);
    for (const auto& a : t.args) type(a);
    if (t.count) expr(*t.count);
  }
  void expr(const Expr& e) {  // bounded: the parser limits expression depth
    if (e.kind == Expr::Kind::Ident || e.kind == Expr::Kind::Call) name(e.text, e.pos);
    if (e.typeArgs) type(*e.typeArgs);
    for (const auto& a : e.args) expr(*a);
  }
  void attrs(const std::vector<Attribute>& as) {
    for (const auto& a : as) {
      if (a.name == "builtin") continue;
      for (const auto& x : a.args) expr(*x);
    }
  }
  void block(const std::vector<StmtPtr>& body) {
    locals.emplace_back();
    for (const auto& st : body) stmt(*st);
    locals.pop_back();
  }
  void stmt(const Stmt& st) {  // bounded: the parser limits statement nesting
    if (st.type) type(*st.type);
    if (st.lhs) expr(*st.lhs);
    if (st.expr) expr(*st.expr);
    if (st.kind == Stmt::Kind::Let || st.kind == Stmt::Kind::Var || st.kind == Stmt::Kind::Const)
      locals.back().insert(st.name);
    if (st.kind == Stmt::Kind::For) {
      locals.emplace_back();
      if (st.init) stmt(*st.init);
      if (st.update) stmt(*st.update);
      block(st.body);
      locals.pop_back();
      return;
    }
    if (st.init) stmt(*st.init);
    if (st.update) stmt(*st.update);
    if (st.kind == Stmt::Kind::Loop) {
      locals.emplace_back();
      for (const auto& b : st.body) stmt(*b);
      block(st.continuing);
      locals.pop_back();
    } else {
      block(st.body);
    }
    block(st.elseBody);
    for (const auto& c : st.cases) {
      for (const auto& sel : c.selectors) expr(*sel);
      block(c.body);
    }
  }
};

}  // namespace

std::vector<DeclarationRef> declarationOrder(const Module& m) {
  using K = DeclarationRef::Kind;
  std::vector<Node> nodes;
  std::map<std::string, size_t> names;
  const auto add = [&](K k, size_t i, SourcePos pos, const std::string& name) {
    if (names.contains(name)) fail(pos, "redeclaration of '" + name + "'");
    names[name] = nodes.size();
    nodes.push_back({{k, i}, pos, name, {}});
  };
  for (size_t i = 0; i < m.structs.size(); ++i)
    add(K::Struct, i, m.structs[i].pos, m.structs[i].name);
  for (size_t i = 0; i < m.globals.size(); ++i)
    add(K::Global, i, m.globals[i].pos, m.globals[i].name);
  for (size_t i = 0; i < m.functions.size(); ++i)
    add(K::Function, i, m.functions[i].pos, m.functions[i].name);
  for (Node& d : nodes) {
    RefCollector c{names, d.deps};
    if (d.ref.kind == K::Struct) {
      for (const auto& mem : m.structs[d.ref.index].members) c.type(mem.type);
    } else if (d.ref.kind == K::Global) {
      const GlobalVar& g = m.globals[d.ref.index];
      c.attrs(g.attributes);
      if (g.type) c.type(*g.type);
      if (g.init) c.expr(*g.init);
    } else {
      const Function& f = m.functions[d.ref.index];
      c.attrs(f.attributes);
      for (const auto& prm : f.params) {
        c.type(prm.type);
        c.locals.back().insert(prm.name);
      }
      if (f.returnType) c.type(*f.returnType);
      c.block(f.body);
    }
  }
  // Iterative depth-first order (a 4,000-deep call chain must not recurse).
  std::vector<int> state(nodes.size(), 0);  // 0 new, 1 on the stack, 2 done
  std::vector<DeclarationRef> order;
  for (size_t root = 0; root < nodes.size(); ++root) {
    if (state[root]) continue;
    std::vector<std::pair<size_t, size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [d, next] = stack.back();
      if (next < nodes[d].deps.size()) {
        const auto [dep, pos] = nodes[d].deps[next++];
        if (state[dep] == 1) {
          if (nodes[dep].ref.kind == K::Function && nodes[d].ref.kind == K::Function)
            fail(pos, dep == d ? "recursion is not permitted: '" + nodes[d].name + "' calls itself"
                               : "recursion is not permitted: '" + nodes[d].name + "' calls '" +
                                     nodes[dep].name + "', which calls back");
          fail(pos, "cyclic dependency: '" + nodes[d].name + "' uses '" + nodes[dep].name +
                        "', which depends on it");
        }
        if (state[dep] == 0) {
          state[dep] = 1;
          stack.emplace_back(dep, 0);
        }
        continue;
      }
      state[d] = 2;
      order.push_back(nodes[d].ref);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace wgsl::detail
