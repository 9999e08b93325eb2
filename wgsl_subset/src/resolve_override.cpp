// The resolver's overrides in @workgroup_size, and array counts that are overrides or
// override-expressions.
#include <algorithm>

#include "override_count.h"
#include "resolver.h"

namespace wgsl::detail {
namespace {
using K = Type::K;
}  // namespace

// array<T, N> with N an override (WGSL allows it only as a var<workgroup>'s store type): a
// specialization-constant length, which the shim sets from the pipeline's constants and checks
// against maxComputeWorkgroupStorageSize. A count that is another override-expression (`N * 2u`)
// is a hidden specialization constant (Reflection::computedCounts) that the shim computes.
Type Resolver::overrideSizedArray(const TypeExpr& t, const Type& element, bool allowed) {
  const Expr& count = *t.count;
  if (!allowed)
    unsupported(count.pos, "override-sized array other than the store type of a var<workgroup>");
  ir::Variable* o = count.kind == Expr::Kind::Ident ? lookup(count.text) : nullptr;
  if (!o || o->kind != ir::Variable::Kind::Override) return computedCountArray(count, element);
  if (o->type.k != K::I32 && o->type.k != K::U32)
    fail(count.pos, "array count must be an i32 or u32 override, got " + o->type.wgsl());
  int64_t n = 1;
  if (o->init) {
    n = static_cast<int64_t>(*o->init->constant);
    if (n <= 0)
      fail(count.pos, "array count (" + std::to_string(n) + ", the default of '" + o->name +
                          "') must be greater than 0");
    if (n > (1 << 24))
      unsupported(count.pos, "array of more than 16777216 elements (" + std::to_string(n) + ")");
  }
  o->arrayCount = true;
  Type a = Type::array(element, static_cast<int>(n));
  a.name = o->name;
  return a;
}

// An override-expression count: a hidden override (`__count_K`, declared before the variable;
// its SpecId is picked once every override has its own) whose value the shim computes from the
// reflection's program. Its default is the expression's with the overrides' defaults (1 when
// one has none or it fails: pipeline creation then checks the real value).
Type Resolver::computedCountArray(const Expr& count, const Type& element) {
  X c = expr(count);
  if (c->type.k != K::I32 && c->type.k != K::U32)
    fail(count.pos, "array count must be an i32 or u32 override-expression, got " + c->type.wgsl());
  ComputedCount computed;
  if (std::string why = overrideCountProgram(c, computed.program, computed.text); !why.empty())
    unsupported(count.pos, "override-expression array count with " + why);
  const CountValue d = evaluateCount(computed, [&](uint32_t id) -> std::optional<double> {
    for (const OverrideInfo& o : reflection_.overrides) {
      if (o.id == id) return o.defaultValue;
    }
    return std::nullopt;
  });
  int64_t n = d.value.value_or(1);
  if (n > (1 << 24)) n = 1;  // the shim's storage check rejects it with the pipeline's values
  if (d.value) computed.defaultValue = static_cast<double>(n);
  ir::Variable* hidden =
      newVariable({.kind = ir::Variable::Kind::Override,
                   .name = "__count_" + std::to_string(reflection_.computedCounts.size()),
                   .pos = count.pos,
                   .type = c->type,
                   .init = literal(static_cast<double>(n), c->type, count.pos),
                   .arrayCount = true});
  computedCountVariables_.push_back(hidden);
  hiddenCounts_.push_back(hidden);
  reflection_.computedCounts.push_back(std::move(computed));
  Type a = Type::array(element, static_cast<int>(n));
  a.name = hidden->name;
  return a;
}

// The hidden count overrides take the largest SpecIds glslang accepts (below 2047) that no
// override uses.
void Resolver::assignCountIds() {
  uint32_t next = 2046;
  for (size_t i = 0; i < hiddenCounts_.size(); ++i) {
    const auto taken = [&](uint32_t id) {
      for (const OverrideInfo& o : reflection_.overrides) {
        if (o.id == id) return true;
      }
      return false;
    };
    while (taken(next)) --next;  // at most 2047 overrides can be taken
    hiddenCounts_[i]->overrideId = next;
    reflection_.computedCounts[i].id = next--;
  }
}

// The override a @workgroup_size argument names (null when it names none). Other
// override-expressions (`wg * 2u`) would need a computed specialization constant, which GLSL's
// local_size_*_id cannot express: outside the subset.
const ir::Variable* Resolver::workgroupSizeOverride(const Expr& e) {
  const Expr* x = &e;
  while (x->kind == Expr::Kind::Paren) x = x->args[0].get();
  if (x->kind == Expr::Kind::Ident) {
    const ir::Variable* v = lookup(x->text);
    if (v && v->kind == ir::Variable::Kind::Override) return v;
  }
  if (usesOverride(e))
    unsupported(e.pos, "override-expression in @workgroup_size other than a single override");
  return nullptr;
}

bool Resolver::usesOverride(const Expr& e) {  // bounded: the parser limits expression depth
  if (e.kind == Expr::Kind::Ident) {
    for (const auto& o : reflection_.overrides) {
      if (o.name == e.text) return true;
    }
  }
  for (const auto& a : e.args) {
    if (usesOverride(*a)) return true;
  }
  return false;
}

}  // namespace wgsl::detail
