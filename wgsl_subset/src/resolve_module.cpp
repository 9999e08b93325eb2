// The resolver at module scope: declarations in dependency order, types, structs, resources,
// consts and overrides, function signatures and the compute entry points' interface.
#include <algorithm>
#include <set>

#include "declaration_order.h"
#include "layout.h"
#include "resolver.h"

namespace wgsl::detail {
namespace {

using K = Type::K;

bool hasAttr(const std::vector<Attribute>& attrs, const char* name) {
  return std::any_of(attrs.begin(), attrs.end(),
                     [&](const Attribute& a) { return a.name == name; });
}

const Attribute* attr(const std::vector<Attribute>& attrs, const char* name) {
  for (const auto& a : attrs) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

// The single argument of an attribute such as @group(0).
const Expr& attrArg(const Attribute& a) {
  if (a.args.size() != 1) fail(a.pos, "@" + a.name + " takes exactly one argument");
  return *a.args[0];
}

}  // namespace

void resolve(const Module& module, const Options& options, ir::Module& out,
             Reflection& reflection) {
  Resolver(module, options, out, reflection).run();
}

// `enable f16;` and `enable subgroups;` need the device features of the same name (WebGPU's
// shader-f16 and subgroups); the parser stops at any other extension.
void Resolver::enableExtensions() {
  for (const Enable& e : m_.enables) {
    if (e.name == "f16") {
      if (!options_.shaderF16)
        fail(e.pos, "f16 requires the shader-f16 feature, which this device does not have enabled");
      f16_ = true;
    } else if (e.name == "subgroups") {
      if (!options_.subgroups)
        fail(e.pos,
             "subgroups requires the subgroups feature, which this device does not have enabled");
      subgroups_ = true;
    }
  }
  out_.f16 = f16_;
  out_.subgroups = subgroups_;
  out_.subgroupUniformityOff = m_.subgroupUniformityOff;
}

void Resolver::requireF16(SourcePos pos) {
  if (!f16_) fail(pos, "f16 type used without 'enable f16;'");
}

void Resolver::run() {
  enableExtensions();
  // Every @compute function is an entry point; `entry` names the one asked for. WGSL never
  // calls an entry point, so they are not callable functions here.
  const Function* entry = nullptr;
  for (const auto& f : m_.functions) {
    for (const auto& a : f.attributes) {
      if (a.name == "vertex" || a.name == "fragment")
        unsupported(a.pos, "@" + a.name + " entry point (compute only)");
    }
    moduleFunctions_.insert(f.name);
    if (!hasAttr(f.attributes, "compute")) continue;
    reflection_.entryPoints.push_back(f.name);
    if (!entry && (entryName_.empty() || f.name == entryName_)) entry = &f;
  }
  if (!entry && !entryName_.empty()) {
    std::string known;
    for (const auto& n : reflection_.entryPoints) known += (known.empty() ? "'" : ", '") + n + "'";
    fail(SourcePos{1, 1}, "no @compute entry point named '" + entryName_ + "'" +
                              (known.empty() ? std::string() : " (the module has " + known + ")"));
  }
  entryDecl_ = entry;
  using DK = DeclarationRef::Kind;
  using IK = ir::Declaration::Kind;
  for (const DeclarationRef& d : declarationOrder(m_)) {
    if (d.kind == DK::Struct) {
      declareStruct(m_.structs[d.index]);
      out_.order.push_back({IK::Struct, m_.structs[d.index].name, nullptr, nullptr});
    } else if (d.kind == DK::Global) {
      declareGlobal(m_.globals[d.index]);
      for (const ir::Variable* c : computedCountVariables_)  // a count the variable's type uses
        out_.order.push_back({IK::Global, {}, c, nullptr});
      computedCountVariables_.clear();
      out_.order.push_back({IK::Global, {}, lookup(m_.globals[d.index].name), nullptr});
    } else {
      const Function& f = m_.functions[d.index];
      ir::Function& fn = out_.functions.emplace_back();
      declareFunction(f, fn);
      if (!fn.entryPoint) functions_[f.name] = &fn;
      if (&f == entry) out_.entry = &fn;
      out_.order.push_back({IK::Function, {}, nullptr, &fn});
    }
  }
  assignCountIds();
  // Aliases are expanded away before this stage; an unused one must still name a valid type.
  aliasCheck_ = true;  // an alias may name an override-sized array for a var<workgroup>
  for (const AliasDecl& a : m_.aliases) {
    overrideArrayAllowed_ = true;
    (void)resolveType(a.type);
    overrideArrayAllowed_ = false;
  }
  aliasCheck_ = false;
  for (const auto& a : m_.constAsserts) constAssert(*a);
  if (!out_.entry) return;  // the validator says so, after the functions' own errors
  // Two resources at one @group/@binding: an error if the entry point uses both; else valid
  // WGSL, but the writer declares every resource: outside the subset.
  std::set<std::string> used;
  std::set<const ir::Function*> seen;
  usedGlobals(*out_.entry, used, seen);
  for (const BindingClash& c : bindingClashes_) {
    if (used.contains(c.first) && used.contains(c.second))
      fail(c.pos, "entry point '" + out_.entry->name + "' uses '" + c.first + "' and '" + c.second +
                      "', which have the same @group and @binding");
  }
  for (const BindingClash& c : bindingClashes_)
    unsupported(c.pos,
                "two resources at one @group/@binding ('" + c.first + "' and '" + c.second + "')");
  reflection_.entryPoint = out_.entry->name;
  reflection_.workgroupSize = out_.entry->workgroupSize;
  for (size_t i = 0; i < 3; ++i) {
    const ir::Variable* o = out_.entry->workgroupSizeOverrides[i];
    if (!o) continue;
    reflection_.workgroupSizeOverrides[i] = o->name;
    for (size_t k = 0; k < hiddenCounts_.size(); ++k) {  // a computed one: its expression
      if (hiddenCounts_[k] == o)
        reflection_.workgroupSizeOverrides[i] = reflection_.computedCounts[k].text;
    }
  }
}

// ---- names ----

ir::Variable* Resolver::lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    if (auto f = it->find(name); f != it->end()) return f->second;
  }
  return nullptr;
}

void Resolver::define(SourcePos pos, const std::string& name, ir::Variable* v) {
  if (scopes_.back().contains(name)) fail(pos, "redeclaration of '" + name + "' in the same scope");
  scopes_.back()[name] = v;
}

ir::Variable* Resolver::newVariable(ir::Variable v) {
  out_.variables.push_back(std::move(v));
  return &out_.variables.back();
}

// ---- types ----

int64_t Resolver::constInt(const Expr& e, const char* what) {
  const ir::Expr* v = expr(e);
  if (!v->constant || !v->type.isInteger())
    fail(e.pos, std::string(what) + " must be a constant integer expression");
  return static_cast<int64_t>(*v->constant);
}

Type Resolver::resolveType(const TypeExpr& t) {
  if (lookup(t.name)) fail(t.pos, "'" + t.name + "' is a value, not a type");
  if (moduleFunctions_.contains(t.name))
    fail(t.pos, "cannot use function '" + t.name + "' as type");
  if (t.name == "f32") return Type::scalar(K::F32);
  if (t.name == "i32") return Type::scalar(K::I32);
  if (t.name == "u32") return Type::scalar(K::U32);
  if (t.name == "bool") return Type::scalar(K::Bool);
  if (t.name == "f16") {
    requireF16(t.pos);
    return Type::scalar(K::F16);
  }
  if (t.name == "vec2" || t.name == "vec3" || t.name == "vec4") {
    if (t.args.size() != 1)
      fail(t.pos, t.name + " needs an element type, e.g. " + t.name + "<f32>");
    const Type e = resolveType(t.args[0]);
    if (!e.isScalar() || e.isAbstract())
      fail(t.args[0].pos,
           "vector element type must be bool, i32, u32, f32 or f16, got " + e.wgsl());
    return Type::vec(t.name[3] - '0', e);
  }
  if (t.name == "vec2h" || t.name == "vec3h" || t.name == "vec4h") {
    requireF16(t.pos);
    return Type::vec(t.name[3] - '0', Type::scalar(K::F16));
  }
  if (t.name == "vec2f" || t.name == "vec3f" || t.name == "vec4f")
    return Type::vec(t.name[3] - '0', Type::scalar(K::F32));
  if (t.name == "vec2u" || t.name == "vec3u" || t.name == "vec4u")
    return Type::vec(t.name[3] - '0', Type::scalar(K::U32));
  if (t.name == "vec2i" || t.name == "vec3i" || t.name == "vec4i")
    return Type::vec(t.name[3] - '0', Type::scalar(K::I32));
  if (t.name == "array") {
    if (t.args.size() != 1) fail(t.pos, "array needs an element type");
    const bool overrideAllowed = overrideArrayAllowed_;  // the outermost type only
    overrideArrayAllowed_ = false;
    const Type e = valueType(t.args[0]);
    if (!runtimeSizedIn(e).empty())
      fail(t.pos, "an array element type cannot contain a runtime-sized array");
    int n = 0;
    if (t.count) {
      if (usesOverride(*t.count)) return overrideSizedArray(t, e, overrideAllowed);
      const int64_t c = constInt(*t.count, "array element count");
      if (c <= 0)
        fail(t.count->pos, "array count (" + std::to_string(c) + ") must be greater than 0");
      if (c > (1 << 24))
        unsupported(t.count->pos,
                    "array of more than 16777216 elements (" + std::to_string(c) + ")");
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
  if (const int c = matrixColumns(t.name)) {  // matCxR<f32>, matCxRf
    const int r = t.name[5] - '0';
    if (t.name.size() == 7) {
      if (t.name[6] == 'h') requireF16(t.pos);
      return Type::mat(c, r, t.name[6] == 'h' ? K::F16 : K::F32);
    }
    if (t.args.size() != 1)
      fail(t.pos, t.name + " needs an element type, e.g. " + t.name + "<f32>");
    const Type e = resolveType(t.args[0]);
    if (e.k == K::F32 || e.k == K::F16) return Type::mat(c, r, e.k);
    fail(t.args[0].pos, "matrix element type must be f32 or f16, got " + e.wgsl());
  }
  if (t.name == "ptr") return pointerType(t);
  if (t.name.starts_with("texture") || t.name.starts_with("sampler"))
    unsupported(t.pos, "texture and sampler types");
  if (out_.structs.contains(t.name)) return Type{K::Struct, 0, nullptr, t.name};
  if (t.name == "buffer") unsupported(t.pos, "'buffer' types");
  fail(t.pos, "unknown type '" + t.name + "'");
}

// ptr<space, T[, access]>: function, private and workgroup pointers are read_write; storage ones
// read unless said; uniform ones read.
Type Resolver::pointerType(const TypeExpr& t) {
  if (t.args.size() != 1 || t.accessArgs.empty())
    fail(t.pos, "ptr needs an address space and a store type, e.g. ptr<function, f32>");
  const std::string& space = t.accessArgs[0];
  static const std::set<std::string> spaces = {"function", "private", "workgroup", "storage",
                                               "uniform"};
  if (space == "handle" || space == "push_constant" || space == "immediate")
    unsupported(t.pos, "address space '" + space + "'");
  if (!spaces.contains(space)) fail(t.pos, "unknown address space '" + space + "'");
  overrideArrayAllowed_ = space == "workgroup";  // a pointer to a var<workgroup>'s store type
  const Type e = resolveType(t.args[0]);
  overrideArrayAllowed_ = false;
  if (e.k == K::Ptr || e.k == K::Void) fail(t.args[0].pos, "invalid pointer store type");
  if (!runtimeSizedIn(e).empty() && space != "storage")
    fail(t.args[0].pos, "runtime-sized arrays can only be used in the <storage> address space");
  bool readWrite = space != "storage" && space != "uniform";
  if (t.accessArgs.size() > 1) {
    const std::string& access = t.accessArgs[1];
    if (space != "storage")
      fail(t.pos, "only pointers in <storage> address space may specify an access mode");
    if (access != "read" && access != "read_write")
      fail(t.pos, "invalid access mode '" + access + "'");
    readWrite = access == "read_write";
  }
  return Type::ptr(space, e, readWrite);
}

// A type that values and variables may have: no pointer.
Type Resolver::valueType(const TypeExpr& t) {
  Type r = resolveType(t);
  if (r.k == K::Ptr)
    fail(t.pos, "a pointer type is only allowed for function parameters and 'let'");
  return r;
}

// The first type inside `t` that cannot live in a buffer ("" when none).
std::string Resolver::nonHostShareable(const Type& t) {
  if (t.k == K::Bool) return "bool";
  if (t.elem) {
    if (std::string b = nonHostShareable(*t.elem); !b.empty()) return b;
  }
  if (t.k == K::Struct) {
    for (const auto& [mn, mt] : out_.structs[t.name]) {
      if (std::string b = nonHostShareable(mt); !b.empty()) return b;
    }
  }
  return "";
}

// ---- declarations ----

void Resolver::declareStruct(const StructDecl& s) {
  if (out_.structs.contains(s.name)) fail(s.pos, "redeclaration of struct '" + s.name + "'");
  ir::StructMembers members;
  ir::StructLayout layout;
  uint64_t end = 0;
  for (size_t i = 0; i < s.members.size(); ++i) {
    const StructMember& m = s.members[i];
    const Type t = valueType(m.type);
    if (t.k == K::Array && t.n == 0 && i + 1 != s.members.size())
      fail(m.pos, "runtime arrays may only appear as the last member of a struct");
    if (const std::string r = runtimeSizedIn(t); !r.empty() && !(t.k == K::Array && t.n == 0))
      fail(m.type.pos, "a struct member cannot hold a runtime-sized array (" + r + ")");
    for (const auto& [mn, mt] : members) {
      if (mn == m.name) fail(m.pos, "redefinition of '" + m.name + "'");
    }
    // WGSL's layout: @align(n) and @size(n) replace the member's alignment and size.
    uint64_t align = alignOf(t, out_.layouts), size = sizeOf(t, out_.layouts);
    for (const Attribute* a = attr(m.attributes, "align"); a; a = nullptr) {
      const int64_t v = constInt(attrArg(*a), "@align");
      if (v <= 0 || (v & (v - 1)) != 0)
        fail(a->pos, "'@align' value must be a positive, power-of-two integer");
      if (v % static_cast<int64_t>(align) != 0)
        fail(attrArg(*a).pos,
             "alignment must be a multiple of '" + std::to_string(align) + "' bytes");
      align = static_cast<uint64_t>(v);
    }
    for (const Attribute* a = attr(m.attributes, "size"); a; a = nullptr) {
      if (t.k == K::Array && t.n == 0)
        fail(a->pos,
             "@size can only be applied to members where the member's type size can be "
             "fully determined at shader creation time");
      const int64_t v = constInt(attrArg(*a), "@size");
      if (v <= 0) fail(a->pos, "'@size' value must be a positive integer");
      if (static_cast<uint64_t>(v) < size)
        fail(a->pos,
             "'@size' must be at least as big as the type's size (" + std::to_string(size) + ")");
      size = static_cast<uint64_t>(v);
    }
    std::string builtin;  // @builtin(name): meaningful where S is an entry point's parameter
    if (const Attribute* a = attr(m.attributes, "builtin")) {
      if (a->args.size() != 1 || a->args[0]->kind != Expr::Kind::Ident)
        fail(a->pos, "@builtin takes the name of a builtin value");
      builtin = a->args[0]->text;
    }
    out_.memberBuiltins[s.name].push_back(builtin);
    const uint64_t offset = (end + align - 1) / align * align;
    // GLSL pads the gaps with members (layout.h); a bound keeps that small.
    if (offset + size > (1u << 20))
      unsupported(m.pos, "struct larger than 1 MiB (member '" + m.name + "' ends at byte " +
                             std::to_string(offset + size) + ")");
    layout.offsets.push_back(static_cast<uint32_t>(offset));
    layout.align = std::max<uint32_t>(layout.align, static_cast<uint32_t>(align));
    end = offset + size;
    members.emplace_back(m.name, t);
  }
  layout.size = static_cast<uint32_t>((end + layout.align - 1) / layout.align * layout.align);
  out_.structs[s.name] = std::move(members);
  out_.layouts[s.name] = std::move(layout);
  const GlslStruct glsl = glslStruct(s.name, out_.structs, out_.layouts);
  out_.layouts[s.name].glslAlign = glsl.align;
  // Gaps in a struct aligned to less than 16 bytes are filled with scalars: a bound on them.
  if (glsl.slots.size() > 4096)
    unsupported(s.pos, "struct '" + s.name +
                           "' whose @size/@align gaps need more than 4096 "
                           "padding members in GLSL");
}

// A description of the runtime-sized array inside `t` ("" when none).
std::string Resolver::runtimeSizedIn(const Type& t) {
  if (t.k == K::Array && t.n == 0) return t.wgsl();
  if (t.k == K::Array) return runtimeSizedIn(*t.elem);
  if (t.k == K::Struct) {
    for (const auto& [mn, mt] : out_.structs[t.name]) {
      if (std::string r = runtimeSizedIn(mt); !r.empty()) return "struct '" + t.name + "'";
    }
  }
  return "";
}

void Resolver::declareGlobal(const GlobalVar& g) {
  if (g.kind == GlobalVar::Kind::Const) return declareConst(g);
  if (g.kind == GlobalVar::Kind::Override) return declareOverride(g);
  if (g.addressSpace.empty())
    fail(g.pos, "module-scope 'var' '" + g.name + "' needs an address space, e.g. var<private>");
  const std::string& space = g.addressSpace;
  // var<private> v = expr; takes the initializer's (concrete) type.
  X init = !g.type && g.init && space == "private" ? expr(*g.init) : nullptr;
  if (!g.type && !init) fail(g.pos, "module-scope 'var' '" + g.name + "' needs a type");
  overrideArrayAllowed_ = space == "workgroup";
  const Type t = g.type ? valueType(*g.type) : concrete(init->type);
  overrideArrayAllowed_ = false;
  if (space != "storage") checkArrayCounts(t, g.type ? g.type->pos : g.pos);
  if (space != "storage" && !runtimeSizedIn(t).empty())
    fail(g.pos, "runtime-sized arrays can only be used in the <storage> address space");
  if (space == "storage" || space == "uniform") return declareResource(g, t);
  ir::Variable v{.kind = ir::Variable::Kind::Global,
                 .name = g.name,
                 .pos = g.pos,
                 .type = t,
                 .space = space,
                 .writable = true};
  if (space == "workgroup") {
    if (g.init) fail(g.init->pos, "workgroup variables cannot have an initializer");
    reflection_.workgroupStorageBytes += static_cast<uint32_t>(t.byteSize());
    define(g.pos, g.name, newVariable(std::move(v)));
    return;
  }
  if (space == "private") {
    if (g.init) v.init = convert(init ? init : expr(*g.init), t, g.init->pos);
    define(g.pos, g.name, newVariable(std::move(v)));
    return;
  }
  if (space == "function")
    fail(g.pos, "'function' address space is only for variables inside functions");
  if (space == "handle" || space == "push_constant" || space == "immediate")
    unsupported(g.pos, "address space '" + space + "'");
  fail(g.pos, "unknown address space '" + space + "'");
}

// A module-scope const: each use is its folded value.
void Resolver::declareConst(const GlobalVar& g) {
  if (!g.init) fail(g.pos, "const '" + g.name + "' needs an initializer");
  X v = expr(*g.init);
  if (!isConstExpr(v))
    fail(g.init->pos, "const '" + g.name + "' must be initialized with a constant expression");
  const Type t = g.type ? valueType(*g.type) : v->type;
  v = convert(v, t, g.init->pos);
  define(g.pos, g.name,
         newVariable({.kind = ir::Variable::Kind::Const,
                      .name = g.name,
                      .pos = g.pos,
                      .type = t,
                      .constant = v->constant,
                      .inlined = v}));
}

void Resolver::declareOverride(const GlobalVar& g) {
  if (!g.type && !g.init) fail(g.pos, "override '" + g.name + "' needs a type or an initializer");
  X init = g.init ? expr(*g.init) : nullptr;
  const Type t = g.type ? resolveType(*g.type) : concrete(init->type);
  if (!t.isScalar()) fail(g.pos, "override '" + g.name + "' must have a scalar type");
  uint32_t id = nextOverrideId_;
  if (const Attribute* a = attr(g.attributes, "id")) {
    const int64_t v = constInt(attrArg(*a), "@id");
    if (v < 0 || v > 65535)
      fail(attrArg(*a).pos, "@id value must be between 0 and 65535, got " + std::to_string(v));
    if (v > 2046)  // glslang's largest constant_id
      unsupported(attrArg(*a).pos, "@id(" + std::to_string(v) + ") above 2046");
    id = static_cast<uint32_t>(v);
    for (const auto& o : reflection_.overrides) {
      if (o.id == id)
        fail(attrArg(*a).pos,
             "@id(" + std::to_string(id) + ") is already used by override '" + o.name + "'");
    }
  } else {
    for (const auto& o : reflection_.overrides) {
      if (o.id == id) id = std::max(id, o.id + 1);
    }
  }
  nextOverrideId_ = std::max(nextOverrideId_, id + 1);
  std::optional<double> defaultValue;
  if (init) {
    if (!init->constant)
      fail(g.init->pos, "override '" + g.name + "' default must be a constant expression");
    init = convert(init, t, g.init->pos);
    defaultValue = init->constant;
  }
  reflection_.overrides.push_back({g.name, id, t.wgsl(), defaultValue});
  define(g.pos, g.name,
         newVariable({.kind = ir::Variable::Kind::Override,
                      .name = g.name,
                      .pos = g.pos,
                      .type = t,
                      .init = init,
                      .overrideId = id}));
}

void Resolver::declareResource(const GlobalVar& g, const Type& t) {
  const std::string& space = g.addressSpace;
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
  for (const auto& b : reflection_.bindings) {  // judged once the entry point is known (run)
    if (b.group == gi && b.binding == bi) bindingClashes_.push_back({b.name, g.name, g.pos});
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
  if (space == "uniform") {  // a std140 block: WGSL's layout where std140 agrees (layout.h)
    if (const std::string m = std140Mismatch(t, out_.structs, out_.layouts); !m.empty())
      unsupported(g.pos, "uniform buffer layout that std140 cannot express: " + m);
    if (const std::string r = runtimeSizedIn(t); !r.empty())
      fail(g.pos, "runtime-sized arrays can only be used in the <storage> address space");
  }
  std::string element;
  if (t.k == K::Array) {
    element = t.elem->wgsl();
  } else if (t.k == K::Struct) {
    element = t.name;
  } else {
    element = t.wgsl();
  }
  reflection_.bindings.push_back(
      {gi, bi, space == "storage" ? BindingInfo::Kind::Storage : BindingInfo::Kind::Uniform,
       readOnly, element, g.name});
  define(g.pos, g.name,
         newVariable({.kind = ir::Variable::Kind::Global,
                      .name = g.name,
                      .pos = g.pos,
                      .type = t,
                      .space = space,
                      .writable = space == "storage" && !readOnly,
                      .group = gi,
                      .binding = bi,
                      .readOnly = readOnly}));
}

// ---- functions ----

void Resolver::declareFunction(const Function& f, ir::Function& fn) {
  fn.name = f.name;
  fn.pos = f.pos;
  fn.entryPoint = hasAttr(f.attributes, "compute");
  scopes_.emplace_back();
  if (fn.entryPoint) {
    entryPointInterface(f, fn);
    fn.returnType = Type::scalar(K::Void);
  } else {
    fn.returnType = f.returnType ? valueType(*f.returnType) : Type::scalar(K::Void);
    if (!runtimeSizedIn(fn.returnType).empty())
      fail(f.returnType->pos, "a function cannot return a runtime-sized array");
    for (const auto& p : f.params) {
      if (!p.attributes.empty())
        fail(p.attributes[0].pos, "parameter attributes are only allowed on entry points");
      const Type t = resolveType(p.type);
      if (!runtimeSizedIn(t).empty())
        fail(p.type.pos, "a parameter cannot hold a runtime-sized array");
      ir::Variable* v = newVariable({.kind = ir::Variable::Kind::Param,
                                     .name = p.name,
                                     .pos = p.pos,
                                     .type = t,
                                     .paramIndex = fn.params.size()});
      define(p.pos, p.name, v);
      fn.params.push_back(v);
    }
  }
  returnType_ = fn.returnType;
  for (const auto& s : f.body) {  // the body shares the parameters' scope
    if (const ir::Stmt* st = stmt(*s)) fn.body.push_back(st);
  }
  scopes_.pop_back();
}

// A compute entry point: no result, @workgroup_size, and parameters that are all builtins.
void Resolver::entryPointInterface(const Function& f, ir::Function& fn) {
  if (f.returnType) fail(f.returnType->pos, "a compute entry point cannot return a value");
  const Attribute* ws = attr(f.attributes, "workgroup_size");
  if (!ws) fail(f.pos, "@compute entry point '" + f.name + "' needs @workgroup_size");
  if (ws->args.empty() || ws->args.size() > 3)
    fail(ws->pos, "@workgroup_size takes 1 to 3 arguments");
  std::optional<Type> argType;
  static const int64_t kMax[3] = {1024, 1024, 64};  // glslang's (and Vulkan's) minimum maxima
  for (size_t i = 0; i < ws->args.size(); ++i) {
    const Expr& a = *ws->args[i];
    X arg = expr(a);
    const Type at = arg->type;
    if (!at.isAbstract()) {
      if (argType && !(*argType == at))
        fail(a.pos, "@workgroup_size arguments must be of the same type, either i32 or u32");
      argType = at;
    }
    // An override (or one the shim computes from an override-expression) names a
    // specialization constant: the size is its default here and the pipeline's value at pipeline
    // creation (the shim reads local_size_*_id back).
    if (!arg->constant && usesOverride(a) && !at.isInteger())
      fail(a.pos,
           "'@workgroup_size' argument must be a constant or override-expression of type "
           "'abstract-integer', 'i32' or 'u32'");
    int64_t v = 0;
    // Only the entry point translated has its sizes computed (the others are left out).
    const ir::Variable* o = &f == entryDecl_ ? workgroupSizeOverride(a, arg) : nullptr;
    if (!o && &f != entryDecl_ && !arg->constant && usesOverride(a)) continue;
    if (o) {
      fn.workgroupSizeOverrides[i] = o;
      // WebGPU checks an override's size at pipeline creation, with the value the pipeline
      // gives it (the shim does, from the reflection's default); the SPIR-V's own default is
      // any valid size then.
      const double d = *o->init->constant;
      const bool inRange = d >= 1 && d <= static_cast<double>(kMax[i]);
      fn.workgroupSize[i] = inRange ? static_cast<uint32_t>(d) : 1;
      continue;
    }
    v = constInt(a, "@workgroup_size argument");
    if (v < 1)
      fail(a.pos, "@workgroup_size arguments must be at least 1, got " + std::to_string(v));
    if (v > kMax[i])
      fail(a.pos, "@workgroup_size argument " + std::to_string(v) + " exceeds the maximum (" +
                      std::to_string(kMax[i]) + ")");
    fn.workgroupSize[i] = static_cast<uint32_t>(v);
  }
  static const std::map<std::string, Type> builtins = {
      {"global_invocation_id", Type::vec(3, Type::scalar(K::U32))},
      {"local_invocation_id", Type::vec(3, Type::scalar(K::U32))},
      {"local_invocation_index", Type::scalar(K::U32)},
      {"workgroup_id", Type::vec(3, Type::scalar(K::U32))},
      {"num_workgroups", Type::vec(3, Type::scalar(K::U32))},
      {"subgroup_invocation_id", Type::scalar(K::U32)},
      {"subgroup_size", Type::scalar(K::U32)},
  };
  std::set<std::string> seen;  // each builtin once, directly or as a struct's member
  const auto check = [&](const std::string& name, const Type& t, SourcePos at, SourcePos typePos) {
    auto it = builtins.find(name);
    if (it == builtins.end()) unsupported(at, "builtin '" + name + "' in a compute shader");
    if (name.starts_with("subgroup_") && !subgroups_)
      fail(at, "@builtin(" + name + ") requires 'enable subgroups;'");
    if (!(t == it->second))
      fail(typePos,
           "@builtin(" + name + ") must have type " + it->second.wgsl() + ", got " + t.wgsl());
    if (!seen.insert(name).second)
      fail(at, "@builtin(" + name + ") appears multiple times as pipeline input");
  };
  for (const auto& p : f.params) {
    const Attribute* b = attr(p.attributes, "builtin");
    const Type t = resolveType(p.type);
    if (!b && t.k == K::Struct) {  // a struct whose members are all builtins
      const ir::StructMembers& members = out_.structs.at(t.name);
      const std::vector<std::string>& names = out_.memberBuiltins.at(t.name);
      for (size_t i = 0; i < members.size(); ++i) {
        if (names[i].empty())
          fail(p.pos, "member '" + members[i].first + "' of entry point parameter '" + p.name +
                          "' needs a @builtin(...) attribute");
        check(names[i], members[i].second, p.pos, p.pos);
      }
    } else {
      if (!b || b->args.size() != 1 || b->args[0]->kind != Expr::Kind::Ident)
        fail(p.pos, "entry point parameter '" + p.name + "' needs a @builtin(...) attribute");
      check(b->args[0]->text, t, b->pos, p.type.pos);
    }
    ir::Variable* v = newVariable({.kind = ir::Variable::Kind::Param,
                                   .name = p.name,
                                   .pos = p.pos,
                                   .type = t,
                                   .builtin = b ? b->args[0]->text : std::string(),
                                   .paramIndex = fn.params.size()});
    define(p.pos, p.name, v);
    fn.params.push_back(v);
  }
}

// The module-scope variables `f` and its callees refer to (by name).
void Resolver::usedGlobals(const ir::Function& f, std::set<std::string>& used,
                           std::set<const ir::Function*>& seen) {
  // Iteratively throughout: statements nest up to 128 deep, expressions 512, and call chains have
  // no limit (a chain of 4,000 functions overflowed the stack under AddressSanitizer).
  std::vector<const ir::Function*> functions{&f};
  std::vector<const ir::Expr*> exprs;
  std::vector<const ir::Stmt*> stmts;
  while (!functions.empty()) {
    const ir::Function* fn = functions.back();
    functions.pop_back();
    if (!seen.insert(fn).second) continue;
    stmts.assign(fn->body.begin(), fn->body.end());
    while (!stmts.empty()) {
      const ir::Stmt* s = stmts.back();
      stmts.pop_back();
      for (const ir::Expr* e : {s->target, s->value, s->rhs, s->compare}) {
        if (e) exprs.push_back(e);
      }
      for (const auto* body : {&s->body, &s->elseBody, &s->continuing})
        stmts.insert(stmts.end(), body->begin(), body->end());
      for (const ir::Stmt* st : {s->init, s->update}) {
        if (st) stmts.push_back(st);
      }
      for (const auto& c : s->cases) stmts.insert(stmts.end(), c.body.begin(), c.body.end());
    }
    while (!exprs.empty()) {
      const ir::Expr* e = exprs.back();
      exprs.pop_back();
      if (e->kind == ir::Expr::Kind::Ref && e->var->kind == ir::Variable::Kind::Global)
        used.insert(e->var->name);
      if (e->function) functions.push_back(e->function);
      exprs.insert(exprs.end(), e->args.begin(), e->args.end());
    }
  }
}

}  // namespace wgsl::detail
