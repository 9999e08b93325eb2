#include "emitter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "types.h"

namespace wgsl::detail {
namespace {

using K = Type::K;

// Helpers the lowered code calls for WGSL's defined integer and conversion semantics.
const char* kPrelude =
    R"(int tg_div(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
uint tg_div(uint a, uint b) { return b == 0u ? a : a / b; }
int tg_rem(int a, int b) { int d = (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 1 : b; return a - (a / d) * d; }
uint tg_rem(uint a, uint b) { return b == 0u ? 0u : a % b; }
float tg_rem(float a, float b) { return a - b * trunc(a / b); }
int tg_f2i(float x) { return x != x ? 0 : int(clamp(x, -2147483648.0, 2147483520.0)); }
uint tg_f2u(float x) { return x != x ? 0u : uint(clamp(x, 0.0, 4294967040.0)); }
)";

struct Value {
  std::string code;
  Type type;
  bool assignable = false;         // names a memory location
  bool writable = false;           // ... that may be written
  std::optional<double> constant;  // folded value of an abstract (or const) expression
};

// Uniformity taint: bit 0 says "may differ between invocations"; bit 1 + i says "depends on the
// current function's parameter i" (parameters past 61 share bit 63, erring towards requiring
// uniformity), so a function's summary can be applied to each call's arguments.
using Taint = uint64_t;
constexpr Taint kNonUniform = 1;
Taint paramBit(size_t i) { return Taint{2} << std::min<size_t>(i, 62); }

struct Symbol {
  Type type;
  std::string glsl;
  enum class Kind { Let, Var, Const, Param, Global } kind = Kind::Var;
  bool writable = false;
  std::optional<double> constant;  // abstract module/function const
  std::string space;               // storage/uniform/workgroup/private for globals
  Taint taint = 0;                 // uniformity analysis
  const Stmt* decl = nullptr;      // the declaring statement of a local (loop fixed point)
};

std::string f32Literal(double v, SourcePos pos) {
  const auto f = static_cast<float>(v);
  if (!std::isfinite(f)) fail(pos, "value " + std::to_string(v) + " cannot be represented as f32");
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  std::string s(buf);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return f < 0 ? "(" + s + ")" : s;
}

std::string i32Literal(double v) {
  const auto i = static_cast<int64_t>(v);
  if (i == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
  return i < 0 ? "(" + std::to_string(i) + ")" : std::to_string(i);
}

class Lowerer {
 public:
  Lowerer(const Module& m, std::string entryPoint) : m_(m), entryName_(std::move(entryPoint)) {}

  Lowered run() {
    // Every @compute function is an entry point; the one asked for is lowered as GLSL's main and
    // the others are left out (WGSL never calls an entry point).
    const Function* entry = nullptr;
    for (const auto& f : m_.functions) {
      for (const auto& a : f.attributes) {
        if (a.name == "vertex" || a.name == "fragment")
          unsupported(a.pos, "@" + a.name + " entry point (compute only)");
      }
      if (!hasAttr(f.attributes, "compute")) continue;
      out_.reflection.entryPoints.push_back(f.name);
      if (!entry && (entryName_.empty() || f.name == entryName_)) entry = &f;
    }
    if (!entry && !entryName_.empty()) {
      std::string known;
      for (const auto& n : out_.reflection.entryPoints) known += (known.empty() ? "'" : ", '") + n + "'";
      fail(SourcePos{1, 1}, "no @compute entry point named '" + entryName_ + "'" +
                                (known.empty() ? std::string() : " (the module has " + known + ")"));
    }
    // WGSL module-scope declarations may be used before they are declared: lower them in
    // dependency order (callees before callers), which also finds recursion and cycles.
    for (const Decl& d : declarationOrder()) {
      if (d.kind == Decl::Struct) declareStruct(m_.structs[d.index]);
      if (d.kind == Decl::Global) declareGlobal(m_.globals[d.index]);
      if (d.kind != Decl::Function) continue;
      const Function& f = m_.functions[d.index];
      if (&f == entry || !hasAttr(f.attributes, "compute")) emitFunction(f, &f == entry);
    }
    if (!entry) fail(SourcePos{1, 1}, "no @compute entry point");
    out_.reflection.entryPoint = entry->name;
    std::string glsl = "#version 450\n" + header_ + usedPrelude() + decls_ + body_;
    return {std::move(glsl), std::move(out_.reflection)};
  }

 private:
  // The prelude helpers the code calls (glslang keeps uncalled functions: translate.cpp does
  // not link). Each helper is one line, named `tg_<name>(` after its return type.
  std::string usedPrelude() const {
    std::string out;
    std::istringstream lines(kPrelude);
    for (std::string line; std::getline(lines, line);) {
      const size_t start = line.find("tg_"), end = line.find('(');
      const std::string call = line.substr(start, end - start + 1);
      if (decls_.find(call) != std::string::npos || body_.find(call) != std::string::npos)
        out += line + "\n";
    }
    return out;
  }

  // ---- module-scope dependency order ----
  struct Decl {
    enum Kind { Struct, Global, Function } kind;
    size_t index;
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
      if (st.kind == Stmt::Kind::Let || st.kind == Stmt::Kind::Var ||
          st.kind == Stmt::Kind::Const)
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

  std::vector<Decl> declarationOrder() {
    std::vector<Decl> decls;
    std::map<std::string, size_t> names;
    const auto add = [&](Decl::Kind k, size_t i, SourcePos pos, const std::string& name) {
      if (names.contains(name)) fail(pos, "redeclaration of '" + name + "'");
      names[name] = decls.size();
      decls.push_back({k, i, pos, name, {}});
    };
    for (size_t i = 0; i < m_.structs.size(); ++i)
      add(Decl::Struct, i, m_.structs[i].pos, m_.structs[i].name);
    for (size_t i = 0; i < m_.globals.size(); ++i)
      add(Decl::Global, i, m_.globals[i].pos, m_.globals[i].name);
    for (size_t i = 0; i < m_.functions.size(); ++i) {
      add(Decl::Function, i, m_.functions[i].pos, m_.functions[i].name);
      moduleFunctions_.insert(m_.functions[i].name);
    }
    for (Decl& d : decls) {
      RefCollector c{names, d.deps};
      if (d.kind == Decl::Struct) {
        for (const auto& mem : m_.structs[d.index].members) c.type(mem.type);
      } else if (d.kind == Decl::Global) {
        const GlobalVar& g = m_.globals[d.index];
        c.attrs(g.attributes);
        if (g.type) c.type(*g.type);
        if (g.init) c.expr(*g.init);
      } else {
        const Function& f = m_.functions[d.index];
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
    std::vector<int> state(decls.size(), 0);  // 0 new, 1 on the stack, 2 done
    std::vector<Decl> order;
    for (size_t root = 0; root < decls.size(); ++root) {
      if (state[root]) continue;
      std::vector<std::pair<size_t, size_t>> stack{{root, 0}};
      state[root] = 1;
      while (!stack.empty()) {
        auto& [d, next] = stack.back();
        if (next < decls[d].deps.size()) {
          const auto [dep, pos] = decls[d].deps[next++];
          if (state[dep] == 1) {
            if (decls[dep].kind == Decl::Function && decls[d].kind == Decl::Function)
              fail(pos, dep == d ? "recursion is not permitted: '" + decls[d].name +
                                       "' calls itself"
                                 : "recursion is not permitted: '" + decls[d].name +
                                       "' calls '" + decls[dep].name + "', which calls back");
            fail(pos, "cyclic dependency: '" + decls[d].name + "' uses '" + decls[dep].name +
                          "', which depends on it");
          }
          if (state[dep] == 0) {
            state[dep] = 1;
            stack.emplace_back(dep, 0);
          }
          continue;
        }
        state[d] = 2;
        order.push_back(decls[d]);
        stack.pop_back();
      }
    }
    return order;
  }

  // ---- helpers ----
  static bool hasAttr(const std::vector<Attribute>& attrs, const char* name) {
    for (const auto& a : attrs) {
      if (a.name == name) return true;
    }
    return false;
  }
  static const Attribute* attr(const std::vector<Attribute>& attrs, const char* name) {
    for (const auto& a : attrs) {
      if (a.name == name) return &a;
    }
    return nullptr;
  }
  static std::string mangle(const std::string& name) { return glslName(name); }
  // The single argument of an attribute such as @group(0).
  static const Expr& attrArg(const Attribute& a) {
    if (a.args.size() != 1) fail(a.pos, "@" + a.name + " takes exactly one argument");
    return *a.args[0];
  }

  int64_t constInt(const Expr& e, const char* what) {
    Value v = expr(e);
    if (!v.constant || !v.type.isInteger())
      fail(e.pos, std::string(what) + " must be a constant integer expression");
    return static_cast<int64_t>(*v.constant);
  }

  Type resolveType(const TypeExpr& t) {
    if (lookup(t.name)) fail(t.pos, "'" + t.name + "' is a value, not a type");
    if (moduleFunctions_.contains(t.name))
      fail(t.pos, "cannot use function '" + t.name + "' as type");
    if (t.name == "f32") return Type::scalar(K::F32);
    if (t.name == "i32") return Type::scalar(K::I32);
    if (t.name == "u32") return Type::scalar(K::U32);
    if (t.name == "bool") return Type::scalar(K::Bool);
    if (t.name == "f16") unsupported(t.pos, "f16");
    if (t.name == "vec2" || t.name == "vec3" || t.name == "vec4") {
      if (t.args.size() != 1)
        fail(t.pos, t.name + " needs an element type, e.g. " + t.name + "<f32>");
      const Type e = resolveType(t.args[0]);
      if (!e.isScalar() || e.isAbstract())
        fail(t.args[0].pos, "vector element type must be bool, i32, u32 or f32, got " + e.wgsl());
      return Type::vec(t.name[3] - '0', e);
    }
    if (t.name == "vec2f" || t.name == "vec3f" || t.name == "vec4f")
      return Type::vec(t.name[3] - '0', Type::scalar(K::F32));
    if (t.name == "vec2u" || t.name == "vec3u" || t.name == "vec4u")
      return Type::vec(t.name[3] - '0', Type::scalar(K::U32));
    if (t.name == "vec2i" || t.name == "vec3i" || t.name == "vec4i")
      return Type::vec(t.name[3] - '0', Type::scalar(K::I32));
    if (t.name == "array") {
      if (t.args.size() != 1) fail(t.pos, "array needs an element type");
      const Type e = resolveType(t.args[0]);
      if (e.k == K::Array && e.n == 0)
        fail(t.pos, "an array element cannot be a runtime-sized array");
      int n = 0;
      if (t.count) {
        const int64_t c = constInt(*t.count, "array element count");
        if (c <= 0 || c > (1 << 24))
          fail(t.count->pos,
               "array element count must be between 1 and 16777216, got " + std::to_string(c));
        n = static_cast<int>(c);
      }
      return Type::array(e, n);
    }
    if (t.name == "atomic") {
      if (t.args.size() != 1) fail(t.pos, "atomic needs an element type");
      const Type e = resolveType(t.args[0]);
      if (e.k != K::U32 && e.k != K::I32)
        fail(t.pos, "atomic element type must be i32 or u32, got " + e.wgsl());
      return Type{K::Atomic, 0, std::make_shared<Type>(e), {}};
    }
    if (t.name.starts_with("mat")) unsupported(t.pos, "matrix type '" + t.name + "'");
    if (t.name == "ptr") unsupported(t.pos, "pointer type");
    if (t.name.starts_with("texture") || t.name.starts_with("sampler"))
      unsupported(t.pos, "texture and sampler types");
    if (structs_.contains(t.name)) return Type{K::Struct, 0, nullptr, t.name};
    fail(t.pos, "unknown type '" + t.name + "'");
  }

  // ---- declarations ----
  void declareStruct(const StructDecl& s) {
    if (structs_.contains(s.name)) fail(s.pos, "redeclaration of struct '" + s.name + "'");
    std::string d = "struct " + mangle(s.name) + " {\n";
    std::vector<std::pair<std::string, Type>> members;
    for (const auto& m : s.members) {
      const Type t = resolveType(m.type);
      if (t.k == K::Array && t.n == 0) unsupported(m.pos, "runtime-sized array member");
      d += "  " + t.glsl() + " " + mangle(m.name) +
           dims(t) + ";\n";
      members.emplace_back(m.name, t);
    }
    structs_[s.name] = members;
    decls_ += d + "};\n";
  }

  std::map<std::string, Symbol>& scope() { return scopes_.back(); }
  const Symbol* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (auto f = it->find(name); f != it->end()) return &f->second;
    }
    return nullptr;
  }
  void define(SourcePos pos, const std::string& name, Symbol s) {
    if (scope().contains(name)) fail(pos, "redeclaration of '" + name + "' in the same scope");
    scope()[name] = std::move(s);
  }

  void declareGlobal(const GlobalVar& g) {
    if (g.kind == GlobalVar::Kind::Const) {
      if (!g.init) fail(g.pos, "const '" + g.name + "' needs an initializer");
      Value v = expr(*g.init);
      if (!v.constant)
        fail(g.init->pos, "const '" + g.name + "' must be initialized with a constant expression");
      Type t = g.type ? resolveType(*g.type) : v.type;
      v = convert(v, t, g.init->pos);
      define(g.pos, g.name, Symbol{t, v.code, Symbol::Kind::Const, false, v.constant, ""});
      return;
    }
    if (g.kind == GlobalVar::Kind::Override) {
      if (!g.type && !g.init)
        fail(g.pos, "override '" + g.name + "' needs a type or an initializer");
      std::optional<Value> init;
      if (g.init) init = expr(*g.init);
      Type t = g.type ? resolveType(*g.type) : concrete(init->type);
      if (!t.isScalar()) fail(g.pos, "override '" + g.name + "' must have a scalar type");
      uint32_t id = nextOverrideId_;
      if (const Attribute* a = attr(g.attributes, "id")) {
        const int64_t v = constInt(attrArg(*a), "@id");
        if (v < 0 || v > 65535)
          fail(attrArg(*a).pos, "@id value must be between 0 and 65535, got " + std::to_string(v));
        id = static_cast<uint32_t>(v);
        for (const auto& o : out_.reflection.overrides) {
          if (o.id == id)
            fail(attrArg(*a).pos,
                 "@id(" + std::to_string(id) + ") is already used by override '" + o.name + "'");
        }
      } else {
        for (const auto& o : out_.reflection.overrides) {
          if (o.id == id) id = std::max(id, o.id + 1);
        }
      }
      nextOverrideId_ = std::max(nextOverrideId_, id + 1);
      std::string def = t.k == K::Bool  ? "false"
                        : t.k == K::F32 ? "0.0"
                        : t.k == K::U32 ? "0u"
                                        : "0";
      std::optional<double> dv;
      if (init) {
        if (!init->constant)
          fail(g.init->pos, "override '" + g.name + "' default must be a constant expression");
        const Value c = convert(*init, t, g.init->pos);
        def = c.code;
        dv = c.constant;
      }
      decls_ += "layout(constant_id = " + std::to_string(id) + ") const " + t.glsl() + " " +
                mangle(g.name) + " = " + def + ";\n";
      out_.reflection.overrides.push_back({g.name, id, t.wgsl(), dv});
      define(g.pos, g.name,
             Symbol{t, mangle(g.name), Symbol::Kind::Const, false, std::nullopt, ""});
      return;
    }
    if (g.addressSpace.empty())
      fail(g.pos, "module-scope 'var' '" + g.name + "' needs an address space, e.g. var<private>");
    if (!g.type) fail(g.pos, "module-scope 'var' '" + g.name + "' needs a type");
    const Type t = resolveType(*g.type);
    const std::string name = mangle(g.name);
    const std::string& space = g.addressSpace;
    if (space == "storage" || space == "uniform") {
      const Attribute* group = attr(g.attributes, "group");
      const Attribute* binding = attr(g.attributes, "binding");
      if (!group || !binding)
        fail(g.pos, "resource variable '" + g.name + "' needs @group and @binding attributes");
      const int64_t gv = constInt(attrArg(*group), "@group");
      const int64_t bv = constInt(attrArg(*binding), "@binding");
      if (gv < 0) fail(attrArg(*group).pos, "@group value must be non-negative");
      if (bv < 0) fail(attrArg(*binding).pos, "@binding value must be non-negative");
      // WebGPU's limits (maxBindGroups 4, maxBindingsPerBindGroup 1000), as the shim reports.
      if (gv >= 4)
        fail(attrArg(*group).pos,
             "@group(" + std::to_string(gv) + ") exceeds the maximum bind group index 3");
      if (bv >= 1000)
        fail(attrArg(*binding).pos,
             "@binding(" + std::to_string(bv) + ") exceeds the maximum binding number 999");
      const auto gi = static_cast<uint32_t>(gv);
      const auto bi = static_cast<uint32_t>(bv);
      if (const std::string bad = nonHostShareable(t); !bad.empty())
        fail(g.type->pos, "type '" + bad + "' cannot be used in address space '" + space +
                              "' as it is non-host-shareable");
      for (const auto& b : out_.reflection.bindings) {
        if (b.group == gi && b.binding == bi)
          fail(g.pos, "@group(" + std::to_string(gi) + ") @binding(" + std::to_string(bi) +
                          ") is already used by '" + b.name + "'");
      }
      bool readOnly = true;
      if (space == "storage") {
        if (g.access.empty() || g.access == "read")
          readOnly = true;
        else if (g.access == "read_write")
          readOnly = false;
        else if (g.access == "write")
          unsupported(g.pos, "access mode 'write' (storage buffers are 'read' or 'read_write')");
        else
          fail(g.pos, "unknown access mode '" + g.access + "'");
      } else if (!g.access.empty()) {
        fail(g.pos, "uniform variables take no access mode");
      }
      const std::string block = "tg_block_" + std::to_string(gi) + "_" + std::to_string(bi);
      const std::string layout = "layout(" + std::string(space == "storage" ? "std430" : "std140") +
                                 ", set = " + std::to_string(gi) +
                                 ", binding = " + std::to_string(bi) + ") ";
      const std::string qual =
          space == "storage" ? std::string(readOnly ? "readonly buffer " : "buffer ") : "uniform ";
      std::string element;
      if (t.k == K::Array) {
        if (space == "uniform")
          unsupported(g.pos, "array in the uniform address space (wrap it in a struct)");
        decls_ += layout + qual + block + " { " + t.glsl() + " " + name + dims(t) + "; };\n";
        element = t.elem->wgsl();
      } else if (t.k == K::Struct) {
        std::string members;
        for (const auto& [mn, mt] : structs_[t.name])
          members += mt.glsl() + " " + mangle(mn) +
                     dims(mt) + "; ";
        decls_ += layout + qual + block + " { " + members + "} " + name + ";\n";
        element = t.name;
      } else {
        if (space == "storage")
          unsupported(g.pos,
                      "storage variable of type " + t.wgsl() + " (use an array or a struct)");
        decls_ += layout + qual + block + " { " + t.glsl() + " " + name + "; };\n";
        element = t.wgsl();
      }
      out_.reflection.bindings.push_back(
          {gi, bi, space == "storage" ? BindingInfo::Kind::Storage : BindingInfo::Kind::Uniform,
           readOnly, element, g.name});
      define(g.pos, g.name,
             Symbol{t, name, Symbol::Kind::Global, space == "storage" && !readOnly, std::nullopt,
                    space, space == "storage" && !readOnly});
      return;
    }
    if (space == "workgroup") {
      if (g.init) fail(g.init->pos, "workgroup variables cannot have an initializer");
      if (t.k == K::Array && t.n == 0)
        fail(g.pos, "workgroup array '" + g.name + "' needs a fixed size");
      decls_ += "shared " + t.glsl() + " " + name +
                dims(t) + ";\n";
      zeroAtEntry_.push_back({name, t, true});
      out_.reflection.workgroupStorageBytes += static_cast<uint32_t>(t.byteSize());
      define(g.pos, g.name, Symbol{t, name, Symbol::Kind::Global, true, std::nullopt, space, true});
      return;
    }
    if (space == "private") {
      std::string init;
      if (g.init)
        init = " = " + convert(expr(*g.init), t, g.init->pos).code;
      else if (t.k != K::Array && t.k != K::Struct)
        init = " = " + zeroOf(t);
      decls_ += t.glsl() + " " + name + dims(t) +
                init + ";\n";
      if (!g.init && (t.k == K::Array || t.k == K::Struct)) zeroAtEntry_.push_back({name, t, false});
      define(g.pos, g.name, Symbol{t, name, Symbol::Kind::Global, true, std::nullopt, space, true});
      return;
    }
    if (space == "function")
      fail(g.pos, "'function' address space is only for variables inside functions");
    if (space == "handle" || space == "push_constant")
      unsupported(g.pos, "address space '" + space + "'");
    fail(g.pos, "unknown address space '" + space + "'");
  }

  // The first type inside `t` that cannot live in a buffer ("" when none).
  std::string nonHostShareable(const Type& t) {
    if (t.k == K::Bool) return "bool";
    if (t.elem) {
      if (std::string b = nonHostShareable(*t.elem); !b.empty()) return b;
    }
    if (t.k == K::Struct) {
      for (const auto& [mn, mt] : structs_[t.name]) {
        if (std::string b = nonHostShareable(mt); !b.empty()) return b;
      }
    }
    return "";
  }

  // GLSL's array dimensions of `t`, outermost first ("" for a non-array; "[]" runtime-sized):
  // array<array<u32, 5>, 7> is `uint x[7][5]`, as Type::glsl() spells only the innermost element.
  static std::string dims(const Type& t) {
    if (t.k != K::Array) return "";
    return "[" + (t.n ? std::to_string(t.n) : std::string()) + "]" + dims(*t.elem);
  }

  static std::string zeroOf(const Type& t) {
    switch (t.k) {
      case K::Bool:
        return "false";
      case K::I32:
        return "0";
      case K::U32:
        return "0u";
      case K::F32:
        return "0.0";
      case K::Vec:
        return t.glsl() + "(" + zeroOf(*t.elem) + ")";
      default:
        return "";
    }
  }

  // Statements that give `target` (of type `t`) WGSL's zero value, which WGSL promises for every
  // variable without an initializer; GLSL leaves arrays, structs and `shared` memory undefined.
  std::string zeroFill(const std::string& target, const Type& t, const std::string& indent) {
    if (t.k == K::Array) {
      const std::string i = "tg_z" + std::to_string(indent.size());  // unique per nesting level
      return indent + "for (int " + i + " = 0; " + i + " < " + std::to_string(t.n) + "; ++" + i +
             ") {\n" + zeroFill(target + "[" + i + "]", *t.elem, indent + "  ") + indent + "}\n";
    }
    if (t.k == K::Struct) {
      std::string out;
      for (const auto& [mn, mt] : structs_[t.name]) out += zeroFill(target + "." + mangle(mn), mt, indent);
      return out;
    }
    return indent + target + " = " + zeroOf(t.k == K::Atomic ? *t.elem : t) + ";\n";
  }

  // The entry point's first statements: private arrays and structs zeroed per invocation, then
  // workgroup memory zeroed by the workgroup's invocations together (an array's elements are
  // shared out by local index, anything else is written by invocation 0) and a barrier, as Tint
  // and Dawn do when the driver does not zero it.
  std::string zeroInitPrologue() {
    std::string out, shared;
    for (const auto& z : zeroAtEntry_) {
      if (!z.workgroup) {
        out += zeroFill(z.name, z.type, "  ");
      } else if (z.type.k == K::Array) {
        shared += "  for (uint tg_w = gl_LocalInvocationIndex; tg_w < " + std::to_string(z.type.n) +
                  "u; tg_w += gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z) {\n" +
                  zeroFill(z.name + "[tg_w]", *z.type.elem, "    ") + "  }\n";
      } else {
        shared += "  if (gl_LocalInvocationIndex == 0u) {\n" + zeroFill(z.name, z.type, "    ") +
                  "  }\n";
      }
    }
    if (!shared.empty()) out += shared + "  barrier();\n";
    return out;
  }

  // ---- functions ----
  void emitFunction(const Function& f, bool entry) {
    scopes_.emplace_back();
    functionUsesBarrier_ = false;
    returnedTaint_ = returnTaint_ = requiredTaint_ = 0;
    std::string sig;
    std::string prologue;
    if (entry) {
      if (f.returnType) fail(f.returnType->pos, "a compute entry point cannot return a value");
      const Attribute* ws = attr(f.attributes, "workgroup_size");
      if (!ws) fail(f.pos, "@compute entry point '" + f.name + "' needs @workgroup_size");
      std::array<uint32_t, 3> size{1, 1, 1};
      if (ws->args.empty() || ws->args.size() > 3)
        fail(ws->pos, "@workgroup_size takes 1 to 3 arguments");
      std::optional<Type> argType;
      static const int64_t kMax[3] = {1024, 1024, 64};  // glslang's (and Vulkan's) minimum maxima
      std::string overrideIds;  // local_size_{x,y,z}_id for dimensions an override sets
      for (size_t i = 0; i < ws->args.size(); ++i) {
        const Value arg = expr(*ws->args[i]);
        const Type at = arg.type;
        if (!at.isAbstract()) {
          if (argType && !(*argType == at))
            fail(ws->args[i]->pos,
                 "@workgroup_size arguments must be of the same type, either i32 or u32");
          argType = at;
        }
        // An override names a specialization constant: the size is its default here and the
        // pipeline's constant at pipeline creation (the shim reads local_size_*_id back).
        const OverrideInfo* o = nullptr;
        if (!arg.constant) o = workgroupSizeOverride(*ws->args[i]);
        if (o) {
          if (!at.isInteger())
            fail(ws->args[i]->pos,
                 "'@workgroup_size' argument must be a constant or override-expression of type "
                 "'abstract-integer', 'i32' or 'u32'");
          if (!o->defaultValue)
            unsupported(ws->args[i]->pos, "override '" + o->name +
                                              "' without a default value in @workgroup_size");
          overrideIds += std::string(", local_size_") + "xyz"[i] + "_id = " + std::to_string(o->id);
          out_.reflection.workgroupSizeOverrides[i] = o->name;
        }
        const int64_t v = o ? static_cast<int64_t>(*o->defaultValue)
                            : constInt(*ws->args[i], "@workgroup_size argument");
        if (v < 1)
          fail(ws->args[i]->pos,
               "@workgroup_size arguments must be at least 1, got " + std::to_string(v));
        if (v > kMax[i])
          fail(ws->args[i]->pos, "@workgroup_size argument " + std::to_string(v) +
                                     " exceeds the maximum (" + std::to_string(kMax[i]) + ")");
        size[i] = static_cast<uint32_t>(v);
      }
      out_.reflection.workgroupSize = size;
      header_ += "layout(local_size_x = " + std::to_string(size[0]) +
                 ", local_size_y = " + std::to_string(size[1]) +
                 ", local_size_z = " + std::to_string(size[2]) + overrideIds + ") in;\n";
      static const std::map<std::string, std::pair<std::string, Type>> builtins = {
          {"global_invocation_id", {"gl_GlobalInvocationID", Type::vec(3, Type::scalar(K::U32))}},
          {"local_invocation_id", {"gl_LocalInvocationID", Type::vec(3, Type::scalar(K::U32))}},
          {"local_invocation_index", {"gl_LocalInvocationIndex", Type::scalar(K::U32)}},
          {"workgroup_id", {"gl_WorkGroupID", Type::vec(3, Type::scalar(K::U32))}},
          {"num_workgroups", {"gl_NumWorkGroups", Type::vec(3, Type::scalar(K::U32))}},
      };
      for (const auto& p : f.params) {
        const Attribute* b = attr(p.attributes, "builtin");
        if (!b || b->args.size() != 1 || b->args[0]->kind != Expr::Kind::Ident)
          fail(p.pos, "entry point parameter '" + p.name + "' needs a @builtin(...) attribute");
        auto it = builtins.find(b->args[0]->text);
        if (it == builtins.end())
          unsupported(b->pos, "builtin '" + b->args[0]->text + "' in a compute shader");
        const Type t = resolveType(p.type);
        if (!(t == it->second.second))
          fail(p.type.pos, "@builtin(" + it->first + ") must have type " +
                               it->second.second.wgsl() + ", got " + t.wgsl());
        define(p.pos, p.name,
               Symbol{t, mangle(p.name), Symbol::Kind::Param, false, std::nullopt, "",
                      it->first != "workgroup_id" && it->first != "num_workgroups"});
        prologue += "  " + t.glsl() + " " + mangle(p.name) + " = " + it->second.first + ";\n";
      }
      prologue += zeroInitPrologue();
      sig = "void main()";
    } else {
      returnType_ = f.returnType ? resolveType(*f.returnType) : Type::scalar(K::Void);
      std::string params;
      std::vector<Type> ptypes;
      for (const auto& p : f.params) {
        if (!p.attributes.empty())
          fail(p.attributes[0].pos, "parameter attributes are only allowed on entry points");
        const Type t = resolveType(p.type);
        if (t.k == K::Array && t.n == 0)
          fail(p.type.pos, "a parameter cannot be a runtime-sized array");
        params += (params.empty() ? "" : ", ") + t.glsl() + " " + mangle(p.name) +
                  dims(t);
        define(p.pos, p.name,
               Symbol{t, mangle(p.name), Symbol::Kind::Param, false, std::nullopt, "",
                      paramBit(ptypes.size())});
        ptypes.push_back(t);
      }
      functions_[f.name] = {ptypes, returnType_};
      sig = returnType_.glsl() + " " + mangle(f.name) + "(" + params + ")";
    }
    if (entry) returnType_ = Type::scalar(K::Void);
    std::string body = prologue;
    for (const auto& s : f.body) body += stmt(*s, 1);
    if (!entry && returnType_.k != K::Void && !endsWithReturn(f.body)) {
      fail(f.pos, "function '" + f.name + "' must end with a return statement");
    }
    body_ += sig + " {\n" + body + "}\n";
    scopes_.pop_back();
    if (functionUsesBarrier_) barrierFunctions_.insert(f.name);
    returnTaints_[f.name] = returnTaint_;
    requiredParams_[f.name] = requiredTaint_;
  }

  // The override a @workgroup_size argument names (null when it names none). Other
  // override-expressions (`wg * 2u`) would need a computed specialization constant, which GLSL's
  // local_size_*_id cannot express: outside the subset.
  const OverrideInfo* workgroupSizeOverride(const Expr& e) {
    const Expr* x = &e;
    while (x->kind == Expr::Kind::Paren) x = x->args[0].get();
    if (x->kind == Expr::Kind::Ident) {
      const Symbol* s = lookup(x->text);
      for (const auto& o : out_.reflection.overrides) {
        if (s && s->kind == Symbol::Kind::Const && o.name == x->text) return &o;
      }
    }
    if (usesOverride(e))
      unsupported(e.pos, "override-expression in @workgroup_size other than a single override");
    return nullptr;
  }
  bool usesOverride(const Expr& e) {  // bounded: the parser limits expression depth
    if (e.kind == Expr::Kind::Ident) {
      for (const auto& o : out_.reflection.overrides) {
        if (o.name == e.text) return true;
      }
    }
    for (const auto& a : e.args) {
      if (usesOverride(*a)) return true;
    }
    return false;
  }

  static bool endsWithReturn(const std::vector<StmtPtr>& body) {
    if (body.empty()) return false;
    const Stmt& last = *body.back();
    if (last.kind == Stmt::Kind::Return) return true;
    if (last.kind == Stmt::Kind::If)
      return endsWithReturn(last.body) && !last.elseBody.empty() && endsWithReturn(last.elseBody);
    if (last.kind == Stmt::Kind::Block) return endsWithReturn(last.body);
    return last.kind == Stmt::Kind::Loop;  // a loop without break runs forever or returns
  }

  // Whether a `loop` body can leave the loop: a `return` anywhere, or a `break` / `break if`
  // that belongs to this loop (not to a nested loop or switch).
  static bool loopExits(const std::vector<StmtPtr>& body, bool nested = false) {
    for (const auto& st : body) {
      switch (st->kind) {
        case Stmt::Kind::Return:
          return true;
        case Stmt::Kind::Break:
        case Stmt::Kind::BreakIf:
          if (!nested) return true;
          break;
        case Stmt::Kind::If:
        case Stmt::Kind::Block:
          if (loopExits(st->body, nested) || loopExits(st->elseBody, nested)) return true;
          break;
        case Stmt::Kind::For:
        case Stmt::Kind::While:
        case Stmt::Kind::Loop:
          if (loopExits(st->body, true) || loopExits(st->continuing, true)) return true;
          break;
        case Stmt::Kind::Switch:
          for (const auto& c : st->cases) {
            if (loopExits(c.body, true)) return true;
          }
          break;
        default:
          break;
      }
    }
    return false;
  }

  // ---- uniformity (a simplified form of WGSL's analysis) ----
  // Values that may differ between invocations: the invocation-id builtins, read_write module
  // variables (storage, workgroup, private), atomics, and what is computed or assigned from them
  // or under control flow that depends on them. Barriers need uniform control flow. A function
  // is summarised for its callers: whether it calls a barrier, which parameters must be uniform
  // (a barrier depends on them), and which its result depends on.
  Taint flowTaint() const {
    Taint t = returnedTaint_;
    for (const Taint f : flowStack_) t |= f;
    return t;
  }
  Taint taint(const Expr& e) {  // bounded: the parser limits expression depth
    if (e.kind == Expr::Kind::Ident) {
      const Symbol* s = lookup(e.text);
      return s ? s->taint : 0;
    }
    if (e.kind == Expr::Kind::Call && !lookup(e.text)) {
      if (e.text == "arrayLength") return 0;
      if (e.text.starts_with("atomic")) return kNonUniform;
      if (auto it = returnTaints_.find(e.text); it != returnTaints_.end()) {
        Taint t = it->second & kNonUniform;
        for (size_t i = 0; i < e.args.size(); ++i) {
          if (it->second & paramBit(i)) t |= taint(*e.args[i]);
        }
        return t;
      }
    }
    Taint t = 0;
    for (const auto& a : e.args) t |= taint(*a);
    return t;
  }
  void markAssigned(const Expr& target, Taint value) {
    const Expr* root = &target;
    while (root->kind == Expr::Kind::Index || root->kind == Expr::Kind::Member)
      root = root->args[0].get();
    if (root->kind != Expr::Kind::Ident) return;
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (auto f = it->find(root->text); f != it->end()) {
        if (f->second.kind == Symbol::Kind::Var) grow(f->second, value | flowTaint());
        return;
      }
    }
  }
  void grow(Symbol& s, Taint t) {
    if ((s.taint | t) == s.taint) return;
    s.taint |= t;
    changed_ = true;
    if (s.decl) declTaint_[s.decl] |= s.taint;
  }
  void grow(Taint& x, Taint t) {
    if ((x | t) != x) x |= t, changed_ = true;
  }
  // A barrier, or a call to a function that reaches one, needs uniform control flow here;
  // flow that depends on this function's parameters makes them required-uniform.
  void requireUniformFlow(const Expr& e) {
    const Taint t = flowTaint();
    if (t & kNonUniform)
      fail(e.pos, "'" + e.text + "' must only be called from uniform control flow");
    requiredTaint_ |= t;
    functionUsesBarrier_ = true;
  }
  struct Flow {  // control flow that depends on `t` for the statement's extent
    Flow(Lowerer& l, Taint t) : lowerer(l), at(l.flowStack_.size()) { l.flowStack_.push_back(t); }
    ~Flow() { lowerer.flowStack_.pop_back(); }
    Flow(const Flow&) = delete;
    Flow& operator=(const Flow&) = delete;
    size_t index() const { return at; }
    Lowerer& lowerer;
    size_t at;  // this entry in flowStack_
  };
  // A break or continue under non-uniform flow leaves fewer invocations in the rest of the
  // construct it continues or leaves (after a loop or switch, invocations reconverge).
  void exitConstruct(size_t flowIndex) { flowStack_[flowIndex] |= flowTaint(); }

  // Loop-carried non-uniformity: before the outermost loop is lowered, a fixed point over it
  // joins what every variable may be assigned anywhere in the loop (declTaint_, outer symbols)
  // and the flow at every exit of each loop (loopTaint_: break, continue, return, break if, the
  // condition), which then covers the whole body, as the next iteration runs it. Lowering
  // starts from that state. Not flow-sensitive inside the loop: it may reject what Tint accepts
  // (a variable reset to a uniform value before its use), never the reverse.
  void fixLoopTaint(const Stmt& loop) {
    if (inLoopFixedPoint_) return;
    inLoopFixedPoint_ = true;
    do {
      changed_ = false;
      taintStmt(loop, Exits{});
    } while (changed_);
    inLoopFixedPoint_ = false;
  }
  struct Exits {  // the innermost loop, and where a break goes (loop or switch flow entry)
    const Stmt* loop = nullptr;
    std::optional<size_t> switchFlow;
  };
  void taintBlock(const std::vector<StmtPtr>& body, const Exits& x) {
    scopes_.emplace_back();
    for (const auto& st : body) taintStmt(*st, x);
    scopes_.pop_back();
  }
  void taintStmt(const Stmt& s, const Exits& x) {  // bounded: the parser limits statement nesting
    switch (s.kind) {
      case Stmt::Kind::Let:
      case Stmt::Kind::Var:
      case Stmt::Kind::Const: {
        const bool isVar = s.kind == Stmt::Kind::Var;
        Taint& t = declTaint_[&s];
        grow(t, (s.expr ? taint(*s.expr) : 0) | (isVar ? flowTaint() : 0));
        Symbol sym;
        sym.kind = isVar ? Symbol::Kind::Var : Symbol::Kind::Let;
        sym.taint = t;
        sym.decl = &s;
        scope()[s.name] = sym;
        return;
      }
      case Stmt::Kind::Assign:
      case Stmt::Kind::CompoundAssign:
        markAssigned(*s.lhs, taint(*s.expr));
        return;
      case Stmt::Kind::Increment:
      case Stmt::Kind::Decrement:
        markAssigned(*s.lhs, 0);
        return;
      case Stmt::Kind::Return:
        for (const Stmt* loop : activeLoops_) grow(loopTaint_[loop], flowTaint());
        return;
      case Stmt::Kind::Break:
        if (x.switchFlow) exitConstruct(*x.switchFlow);
        else if (x.loop) grow(loopTaint_[x.loop], flowTaint());
        return;
      case Stmt::Kind::Continue:
        if (x.loop) grow(loopTaint_[x.loop], flowTaint());
        return;
      case Stmt::Kind::BreakIf:
        if (x.loop) grow(loopTaint_[x.loop], taint(*s.expr) | flowTaint());
        return;
      case Stmt::Kind::If: {
        const Flow flow(*this, taint(*s.expr));
        taintBlock(s.body, x);
        taintBlock(s.elseBody, x);
        return;
      }
      case Stmt::Kind::Block:
        taintBlock(s.body, x);
        return;
      case Stmt::Kind::Switch: {
        const Flow flow(*this, taint(*s.expr));
        const Exits inner{x.loop, flow.index()};
        for (const auto& c : s.cases) taintBlock(c.body, inner);
        return;
      }
      case Stmt::Kind::For:
      case Stmt::Kind::While:
      case Stmt::Kind::Loop: {
        scopes_.emplace_back();
        if (s.init) taintStmt(*s.init, x);
        activeLoops_.insert(&s);
        Taint& lt = loopTaint_[&s];
        const Flow flow(*this, lt);
        if (s.expr) grow(lt, taint(*s.expr));
        const Exits inner{&s, std::nullopt};
        for (const auto& st : s.body) taintStmt(*st, inner);  // continuing sees the body's names
        for (const auto& st : s.continuing) taintStmt(*st, inner);
        if (s.update) taintStmt(*s.update, inner);
        activeLoops_.erase(&s);
        scopes_.pop_back();
        return;
      }
      default:
        return;
    }
  }

  // ---- statements ----
  std::string pad(int d) const { return std::string(static_cast<size_t>(d) * 2, ' '); }

  std::string blockOf(const std::vector<StmtPtr>& body, int d) {
    scopes_.emplace_back();
    std::string s;
    for (const auto& st : body) s += stmt(*st, d + 1);
    scopes_.pop_back();
    return "{\n" + s + pad(d) + "}";
  }

  Value assignTarget(const Expr& e) {
    Value v = expr(e);
    if (!v.assignable || !v.writable) {
      const Expr* root = &e;
      while (root->kind == Expr::Kind::Index || root->kind == Expr::Kind::Member)
        root = root->args[0].get();
      const Symbol* s = root->kind == Expr::Kind::Ident ? lookup(root->text) : nullptr;
      if (s && s->kind == Symbol::Kind::Const)
        fail(e.pos, "cannot assign to constant '" + root->text + "'");
      if (s && s->kind == Symbol::Kind::Let)
        fail(e.pos, "cannot assign to 'let' declaration '" + root->text + "'");
      if (s && s->kind == Symbol::Kind::Param)
        fail(e.pos, "cannot assign to function parameter '" + root->text + "'");
      if (s && s->space == "storage")
        fail(e.pos, "cannot write to '" + root->text +
                        "': it is a read-only storage buffer (var<storage, read>)");
      if (s && s->space == "uniform")
        fail(e.pos, "cannot write to uniform buffer '" + root->text + "'");
      fail(e.pos,
           "cannot assign to this expression (it is not a variable, array element or member)");
    }
    if (v.type.k == K::Atomic) fail(e.pos, "atomic values are written with atomicStore");
    return v;
  }

  std::string stmt(const Stmt& s, int d) {
    const std::string p = pad(d);
    switch (s.kind) {
      case Stmt::Kind::Let:
      case Stmt::Kind::Const:
      case Stmt::Kind::Var: {
        if (s.expr && s.expr->kind == Expr::Kind::Call &&
            s.expr->text == "atomicCompareExchangeWeak" && !s.type && s.kind != Stmt::Kind::Const) {
          return compareExchange(s, p);
        }
        std::optional<Value> init;
        if (s.expr) init = expr(*s.expr);
        Type t;
        if (s.type)
          t = resolveType(*s.type);
        else if (init)
          t = concrete(init->type);
        if (t.k == K::Void) fail(s.pos, "'" + s.name + "' cannot have type void");
        if (t.k == K::Array && t.n == 0)
          fail(s.pos, "a local variable cannot be a runtime-sized array");
        if (t.k == K::Atomic)
          fail(s.pos, "atomic types are only allowed in workgroup and storage variables");
        if (s.kind == Stmt::Kind::Const && init && !init->constant)
          fail(s.expr->pos,
               "const '" + s.name + "' must be initialized with a constant expression");
        if (s.kind == Stmt::Kind::Const && init && init->type.isAbstract() && !s.type) {
          define(s.pos, s.name,
                 Symbol{init->type, init->code, Symbol::Kind::Const, false, init->constant, ""});
          return "";
        }
        std::string code;
        std::optional<double> constant;  // a concrete const keeps its value (array sizes, folding)
        if (init) {
          const Value v = convert(*init, t, s.expr->pos);
          code = v.code;
          if (s.kind == Stmt::Kind::Const) constant = v.constant;
        } else if (t.k != K::Array && t.k != K::Struct) {
          code = zeroOf(t);
        }
        const std::string name = mangle(s.name) + "_" + std::to_string(++locals_);
        const bool isVar = s.kind == Stmt::Kind::Var;
        const Symbol::Kind kind = isVar ? Symbol::Kind::Var
                                  : s.kind == Stmt::Kind::Const ? Symbol::Kind::Const
                                                                : Symbol::Kind::Let;
        Symbol sym{t, name, kind, isVar, constant, "function"};
        sym.taint = (s.expr ? taint(*s.expr) : 0) | (isVar ? flowTaint() : 0);
        if (auto it = declTaint_.find(&s); it != declTaint_.end()) sym.taint |= it->second;
        sym.decl = &s;
        define(s.pos, s.name, sym);
        const std::string arr = dims(t);
        if ((t.k == K::Array || t.k == K::Struct) && code.empty())  // WGSL zeroes variables
          return p + t.glsl() + " " + name + arr + ";\n" + zeroFill(name, t, p);
        return p + t.glsl() + " " + name + arr + (code.empty() ? "" : " = " + code) + ";\n";
      }
      case Stmt::Kind::Assign: {
        markAssigned(*s.lhs, taint(*s.expr));
        const Value target = assignTarget(*s.lhs);
        const Value v = convert(expr(*s.expr), target.type, s.expr->pos);
        return p + target.code + " = " + v.code + ";\n";
      }
      case Stmt::Kind::PhonyAssign:
        return p + "/* _ = */ " + expr(*s.expr).code + ";\n";
      case Stmt::Kind::CompoundAssign: {
        markAssigned(*s.lhs, taint(*s.expr));
        const Value target = assignTarget(*s.lhs);
        Value l = target;
        l.assignable = false;
        const Value r = binary(s.name, l, expr(*s.expr), s.pos);
        return p + target.code + " = " + convert(r, target.type, s.pos).code + ";\n";
      }
      case Stmt::Kind::Increment:
      case Stmt::Kind::Decrement: {
        markAssigned(*s.lhs, false);
        const Value target = assignTarget(*s.lhs);
        if (target.type.k != K::I32 && target.type.k != K::U32)
          fail(s.pos, "'++' and '--' need an i32 or u32 variable, got " + target.type.wgsl());
        return p + target.code + (s.kind == Stmt::Kind::Increment ? "++" : "--") + ";\n";
      }
      case Stmt::Kind::Call: {
        const Value v = expr(*s.expr);
        return p + v.code + ";\n";
      }
      case Stmt::Kind::Return: {
        if (inContinuing_) fail(s.pos, "a continuing block must not contain a return statement");
        // The result depends on the value and on the flow that chose this return; after a
        // return under such flow the rest of the function runs for fewer invocations.
        returnTaint_ |= (s.expr ? taint(*s.expr) : 0) | flowTaint();
        returnedTaint_ |= flowTaint();
        if (!s.expr) {
          if (returnType_.k != K::Void)
            fail(s.pos, "missing return value of type " + returnType_.wgsl());
          return p + "return;\n";
        }
        if (returnType_.k == K::Void) fail(s.pos, "this function returns no value");
        return p + "return " + convert(expr(*s.expr), returnType_, s.expr->pos).code + ";\n";
      }
      case Stmt::Kind::If: {
        const Value c = expr(*s.expr);
        if (c.type.k != K::Bool)
          fail(s.expr->pos, "if condition must be bool, got " + c.type.wgsl());
        const Flow flow(*this, taint(*s.expr));
        std::string out = p + "if (" + c.code + ") " + blockOf(s.body, d);
        if (!s.elseBody.empty()) {
          if (s.elseBody.size() == 1 && s.elseBody[0]->kind == Stmt::Kind::If) {
            out += " else\n" + stmt(*s.elseBody[0], d);
            return out;
          }
          out += " else " + blockOf(s.elseBody, d);
        }
        return out + "\n";
      }
      case Stmt::Kind::Block:
        return p + blockOf(s.body, d) + "\n";
      case Stmt::Kind::While: {
        const Value c = expr(*s.expr);
        if (c.type.k != K::Bool)
          fail(s.expr->pos, "while condition must be bool, got " + c.type.wgsl());
        fixLoopTaint(s);
        loops_.push_back(LoopKind::Plain);
        const Flow flow(*this, taint(*s.expr) | loopTaint_[&s]);
        exitFlow_.push_back({flow.index(), flow.index()});
        std::string out = p + "while (" + c.code + ") " + blockOf(s.body, d) + "\n";
        exitFlow_.pop_back();
        loops_.pop_back();
        return out;
      }
      case Stmt::Kind::For: {
        fixLoopTaint(s);
        scopes_.emplace_back();
        std::string init = s.init ? stmt(*s.init, 0) : ";";
        while (!init.empty() && (init.back() == '\n')) init.pop_back();
        std::string cond;
        if (s.expr) {
          const Value c = expr(*s.expr);
          if (c.type.k != K::Bool)
            fail(s.expr->pos, "for-loop condition must be bool, got " + c.type.wgsl());
          cond = c.code;
        }
        std::string update;
        if (s.update) {
          update = stmt(*s.update, 0);
          while (!update.empty() && (update.back() == '\n' || update.back() == ';'))
            update.pop_back();
        }
        loops_.push_back(LoopKind::Plain);
        const Flow flow(*this, (s.expr ? taint(*s.expr) : 0) | loopTaint_[&s]);
        exitFlow_.push_back({flow.index(), flow.index()});
        std::string out =
            p + "for (" + init + " " + cond + "; " + update + ") " + blockOf(s.body, d) + "\n";
        exitFlow_.pop_back();
        loops_.pop_back();
        scopes_.pop_back();
        return out;
      }
      case Stmt::Kind::Loop: {
        if (!loopExits(s.body) && !loopExits(s.continuing)) fail(s.pos, "loop does not exit");
        // loop { body continuing { c; break if x; } }: `continue` must reach the continuing
        // block, so the body runs inside a one-shot do-while that `continue` leaves.
        fixLoopTaint(s);
        const Flow flow(*this, loopTaint_[&s]);
        exitFlow_.push_back({flow.index(), flow.index()});
        const int id = ++locals_;
        const std::string brk = "tg_break_" + std::to_string(id);
        loops_.push_back(s.continuing.empty() ? LoopKind::Plain : LoopKind::WithContinuing);
        breakFlags_.push_back(brk);
        std::string out;
        if (s.continuing.empty()) {
          out = p + "for (;;) " + blockOf(s.body, d) + "\n";
        } else {
          scopes_.emplace_back();
          std::string inner;
          for (const auto& st : s.body) inner += stmt(*st, d + 3);
          loops_.back() = LoopKind::Continuing;
          ++inContinuing_;
          std::string cont;
          for (const auto& st : s.continuing) {
            if (st->kind == Stmt::Kind::BreakIf) {
              const Value c = expr(*st->expr);
              if (c.type.k != K::Bool)
                fail(st->expr->pos, "'break if' condition must be bool, got " + c.type.wgsl());
              cont += pad(d + 1) + "if (" + c.code + ") break;\n";
            } else {
              cont += stmt(*st, d + 1);
            }
          }
          --inContinuing_;
          scopes_.pop_back();
          out = p + "for (;;) {\n" + pad(d + 1) + "bool " + brk + " = false;\n" + pad(d + 1) +
                "do {\n" + inner + pad(d + 1) + "} while (false);\n" + pad(d + 1) + "if (" + brk +
                ") break;\n" + cont + p + "}\n";
        }
        breakFlags_.pop_back();
        loops_.pop_back();
        exitFlow_.pop_back();
        return out;
      }
      case Stmt::Kind::Break: {
        if (loops_.empty()) fail(s.pos, "'break' outside a loop or switch");
        exitConstruct(exitFlow_.back().first);
        if (loops_.back() == LoopKind::Continuing)
          fail(s.pos,
               "'break' must not be used to exit from a continuing block; use 'break if'");
        if (loops_.back() == LoopKind::WithContinuing)
          return p + "{ " + breakFlags_.back() + " = true; break; }\n";
        return p + "break;\n";
      }
      case Stmt::Kind::Continue: {
        if (loops_.empty()) fail(s.pos, "'continue' outside a loop");
        exitConstruct(exitFlow_.back().second);
        for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
          if (*it == LoopKind::Continuing)
            fail(s.pos, "'continue' must not be used to exit from a continuing block");
          if (*it != LoopKind::Switch) break;
        }
        if (loops_.back() == LoopKind::Switch) {
          for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
            if (*it == LoopKind::WithContinuing)
              unsupported(s.pos,
                          "'continue' inside a switch inside a loop with a continuing block");
            if (*it != LoopKind::Switch) break;
          }
        }
        if (loops_.back() == LoopKind::WithContinuing) return p + "break;  // continue\n";
        return p + "continue;\n";
      }
      case Stmt::Kind::BreakIf:
        fail(s.pos, "'break if' is only allowed at the end of a continuing block");
      case Stmt::Kind::Switch: {
        const Value sel = expr(*s.expr);
        const Type st = concrete(sel.type);
        if (st.k != K::I32 && st.k != K::U32)
          fail(s.expr->pos, "switch selector must be i32 or u32, got " + sel.type.wgsl());
        std::string out = p + "switch (" + convert(sel, st, s.expr->pos).code + ") {\n";
        bool sawDefault = false;
        std::set<int64_t> seen;
        loops_.push_back(LoopKind::Switch);
        const Flow flow(*this, taint(*s.expr));
        exitFlow_.push_back({flow.index(), exitFlow_.empty() ? flow.index() : exitFlow_.back().second});
        for (const auto& c : s.cases) {
          for (const auto& e : c.selectors) {
            const Value v = convert(expr(*e), st, e->pos);
            if (!v.constant) fail(e->pos, "case selector must be a constant expression");
            if (!seen.insert(static_cast<int64_t>(*v.constant)).second)
              fail(e->pos, "duplicate case selector " + v.code);
            out += p + "case " + v.code + ":\n";
          }
          if (c.isDefault) {
            if (sawDefault) fail(c.pos, "a switch has at most one default clause");
            sawDefault = true;
            out += p + "default:\n";
          }
          out += p + "  " + blockOf(c.body, d + 1) + "\n" + p + "  break;\n";
        }
        loops_.pop_back();
        exitFlow_.pop_back();
        if (!sawDefault) fail(s.pos, "a switch needs a default clause");
        return out + p + "}\n";
      }
      case Stmt::Kind::Discard:
        unsupported(s.pos, "discard");
    }
    return "";
  }

  // `let r = atomicCompareExchangeWeak(&a, cmp, v);` becomes a strong compare-swap whose result
  // fills WGSL's __atomic_compare_exchange_result struct (old_value, exchanged).
  std::string compareExchange(const Stmt& s, const std::string& p) {
    const Expr& call = *s.expr;
    arity(call, 3);
    const Expr& ptr = *call.args[0];
    if (ptr.kind != Expr::Kind::Unary || ptr.text != "&")
      fail(ptr.pos,
           "atomicCompareExchangeWeak takes a pointer: atomicCompareExchangeWeak(&x, cmp, v)");
    const Value target = expr(*ptr.args[0]);
    if (target.type.k != K::Atomic)
      fail(ptr.pos, "atomicCompareExchangeWeak needs an atomic<i32> or atomic<u32>, got " +
                        target.type.wgsl());
    if (!target.writable)
      fail(ptr.pos, "atomicCompareExchangeWeak writes its operand, which is read-only here");
    const Type& t = *target.type.elem;
    const std::string structName = "__atomic_compare_exchange_result_" + t.wgsl();
    if (!structs_.contains(structName)) {
      structs_[structName] = {{"old_value", t}, {"exchanged", Type::scalar(K::Bool)}};
      decls_ += "struct " + mangle(structName) + " { " + t.glsl() +
                " w_old_value; bool w_exchanged; };\n";
    }
    const int id = ++locals_;
    const std::string cmp = "tg_cmp_" + std::to_string(id), old = "tg_old_" + std::to_string(id);
    const std::string name = mangle(s.name) + "_" + std::to_string(++locals_);
    std::string out = p + t.glsl() + " " + cmp + " = " +
                      convert(expr(*call.args[1]), t, call.args[1]->pos).code + ";\n";
    out += p + t.glsl() + " " + old + " = atomicCompSwap(" + target.code + ", " + cmp + ", " +
           convert(expr(*call.args[2]), t, call.args[2]->pos).code + ");\n";
    out += p + mangle(structName) + " " + name + " = " + mangle(structName) + "(" + old + ", " +
           old + " == " + cmp + ");\n";
    const Type rt{K::Struct, 0, nullptr, structName};
    const bool isVar = s.kind == Stmt::Kind::Var;
    define(s.pos, s.name,
           Symbol{rt, name, isVar ? Symbol::Kind::Var : Symbol::Kind::Let, isVar, std::nullopt,
                  "function", kNonUniform, &s});
    return out;
  }

  // ---- expressions ----
  static Type concrete(const Type& t) {
    if (t.k == K::AbstractInt) return Type::scalar(K::I32);
    if (t.k == K::AbstractFloat) return Type::scalar(K::F32);
    if (t.k == K::Vec && t.elem->isAbstract()) return Type::vec(t.n, concrete(*t.elem));
    return t;
  }

  // Converts a value to `to` where WGSL converts implicitly (abstract → concrete); otherwise
  // the types must already agree.
  Value convert(const Value& v, const Type& to, SourcePos pos) {
    if (v.type == to) return v;
    if (v.type.isAbstract() && v.constant && to.isScalar()) {
      const double c = *v.constant;
      Value out = v;
      out.type = to;
      if (to.k == K::F32 || to.k == K::AbstractFloat) {
        out.code = f32Literal(c, pos);
        out.constant = static_cast<double>(static_cast<float>(c));
        return out;
      }
      if (v.type.k == K::AbstractFloat)
        fail(pos, "cannot convert an abstract float to " + to.wgsl() + " implicitly (use " +
                      to.wgsl() + "(...))");
      if (to.k == K::I32) {
        if (c < -2147483648.0 || c > 2147483647.0)
          fail(pos, "value " + std::to_string(static_cast<int64_t>(c)) + " does not fit in i32");
        out.code = i32Literal(c);
        return out;
      }
      if (to.k == K::U32) {
        if (c < 0 || c > 4294967295.0)
          fail(pos, "value " + std::to_string(static_cast<int64_t>(c)) + " does not fit in u32");
        out.code = std::to_string(static_cast<int64_t>(c)) + "u";
        return out;
      }
      if (to.k == K::AbstractInt && v.type.k == K::AbstractInt) return v;
    }
    if (v.type.k == K::Vec && to.k == K::Vec && v.type.n == to.n && v.type.elem->isAbstract()) {
      Value out = v;
      out.type = to;
      out.code = to.glsl() + "(" + v.code + ")";
      return out;
    }
    fail(pos, "type mismatch: expected " + to.wgsl() + ", got " + v.type.wgsl());
  }

  Value lit(std::string code, Type t, std::optional<double> c) {
    return Value{std::move(code), std::move(t), false, false, c};
  }

  Value expr(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::BoolLit:
        return lit(e.text, Type::scalar(K::Bool), e.text == "true" ? 1.0 : 0.0);
      case Expr::Kind::IntLit:
        return intLiteral(e);
      case Expr::Kind::FloatLit: {
        std::string digits = e.text;
        const bool suffixF = digits.back() == 'f';
        if (suffixF) digits.pop_back();
        const double v = std::strtod(digits.c_str(), nullptr);
        if (!std::isfinite(v)) fail(e.pos, "float literal '" + e.text + "' is out of range");
        if (suffixF)
          return lit(f32Literal(v, e.pos), Type::scalar(K::F32),
                     static_cast<double>(static_cast<float>(v)));
        return lit(f32Literal(v, e.pos), Type::scalar(K::AbstractFloat), v);
      }
      case Expr::Kind::Paren: {
        Value v = expr(*e.args[0]);
        v.code = "(" + v.code + ")";
        v.assignable = false;
        return v;
      }
      case Expr::Kind::Ident: {
        const Symbol* s = lookup(e.text);
        if (!s) {
          if (functions_.contains(e.text)) fail(e.pos, "function '" + e.text + "' used as a value");
          fail(e.pos, "unresolved identifier '" + e.text + "'");
        }
        const bool memory = s->kind == Symbol::Kind::Var || s->kind == Symbol::Kind::Global;
        Value v{s->kind == Symbol::Kind::Const && s->constant && s->type.isAbstract() ? s->glsl
                                                                                      : s->glsl,
                s->type, memory, s->writable, s->constant};
        if (s->kind == Symbol::Kind::Global &&
            (s->space == "storage" || s->space == "uniform" || s->space == "workgroup") &&
            s->type.k != K::Array && s->type.k != K::Struct && s->type.k != K::Atomic &&
            !s->type.isScalar() && s->type.k != K::Vec) {
          fail(e.pos, "cannot use '" + e.text + "' as a value");
        }
        return v;
      }
      case Expr::Kind::Unary:
        return unaryExpr(e);
      case Expr::Kind::Binary:
        return binary(e.text, expr(*e.args[0]), expr(*e.args[1]), e.pos);
      case Expr::Kind::Index:
        return indexExpr(e);
      case Expr::Kind::Member:
        return memberExpr(e);
      case Expr::Kind::Call:
        return call(e);
    }
    fail(e.pos, "unsupported expression");
  }

  Value intLiteral(const Expr& e) {
    std::string t = e.text;
    char suffix = 0;
    if (t.back() == 'i' || t.back() == 'u') suffix = t.back(), t.pop_back();
    errno = 0;
    const bool hex = t.size() > 2 && (t[1] == 'x' || t[1] == 'X');
    const unsigned long long v =
        std::strtoull(hex ? t.c_str() + 2 : t.c_str(), nullptr, hex ? 16 : 10);
    if (errno == ERANGE || v > 0xFFFFFFFFFFFFull)
      fail(e.pos, "integer literal '" + e.text + "' is out of range");
    const auto d = static_cast<double>(v);
    if (suffix == 'i') {
      if (v > 2147483647ull) fail(e.pos, "integer literal '" + e.text + "' does not fit in i32");
      return lit(i32Literal(d), Type::scalar(K::I32), d);
    }
    if (suffix == 'u') {
      if (v > 4294967295ull) fail(e.pos, "integer literal '" + e.text + "' does not fit in u32");
      return lit(std::to_string(v) + "u", Type::scalar(K::U32), d);
    }
    return lit(std::to_string(v), Type::scalar(K::AbstractInt), d);
  }

  Value unaryExpr(const Expr& e) {
    if (e.text == "&")
      unsupported(e.pos, "pointer expression ('&') outside arrayLength and the atomic builtins");
    Value v = expr(*e.args[0]);
    const Type& st = v.type.scalarType();
    if (e.text == "-") {
      if (!st.isNumeric() || st.k == K::U32)
        fail(e.pos, "unary '-' needs a signed or float operand, got " + v.type.wgsl());
      if (v.constant && v.type.isScalar()) {
        const double c = -*v.constant;
        if (v.type.k == K::AbstractInt || v.type.k == K::I32) {
          if (v.type.k == K::I32 && c > 2147483647.0)
            return lit(i32Literal(-2147483648.0), v.type, -2147483648.0);  // wraps
          return lit(i32Literal(c), v.type, c);
        }
        return lit(f32Literal(c, e.pos), v.type, c);
      }
      return Value{"(-" + v.code + ")", v.type, false, false, std::nullopt};
    }
    if (e.text == "!") {
      if (v.type.k != K::Bool) fail(e.pos, "'!' needs a bool operand, got " + v.type.wgsl());
      return Value{"(!" + v.code + ")", v.type, false, false,
                   v.constant ? std::optional<double>(*v.constant == 0 ? 1 : 0) : std::nullopt};
    }
    if (!st.isInteger()) fail(e.pos, "'~' needs an integer operand, got " + v.type.wgsl());
    if (v.type.k == K::AbstractInt) v = convert(v, Type::scalar(K::I32), e.pos);
    return Value{"(~" + v.code + ")", v.type, false, false, std::nullopt};
  }

  // Unifies abstract operands with the other side's concrete type.
  void unify(Value& l, Value& r, SourcePos pos) {
    if (l.type == r.type) return;
    const Type& ls = l.type.scalarType();
    const Type& rs = r.type.scalarType();
    if (l.type.isAbstract() && r.type.isAbstract()) {  // int meets float: both abstract float
      if (l.type.k == K::AbstractInt)
        l.type = Type::scalar(K::AbstractFloat), l.code = f32Literal(*l.constant, pos);
      if (r.type.k == K::AbstractInt)
        r.type = Type::scalar(K::AbstractFloat), r.code = f32Literal(*r.constant, pos);
      return;
    }
    if (l.type.isAbstract() && !r.type.isAbstract())
      l = convert(l, rs, pos);
    else if (r.type.isAbstract() && !l.type.isAbstract())
      r = convert(r, ls, pos);
  }

  Value binary(const std::string& op, Value l, Value r, SourcePos pos) {
    if (op == "&&" || op == "||") {
      if (l.type.k != K::Bool || r.type.k != K::Bool)
        fail(pos,
             "'" + op + "' needs bool operands, got " + l.type.wgsl() + " and " + r.type.wgsl());
      return Value{"(" + l.code + " " + op + " " + r.code + ")", l.type, false, false,
                   std::nullopt};
    }
    if (op == "<<" || op == ">>") {
      if (!l.type.scalarType().isInteger())
        fail(pos, "shift needs an integer left operand, got " + l.type.wgsl());
      if (l.type.k == K::AbstractInt) l = convert(l, Type::scalar(K::I32), pos);
      r = r.type.isAbstract() ? convert(r, Type::scalar(K::U32), pos) : r;
      if (r.type.scalarType().k != K::U32)
        fail(pos, "shift amount must be u32, got " + r.type.wgsl());
      if (r.constant && *r.constant >= 32)
        fail(pos, "shift amount " + std::to_string(static_cast<int64_t>(*r.constant)) +
                      " must be less than the bit width of the left operand (32)");
      // WGSL masks a run-time amount to the bit width.
      return Value{"(" + l.code + " " + op + " (" + r.code + " & 31u))", l.type, false, false,
                   std::nullopt};
    }
    unify(l, r, pos);
    const bool vecScalar = (l.type.k == K::Vec && r.type.isScalar() && *l.type.elem == r.type) ||
                           (r.type.k == K::Vec && l.type.isScalar() && *r.type.elem == l.type);
    if (!(l.type == r.type) && !vecScalar) {
      fail(pos, "operator '" + op + "' cannot combine " + l.type.wgsl() + " and " + r.type.wgsl());
    }
    const Type result = l.type.k == K::Vec ? l.type : r.type;
    const Type& st = result.scalarType();
    const bool cmp = op == "==" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=";
    if (cmp) {
      if (result.k == K::Vec) {
        if (!(l.type == r.type))
          fail(pos, "component-wise '" + op + "' needs two vectors of the same type");
        if (st.k == K::Bool && op != "==" && op != "!=")
          fail(pos, "'" + op + "' cannot compare bool vectors");
        const char* fn = op == "=="   ? "equal"
                         : op == "!=" ? "notEqual"
                         : op == "<"  ? "lessThan"
                         : op == ">"  ? "greaterThan"
                         : op == "<=" ? "lessThanEqual"
                                      : "greaterThanEqual";
        return Value{std::string(fn) + "(" + l.code + ", " + r.code + ")",
                     Type::vec(result.n, Type::scalar(K::Bool)), false, false, std::nullopt};
      }
      if (st.k == K::Bool && op != "==" && op != "!=")
        fail(pos, "'" + op + "' cannot compare bool values");
      std::optional<double> c;
      if (l.constant && r.constant) {
        const double a = *l.constant, b = *r.constant;
        c = op == "=="   ? a == b
            : op == "!=" ? a != b
            : op == "<"  ? a < b
            : op == ">"  ? a > b
            : op == "<=" ? a <= b
                         : a >= b;
      }
      return Value{"(" + l.code + " " + op + " " + r.code + ")", Type::scalar(K::Bool), false,
                   false, c};
    }
    if (op == "&" || op == "|" || op == "^") {
      if (!st.isInteger()) fail(pos, "'" + op + "' needs integer operands, got " + l.type.wgsl());
      return Value{"(" + l.code + " " + op + " " + r.code + ")", result, false, false,
                   std::nullopt};
    }
    if (!st.isNumeric())
      fail(pos, "arithmetic '" + op + "' needs numeric operands, got " + l.type.wgsl() + " and " +
                    r.type.wgsl());
    // Abstract constants fold in double / int64, as WGSL evaluates them at compile time.
    if (result.isAbstract() && l.constant && r.constant) {
      const double a = *l.constant, b = *r.constant;
      double v = 0;
      if (op == "+")
        v = a + b;
      else if (op == "-")
        v = a - b;
      else if (op == "*")
        v = a * b;
      else if (op == "/") {
        if (result.k == K::AbstractInt) {
          if (b == 0) fail(pos, "integer division by zero in a constant expression");
          v = std::trunc(a / b);
        } else {
          v = a / b;
        }
      } else if (op == "%") {
        if (result.k == K::AbstractInt && b == 0)
          fail(pos, "integer remainder by zero in a constant expression");
        v = std::fmod(a, b);
      }
      return lit(result.k == K::AbstractInt ? i32Literal(v) : f32Literal(v, pos), result, v);
    }
    // Concrete scalar constants fold too (const-expressions): a result the type cannot hold and
    // integer division by zero are errors, as in Tint.
    if (result.isScalar() && l.constant && r.constant) return foldConcrete(op, l, r, result, pos);
    if (op == "/" && st.isInteger())
      return Value{"tg_div(" + l.code + ", " + r.code + ")", result, false, false, std::nullopt};
    if (op == "%")
      return Value{"tg_rem(" + l.code + ", " + r.code + ")", result, false, false, std::nullopt};
    return Value{"(" + l.code + " " + op + " " + r.code + ")", result, false, false,
                 std::nullopt};
  }

  Value foldConcrete(const std::string& op, const Value& l, const Value& r, const Type& t,
                     SourcePos pos) {
    const std::string what = "'" + l.code + " " + op + " " + r.code + "'";
    if (t.k == K::F32) {  // f32 results must be finite
      const auto a = static_cast<float>(*l.constant), b = static_cast<float>(*r.constant);
      const float v = op == "+"   ? a + b
                      : op == "-" ? a - b
                      : op == "*" ? a * b
                      : op == "/" ? a / b
                                  : std::fmod(a, b);
      if (!std::isfinite(v)) fail(pos, what + " cannot be represented as 'f32'");
      return lit(f32Literal(v, pos), t, static_cast<double>(v));
    }
    const auto a = static_cast<int64_t>(*l.constant), b = static_cast<int64_t>(*r.constant);
    if ((op == "/" || op == "%") && b == 0)
      fail(pos, std::string("integer ") + (op == "/" ? "division" : "modulo") +
                    " by zero is invalid");
    const bool i32 = t.k == K::I32;
    if (i32 && a == INT32_MIN && b == -1 && (op == "/" || op == "%"))
      fail(pos, what + " cannot be represented as 'i32'");
    // Concrete integer + - * wrap (two's complement), in const-expressions too.
    const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    const uint32_t w = op == "+" ? ua + ub : op == "-" ? ua - ub : ua * ub;
    const int64_t v = op == "/"   ? a / b
                      : op == "%" ? a % b
                      : i32       ? int64_t{static_cast<int32_t>(w)}
                                  : int64_t{w};
    const auto d = static_cast<double>(v);
    return lit(i32 ? i32Literal(d) : std::to_string(v) + "u", t, d);
  }

  Value indexExpr(const Expr& e) {
    Value base = expr(*e.args[0]);
    Value idx = expr(*e.args[1]);
    if (idx.type.isAbstract()) idx = convert(idx, Type::scalar(K::I32), e.args[1]->pos);
    if (idx.type.k != K::I32 && idx.type.k != K::U32)
      fail(e.args[1]->pos, "index must be i32 or u32, got " + idx.type.wgsl());
    if (idx.constant) {
      const auto c = static_cast<int64_t>(*idx.constant);
      const int n = base.type.k == K::Array || base.type.k == K::Vec ? base.type.n : 0;
      if (c < 0 || (n > 0 && c >= n))
        fail(e.args[1]->pos, "index " + std::to_string(c) + " out of bounds" +
                                 (n > 0 ? " [0.." + std::to_string(n - 1) + "]" : ""));
    }
    if (base.type.k == K::Array) {
      // Clamped so a stray index never leaves the binding (WebGPU allows any in-bounds element).
      const std::string limit = base.type.n ? std::to_string(base.type.n - 1) + "u"
                                            : "uint(" + base.code + ".length()) - 1u";
      return Value{base.code + "[min(uint(" + idx.code + "), " + limit + ")]", *base.type.elem,
                   base.assignable, base.writable, std::nullopt};
    }
    if (base.type.k == K::Vec) {
      return Value{
          base.code + "[min(uint(" + idx.code + "), " + std::to_string(base.type.n - 1) + "u)]",
          *base.type.elem, base.assignable, base.writable, std::nullopt};
    }
    fail(e.pos, "cannot index a value of type " + base.type.wgsl());
  }

  Value memberExpr(const Expr& e) {
    Value base = expr(*e.args[0]);
    const std::string& m = e.text;
    if (base.type.k == K::Struct) {
      for (const auto& [name, t] : structs_[base.type.name]) {
        if (name == m)
          return Value{base.code + "." + mangle(m), t, base.assignable, base.writable,
                       std::nullopt};
      }
      fail(e.pos, "struct '" + base.type.name + "' has no member '" + m + "'");
    }
    if (base.type.k == K::Vec) {
      const std::string xyzw = "xyzw", rgba = "rgba";
      if (m.empty() || m.size() > 4) fail(e.pos, "invalid swizzle '" + m + "'");
      const bool useRgba = rgba.find(m[0]) != std::string::npos;
      std::string glslSwizzle;
      for (char c : m) {
        const auto k = (useRgba ? rgba : xyzw).find(c);
        if (k == std::string::npos || static_cast<int>(k) >= base.type.n)
          fail(e.pos, "invalid swizzle '" + m + "' for " + base.type.wgsl());
        glslSwizzle += xyzw[k];
      }
      const Type t =
          m.size() == 1 ? *base.type.elem : Type::vec(static_cast<int>(m.size()), *base.type.elem);
      return Value{base.code + "." + glslSwizzle, t, base.assignable && m.size() == 1,
                   base.writable && m.size() == 1, std::nullopt};
    }
    fail(e.pos, "type " + base.type.wgsl() + " has no members");
  }

  // ---- calls: constructors, conversions, builtins, user functions ----
  std::vector<Value> argsOf(const Expr& e) {
    std::vector<Value> out;
    for (const auto& a : e.args) out.push_back(expr(*a));
    return out;
  }

  void arity(const Expr& e, size_t n) {
    if (e.args.size() != n)
      fail(e.pos, "'" + e.text + "' takes " + std::to_string(n) + " argument" +
                      (n == 1 ? "" : "s") + ", got " + std::to_string(e.args.size()));
  }

  Value call(const Expr& e) {
    const std::string& f = e.text;
    if (lookup(f))
      fail(e.pos, "cannot call '" + f + "': it is a value declared in scope, not a function");
    if (e.typeArgs && f == "bitcast") return bitcastCall(e);
    if (f == "f32" || f == "i32" || f == "u32" || f == "bool") return conversion(e);
    if (f.starts_with("vec") || e.typeArgs) return construct(e);
    if (f == "arrayLength") {
      arity(e, 1);
      const Expr& a = *e.args[0];
      if (a.kind != Expr::Kind::Unary || a.text != "&")
        fail(a.pos, "arrayLength takes a pointer: arrayLength(&buffer)");
      const Value v = expr(*a.args[0]);
      if (v.type.k != K::Array || v.type.n != 0)
        fail(a.pos, "arrayLength needs a runtime-sized array, got " + v.type.wgsl());
      return Value{"uint(" + v.code + ".length())", Type::scalar(K::U32), false, false,
                   std::nullopt};
    }
    if (f.starts_with("atomic")) return atomicCall(e);
    if (f == "workgroupBarrier" || f == "storageBarrier") requireUniformFlow(e);
    if (f == "workgroupBarrier") {
      arity(e, 0);
      return Value{"barrier()", Type::scalar(K::Void), false, false, std::nullopt};
    }
    if (f == "storageBarrier") {
      arity(e, 0);
      return Value{"memoryBarrierBuffer(), barrier()", Type::scalar(K::Void), false, false,
                   std::nullopt};
    }
    if (f == "select") {
      arity(e, 3);
      auto a = argsOf(e);
      unify(a[0], a[1], e.pos);
      if (!(a[0].type == a[1].type))
        fail(e.pos, "select: both values must have the same type, got " + a[0].type.wgsl() +
                        " and " + a[1].type.wgsl());
      if (a[2].type.k != K::Bool)
        fail(e.args[2]->pos, "select: the condition must be bool, got " + a[2].type.wgsl());
      if (a[0].constant && a[1].constant && a[2].constant && a[0].type.isScalar()) {
        const Value& v = *a[2].constant != 0 ? a[1] : a[0];  // a const-expression: fold it
        return lit(literalOf(*v.constant, v.type, e.pos), v.type, v.constant);
      }
      Type t = concrete(a[0].type);
      return Value{"(" + a[2].code + " ? " + convert(a[1], t, e.pos).code + " : " +
                       convert(a[0], t, e.pos).code + ")",
                   t, false, false, std::nullopt};
    }
    if (auto it = functions_.find(f); it != functions_.end()) {
      const auto& [params, ret] = it->second;
      if (barrierFunctions_.contains(f)) {
        requireUniformFlow(e);
        const Taint required = requiredParams_[f];
        for (size_t i = 0; i < e.args.size() && i < params.size(); ++i) {
          if (!(required & paramBit(i))) continue;
          const Taint t = taint(*e.args[i]);
          if (t & kNonUniform)
            fail(e.args[i]->pos, "argument " + std::to_string(i + 1) + " of '" + f +
                                     "' must be uniform: a barrier in '" + f + "' depends on it");
          requiredTaint_ |= t;
        }
      }
      if (e.args.size() != params.size())
        fail(e.pos, "function '" + f + "' takes " + std::to_string(params.size()) +
                        " arguments, got " + std::to_string(e.args.size()));
      std::string code = mangle(f) + "(";
      for (size_t i = 0; i < params.size(); ++i)
        code += (i ? ", " : "") + convert(expr(*e.args[i]), params[i], e.args[i]->pos).code;
      return Value{code + ")", ret, false, false, std::nullopt};
    }
    return builtin(e);
  }

  Value conversion(const Expr& e) {
    arity(e, 1);
    const Type to = Type::scalar(e.text == "f32"   ? K::F32
                                 : e.text == "i32" ? K::I32
                                 : e.text == "u32" ? K::U32
                                                   : K::Bool);
    Value v = expr(*e.args[0]);
    if (v.type.k == K::Vec)
      fail(e.pos, e.text + "() converts scalars; use vecN<" + e.text + ">(...) for vectors");
    if (!v.type.isScalar()) fail(e.pos, "cannot convert " + v.type.wgsl() + " to " + to.wgsl());
    if (v.constant && v.type.isAbstract()) {
      if (to.k == K::F32) return convert(v, to, e.pos);
      if (to.k == K::Bool) return lit(*v.constant != 0 ? "true" : "false", to, *v.constant != 0);
      const double t = std::trunc(*v.constant);
      return convert(lit(std::to_string(static_cast<int64_t>(t)), Type::scalar(K::AbstractInt), t),
                     to, e.pos);
    }
    v = convert(v, concrete(v.type), e.pos);
    if (v.type == to) return v;
    if (v.type.k == K::F32 && to.k == K::I32)
      return Value{"tg_f2i(" + v.code + ")", to, false, false, std::nullopt};
    if (v.type.k == K::F32 && to.k == K::U32)
      return Value{"tg_f2u(" + v.code + ")", to, false, false, std::nullopt};
    return Value{to.glsl() + "(" + v.code + ")", to, false, false, std::nullopt};
  }

  Value bitcastCall(const Expr& e) {
    arity(e, 1);
    if (e.typeArgs->args.size() != 1) fail(e.pos, "bitcast needs one target type: bitcast<T>(x)");
    const Type target = resolveType(e.typeArgs->args[0]);
    Value v = expr(*e.args[0]);
    v = convert(v, concrete(v.type), e.pos);
    if (!target.isScalar() || !v.type.isScalar() || target.k == K::Bool || v.type.k == K::Bool)
      unsupported(e.pos, "bitcast between " + v.type.wgsl() + " and " + target.wgsl());
    if (v.type == target) return v;
    std::string fn;
    if (v.type.k == K::F32)
      fn = target.k == K::U32 ? "floatBitsToUint" : "floatBitsToInt";
    else if (target.k == K::F32)
      fn = v.type.k == K::U32 ? "uintBitsToFloat" : "intBitsToFloat";
    else
      fn = target.glsl();
    return Value{fn + "(" + v.code + ")", target, false, false, std::nullopt};
  }

  Value construct(const Expr& e) {
    if (e.typeArgs && e.typeArgs->name == "array") {
      Type t = resolveType(*e.typeArgs);
      if (t.n == 0) t.n = static_cast<int>(e.args.size());
      if (e.args.empty() && t.n > 0) {  // the zero value
        const std::string z = zeroOf(*t.elem);
        if (z.empty()) unsupported(e.pos, "zero-value constructor of " + t.wgsl());
        std::string code = t.glsl() + dims(t) + "(";
        for (int i = 0; i < t.n; ++i) code += (i ? ", " : "") + z;
        return Value{code + ")", t, false, false, std::nullopt};
      }
      if (static_cast<int>(e.args.size()) != t.n)
        fail(e.pos, "array constructor needs " + std::to_string(t.n) + " elements, got " +
                        std::to_string(e.args.size()));
      std::string code = t.glsl() + dims(t) + "(";
      for (size_t i = 0; i < e.args.size(); ++i)
        code += (i ? ", " : "") + convert(expr(*e.args[i]), *t.elem, e.args[i]->pos).code;
      return Value{code + ")", t, false, false, std::nullopt};
    }
    if (!e.text.starts_with("vec") || e.text.size() < 4 || e.text[3] < '2' || e.text[3] > '4') {
      if (structs_.contains(e.text)) unsupported(e.pos, "struct constructor");
      fail(e.pos, "unknown function '" + e.text + "'");
    }
    const int n = e.text[3] - '0';
    auto a = argsOf(e);
    Type elem;
    if (e.typeArgs)
      elem = *resolveType(*e.typeArgs).elem;
    else if (e.text.size() == 5)
      elem = Type::scalar(e.text[4] == 'f' ? K::F32 : e.text[4] == 'u' ? K::U32 : K::I32);
    else {
      if (a.empty()) fail(e.pos, e.text + "() needs an element type or arguments");
      elem = concrete(a[0].type.scalarType());
    }
    const Type t = Type::vec(n, elem);
    int count = 0;
    std::string code = t.glsl() + "(";
    for (size_t i = 0; i < a.size(); ++i) {
      Value v = a[i];
      if (v.type.k == K::Vec) {
        if (!(*v.type.elem == elem))
          fail(e.args[i]->pos, "vector component type mismatch: expected " + elem.wgsl() +
                                   ", got " + v.type.wgsl());
        count += v.type.n;
      } else {
        v = convert(v, elem, e.args[i]->pos);
        count += 1;
      }
      code += (i ? ", " : "") + v.code;
    }
    if (!(count == n || (count == 1 && a.size() == 1) || a.empty()))
      fail(e.pos,
           e.text + " needs " + std::to_string(n) + " components, got " + std::to_string(count));
    if (a.empty()) code += zeroOf(elem);
    return Value{code + ")", t, false, false, std::nullopt};
  }

  Value atomicCall(const Expr& e) {
    const std::string& f = e.text;
    static const std::map<std::string, std::string> rmw = {
        {"atomicAdd", "atomicAdd"}, {"atomicSub", "atomicAdd"},          {"atomicMax", "atomicMax"},
        {"atomicMin", "atomicMin"}, {"atomicAnd", "atomicAnd"},          {"atomicOr", "atomicOr"},
        {"atomicXor", "atomicXor"}, {"atomicExchange", "atomicExchange"}};
    if (e.args.empty()) fail(e.pos, f + " needs a pointer to an atomic as its first argument");
    const Expr& p = *e.args[0];
    if (p.kind != Expr::Kind::Unary || p.text != "&")
      fail(p.pos, f + " takes a pointer: " + f + "(&x, ...)");
    const Value target = expr(*p.args[0]);
    if (target.type.k != K::Atomic)
      fail(p.pos, f + " needs an atomic<i32> or atomic<u32>, got " + target.type.wgsl());
    const Type& t = *target.type.elem;
    if (!target.writable && f != "atomicLoad")
      fail(p.pos, f + " writes its operand, which is read-only here");
    if (f == "atomicLoad") {
      arity(e, 1);
      return Value{"atomicOr(" + target.code + ", " + zeroOf(t) + ")", t, false, false,
                   std::nullopt};
    }
    if (f == "atomicStore") {
      arity(e, 2);
      return Value{"atomicExchange(" + target.code + ", " +
                       convert(expr(*e.args[1]), t, e.args[1]->pos).code + ")",
                   Type::scalar(K::Void), false, false, std::nullopt};
    }
    if (f == "atomicCompareExchangeWeak")
      unsupported(e.pos, "atomicCompareExchangeWeak outside a 'let' or 'var' initializer");
    auto it = rmw.find(f);
    if (it == rmw.end()) fail(e.pos, "unknown atomic builtin '" + f + "'");
    arity(e, 2);
    std::string v = convert(expr(*e.args[1]), t, e.args[1]->pos).code;
    if (f == "atomicSub") v = "-(" + v + ")";
    return Value{it->second + "(" + target.code + ", " + v + ")", t, false, false, std::nullopt};
  }

  Value builtin(const Expr& e) {
    const std::string& f = e.text;
    struct Rule {
      const char* glsl;
      int arity;
      enum { Float, Numeric, Int, Bool } domain;
      enum { Same, ScalarOfArg, U32Like, BoolScalar } result = Same;
    };
    static const std::map<std::string, Rule> rules = {
        {"abs", {"abs", 1, Rule::Numeric}},
        {"acos", {"acos", 1, Rule::Float}},
        {"asin", {"asin", 1, Rule::Float}},
        {"atan", {"atan", 1, Rule::Float}},
        {"atan2", {"atan", 2, Rule::Float}},
        {"ceil", {"ceil", 1, Rule::Float}},
        {"clamp", {"clamp", 3, Rule::Numeric}},
        {"cos", {"cos", 1, Rule::Float}},
        {"cosh", {"cosh", 1, Rule::Float}},
        {"exp", {"exp", 1, Rule::Float}},
        {"exp2", {"exp2", 1, Rule::Float}},
        {"floor", {"floor", 1, Rule::Float}},
        {"fma", {"fma", 3, Rule::Float}},
        {"fract", {"fract", 1, Rule::Float}},
        {"inverseSqrt", {"inversesqrt", 1, Rule::Float}},
        {"log", {"log", 1, Rule::Float}},
        {"log2", {"log2", 1, Rule::Float}},
        {"max", {"max", 2, Rule::Numeric}},
        {"min", {"min", 2, Rule::Numeric}},
        {"mix", {"mix", 3, Rule::Float}},
        {"pow", {"pow", 2, Rule::Float}},
        {"round", {"roundEven", 1, Rule::Float}},
        {"sign", {"sign", 1, Rule::Numeric}},
        {"sin", {"sin", 1, Rule::Float}},
        {"sinh", {"sinh", 1, Rule::Float}},
        {"smoothstep", {"smoothstep", 3, Rule::Float}},
        {"sqrt", {"sqrt", 1, Rule::Float}},
        {"step", {"step", 2, Rule::Float}},
        {"tan", {"tan", 1, Rule::Float}},
        {"tanh", {"tanh", 1, Rule::Float}},
        {"trunc", {"trunc", 1, Rule::Float}},
        {"dot", {"dot", 2, Rule::Float, Rule::ScalarOfArg}},
        {"length", {"length", 1, Rule::Float, Rule::ScalarOfArg}},
        {"normalize", {"normalize", 1, Rule::Float}},
        {"countOneBits", {"bitCount", 1, Rule::Int}},
        {"firstLeadingBit", {"findMSB", 1, Rule::Int}},
        {"reverseBits", {"bitfieldReverse", 1, Rule::Int}},
        {"all", {"all", 1, Rule::Bool, Rule::BoolScalar}},
        {"any", {"any", 1, Rule::Bool, Rule::BoolScalar}},
    };
    auto it = rules.find(f);
    if (it == rules.end()) {
      static const std::set<std::string> known = {"textureLoad",
                                                  "textureStore",
                                                  "textureSample",
                                                  "dpdx",
                                                  "dpdy",
                                                  "fwidth",
                                                  "pack4x8snorm",
                                                  "unpack4x8snorm",
                                                  "quantizeToF16",
                                                  "workgroupUniformLoad",
                                                  "determinant",
                                                  "transpose",
                                                  "cross",
                                                  "distance",
                                                  "reflect",
                                                  "refract",
                                                  "faceForward",
                                                  "frexp",
                                                  "modf",
                                                  "ldexp",
                                                  "degrees",
                                                  "radians",
                                                  "saturate",
                                                  "extractBits",
                                                  "insertBits",
                                                  "firstTrailingBit",
                                                  "countLeadingZeros",
                                                  "countTrailingZeros",
                                                  "dot4I8Packed",
                                                  "subgroupAdd"};
      if (known.contains(f)) unsupported(e.pos, "builtin function '" + f + "'");
      fail(e.pos, "unresolved function '" + f + "'");
    }
    const Rule& r = it->second;
    arity(e, static_cast<size_t>(r.arity));
    auto a = argsOf(e);
    for (size_t i = 1; i < a.size(); ++i) unify(a[0], a[i], e.pos);
    for (size_t i = 1; i < a.size(); ++i)
      unify(a[0], a[i], e.pos);  // a later concrete argument fixes earlier abstract ones
    Type t = concrete(a[0].type);
    const Type& st = t.scalarType();
    const bool ok = r.domain == Rule::Float ? st.k == K::F32
                    : r.domain == Rule::Numeric
                        ? (st.k == K::F32 || st.k == K::I32 || st.k == K::U32)
                    : r.domain == Rule::Int ? (st.k == K::I32 || st.k == K::U32)
                                            : (t.k == K::Vec && st.k == K::Bool) || t.k == K::Bool;
    if (!ok) fail(e.pos, "no overload of '" + f + "' takes " + a[0].type.wgsl());
    if (f == "min" || f == "max" || f == "abs" || f == "clamp") {
      if (std::optional<Value> v = foldNumeric(f, a, e)) return *v;
    }
    std::string code = std::string(r.glsl) + "(";
    for (size_t i = 0; i < a.size(); ++i) {
      const Value v = convert(a[i], t, e.args[i]->pos);
      code += (i ? ", " : "") + v.code;
    }
    code += ")";
    if (f == "firstLeadingBit" && st.k == K::U32)
      code = "uint(" + code + ")";  // findMSB returns int
    if (f == "countOneBits" && st.k == K::U32) code = "uint(" + code + ")";
    if (f == "atan2")
      code = "atan(" + convert(a[0], t, e.pos).code + ", " + convert(a[1], t, e.pos).code + ")";
    if (t.k == K::Bool && (f == "all" || f == "any"))
      code = convert(a[0], t, e.pos).code;  // all(scalar) is the scalar
    const Type result = r.result == Rule::ScalarOfArg  ? st
                        : r.result == Rule::BoolScalar ? Type::scalar(K::Bool)
                                                       : t;
    return Value{code, result, false, false, std::nullopt};
  }

  // The GLSL literal of a folded scalar constant of type `t`.
  static std::string literalOf(double v, const Type& t, SourcePos pos) {
    if (t.k == K::Bool) return v != 0 ? "true" : "false";
    if (t.isFloat()) return f32Literal(v, pos);
    if (t.k == K::U32) return std::to_string(static_cast<int64_t>(v)) + "u";
    return i32Literal(v);
  }

  // min, max, abs and clamp on constant scalars are const-expressions (WGSL evaluates them at
  // shader creation): `const c = max(1, 2);` is the abstract-int 2. Abstract arguments stay
  // abstract; f32 folds in float; abs of the most negative i32 wraps, as at run time.
  std::optional<Value> foldNumeric(const std::string& f, const std::vector<Value>& a,
                                   const Expr& e) {
    for (const Value& v : a) {
      if (!v.constant || !v.type.isScalar()) return std::nullopt;
    }
    const Type t = a[0].type;
    std::vector<double> x;
    for (size_t i = 0; i < a.size(); ++i) {
      double c = *convert(a[i], t, e.args[i]->pos).constant;
      if (t.k == K::F32) c = static_cast<float>(c);
      x.push_back(c);
    }
    double v = 0;
    if (f == "min") v = std::min(x[0], x[1]);
    if (f == "max") v = std::max(x[0], x[1]);
    if (f == "abs") v = t.k == K::I32 && x[0] == -2147483648.0 ? x[0] : std::fabs(x[0]);
    if (f == "clamp") {
      if (x[1] > x[2])
        fail(e.pos, "clamp called with 'low' (" + literalOf(x[1], t, e.pos) +
                        ") greater than 'high' (" + literalOf(x[2], t, e.pos) + ")");
      v = std::min(std::max(x[0], x[1]), x[2]);
    }
    return lit(literalOf(v, t, e.pos), t, v);
  }

  enum class LoopKind { Plain, WithContinuing, Switch, Continuing };

  const Module& m_;
  std::string entryName_;  // the @compute function to lower; empty: the first
  Lowered out_;
  std::string header_, decls_, body_;
  struct ZeroAtEntry {
    std::string name;  // GLSL name
    Type type;
    bool workgroup;  // else private
  };
  std::vector<ZeroAtEntry> zeroAtEntry_;
  std::vector<std::map<std::string, Symbol>> scopes_{1};
  std::map<std::string, std::vector<std::pair<std::string, Type>>> structs_;
  std::map<std::string, std::pair<std::vector<Type>, Type>> functions_;
  Type returnType_;
  std::vector<LoopKind> loops_;
  std::vector<std::string> breakFlags_;
  int locals_ = 0;
  int inContinuing_ = 0;
  std::vector<Taint> flowStack_;
  std::vector<std::pair<size_t, size_t>> exitFlow_;  // flow entries a break / continue leaves
  Taint returnedTaint_ = 0, returnTaint_ = 0, requiredTaint_ = 0;  // the current function's
  bool functionUsesBarrier_ = false;
  std::set<std::string> barrierFunctions_;
  std::map<std::string, Taint> returnTaints_, requiredParams_;  // per function, by parameter
  std::map<const Stmt*, Taint> loopTaint_, declTaint_;            // the loop fixed point
  std::set<const Stmt*> activeLoops_;
  bool inLoopFixedPoint_ = false, changed_ = false;
  std::set<std::string> moduleFunctions_;
  uint32_t nextOverrideId_ = 0;
};

}  // namespace

Lowered lower(const Module& module, const std::string& entryPoint) {
  return Lowerer(module, entryPoint).run();
}

}  // namespace wgsl::detail
