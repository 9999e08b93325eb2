#include "index_bounds.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace wgsl::detail {
namespace {

using EK = ir::Expr::Kind;
using K = Type::K;
using Bound = std::optional<uint64_t>;

constexpr uint64_t kU32Max = 0xFFFFFFFFull;

Bound fits(uint64_t v) {
  return v <= kU32Max ? Bound(v) : std::nullopt;
}

Bound smaller(Bound a, Bound b) {
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

Bound larger(Bound a, Bound b) {
  if (a && b) return std::max(*a, *b);
  return std::nullopt;
}

// The largest value of an operation whose operands are at most a and b, where it is known.
Bound binary(const std::string& op, Bound a, Bound b, const ir::Expr* rhs) {
  if (op == "&") return smaller(a, b);
  if (op == "%") return smaller(a, b ? Bound(*b ? *b - 1 : 0) : std::nullopt);  // x % 0 is 0
  // Shifting right and dividing only lower x, by at least a constant amount; the writer masks
  // shift amounts to 0..31, and x / 0 is x.
  const bool known = rhs->constant && *rhs->constant >= 0 && *rhs->constant <= kU32Max;
  const uint64_t c = known ? static_cast<uint64_t>(*rhs->constant) : 0;
  if (op == ">>") return a.value_or(kU32Max) >> (c & 31);
  if (op == "/") return c >= 1 ? a.value_or(kU32Max) / c : a;
  if (!a) return std::nullopt;
  if (op == "<<") return known ? fits(*a << (c & 31)) : std::nullopt;
  if (!b) return std::nullopt;
  if (op == "+") return fits(*a + *b);
  if (op == "*") return fits(*a * *b);
  if (op == "|" || op == "^") return std::bit_ceil(std::max(*a, *b) + 1) - 1;
  return std::nullopt;
}

}  // namespace

IndexBounds::IndexBounds(const ir::Module& module) {
  for (const ir::Function& f : module.functions) function(f);
}

void IndexBounds::function(const ir::Function& f) {
  entry_ = f.entryPoint ? &f : nullptr;
  for (const ir::Stmt* s : f.body) stmt(s);
}

// Statements in program order, so a `let` has its bound before any use of it is asked about.
void IndexBounds::stmt(const ir::Stmt* s) {
  if (!s) return;
  for (const ir::Expr* e : {s->target, s->value, s->rhs, s->compare}) visit(e);
  if (s->kind == ir::Stmt::Kind::Declare && s->var && s->var->kind == ir::Variable::Kind::Let)
    lets_[s->var] = s->value ? max(s->value) : std::nullopt;
  stmt(s->init);
  for (const ir::Stmt* b : s->body) stmt(b);
  for (const ir::Stmt* b : s->elseBody) stmt(b);
  for (const ir::Stmt* b : s->continuing) stmt(b);
  stmt(s->update);
  for (const ir::Stmt::Case& c : s->cases)
    for (const ir::Stmt* b : c.body) stmt(b);
}

void IndexBounds::visit(const ir::Expr* e) {  // bounded: the parser limits expression nesting
  if (!e) return;
  for (const ir::Expr* a : e->args) visit(a);
  if (e->kind != EK::Index || e->args.size() != 2) return;
  const Type& base = e->args[0]->type;
  const Type& t = base.k == K::Ptr && base.elem ? *base.elem : base;
  // Runtime-sized and override-sized arrays: the length is unknown here, so the clamp stays.
  if ((t.k != K::Array && t.k != K::Vec) || t.n <= 0 || t.overrideSized()) return;
  if (const Bound b = max(e->args[1]); b && *b < static_cast<uint64_t>(t.n)) inRange_.insert(e);
}

Bound IndexBounds::max(const ir::Expr* e) const {
  if (e->constant) {
    const double v = *e->constant;
    if (v >= 0 && v <= static_cast<double>(kU32Max) && v == std::floor(v))
      return static_cast<uint64_t>(v);
    return std::nullopt;
  }
  if (e->type.k != K::U32) return std::nullopt;
  switch (e->kind) {
    case EK::Paren:
      return max(e->args[0]);
    case EK::Ref: {
      const ir::Variable* v = e->var;
      if (v->kind == ir::Variable::Kind::Let) {
        auto it = lets_.find(v);
        return it != lets_.end() ? it->second : std::nullopt;
      }
      if (v->kind == ir::Variable::Kind::Const && v->inlined) return max(v->inlined);
      if (v->kind == ir::Variable::Kind::Param && entry_ &&
          v->builtin == "local_invocation_index" &&
          std::none_of(entry_->workgroupSizeOverrides.begin(), entry_->workgroupSizeOverrides.end(),
                       [](auto* o) { return o; })) {
        const auto& w = entry_->workgroupSize;
        return uint64_t{w[0]} * w[1] * w[2] - 1;
      }
      return std::nullopt;
    }
    case EK::Swizzle: {  // one component of @builtin(local_invocation_id)
      const ir::Expr* base = e->args[0];
      if (base->kind != EK::Ref || !entry_ || base->var->kind != ir::Variable::Kind::Param ||
          base->var->builtin != "local_invocation_id" || e->name.size() != 1)
        return std::nullopt;
      const size_t axis = e->name == "x" ? 0 : e->name == "y" ? 1 : e->name == "z" ? 2 : 3;
      if (axis > 2 || entry_->workgroupSizeOverrides[axis]) return std::nullopt;
      return uint64_t{entry_->workgroupSize[axis]} - 1;
    }
    case EK::Binary:
      return binary(e->name, max(e->args[0]), max(e->args[1]), e->args[1]);
    case EK::Convert:
      return e->args[0]->type.k == K::U32 ? max(e->args[0]) : std::nullopt;
    case EK::Select:
      return larger(max(e->args[0]), max(e->args[1]));
    case EK::Builtin: {
      if (e->name == "min" && e->args.size() == 2) return smaller(max(e->args[0]), max(e->args[1]));
      if ((e->name == "max" && e->args.size() == 2) || (e->name == "clamp" && e->args.size() == 3))
        return larger(max(e->args[e->args.size() - 2]), max(e->args.back()));
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace wgsl::detail
