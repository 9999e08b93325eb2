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

// An override-expression count: a hidden override (declared before the variable)
// that the shim computes.
Type Resolver::computedCountArray(const Expr& count, const Type& element) {
  X c = expr(count);
  if (c->type.k != K::I32 && c->type.k != K::U32)
    fail(count.pos, "array count must be an i32 or u32 override-expression, got " + c->type.wgsl());
  ir::Variable*& hidden = countsByPos_[{count.pos.line, count.pos.column}];
  if (!hidden && aliasCheck_) {  // an alias no declaration uses: its program is only checked
    ComputedCount unused;
    if (std::string why = overrideCountProgram(c, unused.program, unused.text); !why.empty())
      unsupported(count.pos, "override-expression array count with " + why);
    return Type::array(element, 1);
  }
  if (!hidden) {
    hidden = computedOverride(c, count.pos, "array count", 1 << 24);
    hidden->arrayCount = true;
    computedCountVariables_.push_back(hidden);
  }
  Type a = Type::array(element, static_cast<int>(*hidden->init->constant));
  a.name = hidden->name;
  return a;
}

// A hidden override whose value the shim computes at pipeline creation from the reflection's
// program of `c` (its SpecId is picked once every override has its own). Its default is `c`'s
// with the overrides' defaults, or 1 when one has none, the evaluation fails or the value is
// over `max`: pipeline creation then checks the real value.
ir::Variable* Resolver::computedOverride(X c, SourcePos pos, const std::string& what, int64_t max) {
  ComputedCount computed;
  if (std::string why = overrideCountProgram(c, computed.program, computed.text); !why.empty())
    unsupported(pos, "override-expression " + what + " with " + why);
  const CountValue d = evaluateCount(computed, [&](uint32_t id) -> std::optional<double> {
    for (const OverrideInfo& o : reflection_.overrides) {
      if (o.id == id) return o.defaultValue;
    }
    return std::nullopt;
  });
  int64_t n = d.value.value_or(1);
  if (n > max) n = 1;
  if (d.value) computed.defaultValue = static_cast<double>(*d.value);
  ir::Variable* hidden =
      newVariable({.kind = ir::Variable::Kind::Override,
                   // `__` + the expression + where it is: unique, never a WGSL name (WGSL
                   // reserves `__`), and Type::wgsl() shows the expression
                   .name = "__" + computed.text + "@" + std::to_string(pos.line) + ":" +
                           std::to_string(pos.column),
                   .pos = pos,
                   .type = c->type,
                   .init = literal(static_cast<double>(n), c->type, pos)});
  hiddenCounts_.push_back(hidden);
  reflection_.computedCounts.push_back(std::move(computed));
  return hidden;
}

// The hidden overrides take the largest SpecIds glslang accepts (below 2047) that no override
// uses.
void Resolver::assignCountIds() {
  uint32_t next = 2046;
  for (size_t i = 0; i < hiddenCounts_.size(); ++i) {
    const auto taken = [&](uint32_t id) {
      for (const OverrideInfo& o : reflection_.overrides) {
        if (o.id == id) return true;
      }
      return false;
    };
    while (next > 0 && taken(next)) --next;
    if (taken(next))
      unsupported(hiddenCounts_[i]->pos,
                  "an override-expression when overrides take every SpecId below 2047");
    hiddenCounts_[i]->overrideId = next;
    reflection_.computedCounts[i].id = next--;
  }
}

// The override a @workgroup_size argument `arg` (resolved: `value`) names, or a hidden one
// computed from the override-expression it is (an override without a default is one too: the
// pipeline must set it); null for a const-expression. The local_size_*_id of the dimension.
const ir::Variable* Resolver::workgroupSizeOverride(const Expr& arg, X value) {
  if (value->constant || !usesOverride(arg)) return nullptr;
  const Expr* x = &arg;
  while (x->kind == Expr::Kind::Paren) x = x->args[0].get();
  if (x->kind == Expr::Kind::Ident) {
    const ir::Variable* v = lookup(x->text);
    if (v && v->kind == ir::Variable::Kind::Override && v->init) return v;
  }
  if (value->type.k != K::I32 && value->type.k != K::U32) return nullptr;  // the caller says why
  return computedOverride(value, arg.pos, "in @workgroup_size", 1024);
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
