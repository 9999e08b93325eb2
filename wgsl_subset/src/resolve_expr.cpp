// The resolver's expressions: literals, names, operators, indexing and members, with WGSL's
// abstract numerics (exact, folded in double / int64, made concrete where a type is needed) and
// concrete const-expression folding.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "resolver.h"

namespace wgsl::detail {
namespace {

using K = Type::K;
using EK = ir::Expr::Kind;

bool isAbstractVector(const Type& t) {
  return t.k == K::Vec && t.elem->isAbstract();
}

// f32 and f16 values must be finite once rounded.
void checkFloat(double v, K k, SourcePos pos) {
  if (!std::isfinite(roundToFloat(v, k)))
    fail(pos, "value " + std::to_string(v) + " cannot be represented as " +
                  (k == K::F16 ? "f16" : "f32"));
}

}  // namespace

ir::Expr* Resolver::node(EK kind, SourcePos pos, Type type, std::vector<X> args) {
  ir::Expr& e = out_.exprs.emplace_back();
  e.kind = kind;
  e.pos = pos;
  e.type = std::move(type);
  e.args = std::move(args);
  return &e;
}

// A const-expression that cannot be evaluated is an error, except in the right operand of a
// short-circuiting `false &&` or `true ||`, which WGSL does not evaluate: there it is a zero.
const ir::Expr* Resolver::notEvaluable(SourcePos pos, const std::string& message, const Type& t) {
  if (!unevaluated_) fail(pos, message);
  return literal(0, t, pos);
}

const ir::Expr* Resolver::literal(double value, const Type& type, SourcePos pos) {
  const K fk = type.k == K::F16 ? K::F16 : K::F32;
  if (type.isFloat() && !std::isfinite(roundToFloat(value, fk)) && unevaluated_) value = 0;
  if (type.isFloat()) checkFloat(value, fk, pos);
  ir::Expr* e = node(EK::Literal, pos, type);
  e->constant = value;
  return e;
}

Type Resolver::concrete(const Type& t) {
  if (t.k == K::AbstractInt) return Type::scalar(K::I32);
  if (t.k == K::AbstractFloat) return Type::scalar(K::F32);
  if (t.k == K::Vec && t.elem->isAbstract()) return Type::vec(t.n, concrete(*t.elem));
  return t;
}

// Converts a value to `to` where WGSL converts implicitly (abstract → concrete); otherwise the
// types must already agree.
const ir::Expr* Resolver::convert(X v, const Type& to, SourcePos pos) {
  if (v->type == to) return v;
  if (v->type.isAbstract() && v->constant && to.isScalar()) {
    const double c = *v->constant;
    if (to.k == K::F32 || to.k == K::F16 || to.k == K::AbstractFloat) {
      const K fk = to.k == K::F16 ? K::F16 : K::F32;
      if (!std::isfinite(roundToFloat(c, fk)))
        return notEvaluable(
            pos,
            "value " + std::to_string(c) + " cannot be represented as " + Type::scalar(fk).wgsl(),
            to);
      return literal(to.k == K::AbstractFloat ? roundToFloat(c, K::F32) : roundToFloat(c, to.k), to,
                     pos);
    }
    if (v->type.k == K::AbstractFloat)
      fail(pos, "cannot convert an abstract float to " + to.wgsl() + " implicitly (use " +
                    to.wgsl() + "(...))");
    if (to.k == K::I32) {
      if (c < -2147483648.0 || c > 2147483647.0)
        return notEvaluable(
            pos, "value " + std::to_string(static_cast<int64_t>(c)) + " does not fit in i32", to);
      return literal(c, to, pos);
    }
    if (to.k == K::U32) {
      if (c < 0 || c > 4294967295.0)
        return notEvaluable(
            pos, "value " + std::to_string(static_cast<int64_t>(c)) + " does not fit in u32", to);
      return literal(c, to, pos);
    }
  }
  if (v->kind == EK::Ref && v->var->inlined && (v->type.isAbstract() || isAbstractVector(v->type)))
    return convert(v->var->inlined, to, pos);  // an abstract const: its value, made concrete
  if (isAbstractVector(v->type) && to.k == K::Vec && v->type.n == to.n) {
    if (v->type.elem->k == K::AbstractFloat && to.elem->isInteger())
      fail(pos, "cannot convert " + v->type.wgsl() + " to " + to.wgsl() + " implicitly");
    if (v->kind == EK::Construct) {  // vec3(1, 2, 3): each component made concrete
      std::vector<X> args;
      for (X a : v->args)
        args.push_back(
            convert(a, a->type.k == K::Vec ? Type::vec(a->type.n, *to.elem) : *to.elem, pos));
      return node(EK::Construct, v->pos, to, std::move(args));
    }
    return node(EK::Convert, pos, to, {v});
  }
  // An abstract value known only at run time (an element of an abstract vector by a run-time
  // index): its GLSL spelling is already an int or a float.
  if (v->type.isAbstract() && !v->constant && to.isScalar() && to.k != K::Bool &&
      !(v->type.k == K::AbstractFloat && to.isInteger()))
    return node(EK::Convert, pos, to, {v});
  fail(pos, "type mismatch: expected " + to.wgsl() + ", got " + v->type.wgsl());
}

// Unifies abstract operands with the other side's concrete type.
void Resolver::unify(X& l, X& r, SourcePos pos) {
  if (l->type == r->type) return;
  if (isAbstractVector(l->type) || isAbstractVector(r->type)) {
    // The abstract side takes the other's element type (abstract-int meets abstract-float:
    // abstract-float), keeping its own shape.
    const Type& ls = l->type.scalarType();
    const Type& rs = r->type.scalarType();
    Type elem = ls.isAbstract() ? rs : ls;
    if (ls.isAbstract() && rs.isAbstract())
      elem = Type::scalar(ls.k == K::AbstractFloat || rs.k == K::AbstractFloat ? K::AbstractFloat
                                                                               : K::AbstractInt);
    const auto shaped = [&](X v) {
      return v->type.k == K::Vec ? Type::vec(v->type.n, elem) : elem;
    };
    if (ls.isAbstract() && !(l->type == shaped(l))) l = convert(l, shaped(l), pos);
    if (rs.isAbstract() && !(r->type == shaped(r))) r = convert(r, shaped(r), pos);
    return;
  }
  if (l->type.isAbstract() && r->type.isAbstract()) {  // int meets float: both abstract float
    const Type af = Type::scalar(K::AbstractFloat);
    if (l->type.k == K::AbstractInt) l = literal(*l->constant, af, pos);
    if (r->type.k == K::AbstractInt) r = literal(*r->constant, af, pos);
    return;
  }
  if (l->type.isAbstract() && !r->type.isAbstract())
    l = convert(l, r->type.scalarType(), pos);
  else if (r->type.isAbstract() && !l->type.isAbstract())
    r = convert(r, l->type.scalarType(), pos);
}

// A const-expression without a folded scalar value: a vector, array or struct built from
// constants (`const v = vec3(1.0, 2.0, 3.0);`), which each use spells out.
bool Resolver::isConstExpr(X e) {  // bounded: the parser limits expression depth
  if (e->constant) return true;
  switch (e->kind) {
    case EK::Ref:
      return e->var->kind == ir::Variable::Kind::Const;
    case EK::Call:
    case EK::Atomic:
    case EK::Barrier:
    case EK::ArrayLength:
      return false;
    default:
      for (X a : e->args) {
        if (!isConstExpr(a)) return false;
      }
      return true;
  }
}

// WGSL bounds fixed-size arrays outside the storage address space (Tint's message).
void Resolver::checkArrayCounts(const Type& t, SourcePos pos) {
  if (t.k == K::Array && t.n >= 65536)
    fail(pos, "array count (" + std::to_string(t.n) + ") must be less than 65536");
  if (t.elem) checkArrayCounts(*t.elem, pos);
  if (t.k == K::Struct) {
    for (const auto& [name, mt] : out_.structs.at(t.name)) checkArrayCounts(mt, pos);
  }
}

const ir::Expr* Resolver::expr(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::BoolLit:
      return literal(e.text == "true" ? 1.0 : 0.0, Type::scalar(K::Bool), e.pos);
    case Expr::Kind::IntLit:
      return intLiteral(e);
    case Expr::Kind::FloatLit:
      return floatLiteral(e);
    case Expr::Kind::Paren: {
      X v = expr(*e.args[0]);
      ir::Expr* out = node(EK::Paren, e.pos, v->type, {v});
      out->constant = v->constant;
      out->assignable = v->assignable;  // `(*p).m = x`
      out->writable = v->writable;
      return out;
    }
    case Expr::Kind::Ident:
      return identifier(e);
    case Expr::Kind::Unary:
      return unary(e);
    case Expr::Kind::Binary: {
      X l = expr(*e.args[0]);
      // `false && x` and `true || x` do not evaluate x (its const-expressions included).
      const bool skipped = l->constant && ((e.text == "&&" && *l->constant == 0) ||
                                           (e.text == "||" && *l->constant != 0));
      unevaluated_ += skipped;
      X r = expr(*e.args[1]);
      unevaluated_ -= skipped;
      return binary(e.text, l, r, e.pos);
    }
    case Expr::Kind::Index:
      return index(e);
    case Expr::Kind::Member:
      return member(e);
    case Expr::Kind::Call:
      return call(e);
  }
  fail(e.pos, "unsupported expression");
}

const ir::Expr* Resolver::identifier(const Expr& e) {
  const ir::Variable* s = lookup(e.text);
  if (!s) {
    if (functions_.contains(e.text)) fail(e.pos, "function '" + e.text + "' used as a value");
    fail(e.pos, "unresolved identifier '" + e.text + "'");
  }
  using VK = ir::Variable::Kind;
  if (s->kind == VK::Global &&
      (s->space == "storage" || s->space == "uniform" || s->space == "workgroup") &&
      s->type.k != K::Array && s->type.k != K::Struct && s->type.k != K::Atomic &&
      !s->type.isScalar() && s->type.k != K::Vec && s->type.k != K::Mat)
    fail(e.pos, "cannot use '" + e.text + "' as a value");
  ir::Expr* out = node(EK::Ref, e.pos, s->type);
  out->var = s;
  out->assignable = s->kind == VK::Var || s->kind == VK::Global;
  out->writable = s->writable;
  out->constant = s->constant;
  return out;
}

const ir::Expr* Resolver::intLiteral(const Expr& e) {
  std::string t = e.text;
  char suffix = 0;
  if (t.back() == 'i' || t.back() == 'u') suffix = t.back(), t.pop_back();
  errno = 0;
  const bool hex = t.size() > 2 && (t[1] == 'x' || t[1] == 'X');
  const unsigned long long v =
      std::strtoull(hex ? t.c_str() + 2 : t.c_str(), nullptr, hex ? 16 : 10);
  if (errno == ERANGE || v > 9223372036854775807ull)
    fail(e.pos, "integer literal '" + e.text + "' is out of range");
  // Abstract integers are held in a double: exact up to 2^53.
  if (!suffix && v > (1ull << 53))
    unsupported(e.pos, "abstract-integer literal above 2^53 ('" + e.text + "')");
  const auto d = static_cast<double>(v);
  if (suffix == 'i') {
    if (v > 2147483647ull) fail(e.pos, "integer literal '" + e.text + "' does not fit in i32");
    return literal(d, Type::scalar(K::I32), e.pos);
  }
  if (suffix == 'u') {
    if (v > 4294967295ull) fail(e.pos, "integer literal '" + e.text + "' does not fit in u32");
    return literal(d, Type::scalar(K::U32), e.pos);
  }
  return literal(d, Type::scalar(K::AbstractInt), e.pos);
}

const ir::Expr* Resolver::floatLiteral(const Expr& e) {
  std::string digits = e.text;
  const bool suffixF = digits.back() == 'f', suffixH = digits.back() == 'h';
  if (suffixF || suffixH) digits.pop_back();
  const double v = std::strtod(digits.c_str(), nullptr);
  if (!std::isfinite(v)) fail(e.pos, "float literal '" + e.text + "' is out of range");
  if (suffixF || suffixH) {
    const K k = suffixH ? K::F16 : K::F32;
    if (suffixH) requireF16(e.pos);
    checkFloat(v, k, e.pos);
    return literal(roundToFloat(v, k), Type::scalar(k), e.pos);
  }
  return literal(v, Type::scalar(K::AbstractFloat), e.pos);
}

const ir::Expr* Resolver::unary(const Expr& e) {
  if (e.text == "&") return addressOf(e);
  X v = expr(*e.args[0]);
  if (e.text == "*") {
    if (v->type.k != K::Ptr)
      fail(e.pos, "cannot dereference an expression of type " + v->type.wgsl());
    return deref(v, e.pos);
  }
  if (v->type.k == K::Ptr) fail(e.pos, "unary '" + e.text + "' cannot take a pointer");
  const Type& st = v->type.scalarType();
  if (e.text == "-") {
    if (!st.isNumeric() || st.k == K::U32)
      fail(e.pos, "unary '-' needs a signed or float operand, got " + v->type.wgsl());
    if (v->constant && v->type.isScalar()) {
      const double c = -*v->constant;
      if (v->type.k == K::I32 && c > 2147483647.0)
        return literal(-2147483648.0, v->type, e.pos);  // wraps
      return literal(c, v->type, e.pos);
    }
    ir::Expr* out = node(EK::Unary, e.pos, v->type, {v});
    out->name = "-";
    return out;
  }
  if (e.text == "!") {
    if (v->type.k != K::Bool) fail(e.pos, "'!' needs a bool operand, got " + v->type.wgsl());
    ir::Expr* out = node(EK::Unary, e.pos, v->type, {v});
    out->name = "!";
    if (v->constant) out->constant = *v->constant == 0 ? 1 : 0;
    return out;
  }
  if (!st.isInteger()) fail(e.pos, "'~' needs an integer operand, got " + v->type.wgsl());
  if (v->type.k == K::AbstractInt) v = convert(v, Type::scalar(K::I32), e.pos);
  ir::Expr* out = node(EK::Unary, e.pos, v->type, {v});
  out->name = "~";
  return out;
}

const ir::Expr* Resolver::binary(const std::string& op, X l, X r, SourcePos pos) {
  const auto make = [&](const Type& t, std::optional<double> constant = std::nullopt) {
    ir::Expr* out = node(EK::Binary, pos, t, {l, r});
    out->name = op;
    out->constant = constant;
    return out;
  };
  if (op == "&&" || op == "||") {
    if (l->type.k != K::Bool || r->type.k != K::Bool)
      fail(pos,
           "'" + op + "' needs bool operands, got " + l->type.wgsl() + " and " + r->type.wgsl());
    std::optional<double> c;
    if (l->constant && r->constant)
      c = op == "&&" ? (*l->constant != 0 && *r->constant != 0)
                     : (*l->constant != 0 || *r->constant != 0);
    return make(l->type, c);
  }
  if (op == "<<" || op == ">>") {
    if (!l->type.scalarType().isInteger())
      fail(pos, "shift needs an integer left operand, got " + l->type.wgsl());
    if (l->type.k == K::AbstractInt && l->constant && r->constant && r->type.isInteger()) {
      // Abstract integers shift in 64 bits; held exactly up to 2^53.
      const auto a = static_cast<int64_t>(*l->constant);
      const auto b = static_cast<int64_t>(*r->constant);
      const std::string what = "'" + std::to_string(a) + " " + op + " " + std::to_string(b) + "'";
      if (b < 0 || b >= 64)
        fail(pos, "shift amount " + std::to_string(b) + " must be less than 64");
      const int64_t v = op == "<<" ? static_cast<int64_t>(static_cast<uint64_t>(a) << b) : a >> b;
      if (op == "<<" && (v >> b) != a) fail(pos, what + " cannot be represented as 'abstract-int'");
      if (v > (int64_t{1} << 53) || v < -(int64_t{1} << 53))
        unsupported(pos, "abstract-integer value above 2^53 (" + what + ")");
      return literal(static_cast<double>(v), l->type, pos);
    }
    if (l->type.k == K::AbstractInt) l = convert(l, Type::scalar(K::I32), pos);
    if (r->type.isAbstract()) r = convert(r, Type::scalar(K::U32), pos);
    if (r->type.scalarType().k != K::U32)
      fail(pos, "shift amount must be u32, got " + r->type.wgsl());
    if (r->constant && *r->constant >= 32)
      fail(pos, "shift amount " + std::to_string(static_cast<int64_t>(*r->constant)) +
                    " must be less than the bit width of the left operand (32)");
    return make(l->type);
  }
  if (l->type.k == K::Ptr || r->type.k == K::Ptr)
    fail(pos, "operator '" + op + "' cannot take a pointer operand");
  if (X m = matrixBinary(op, l, r, pos)) return m;
  unify(l, r, pos);
  const bool vecScalar = (l->type.k == K::Vec && r->type.isScalar() && *l->type.elem == r->type) ||
                         (r->type.k == K::Vec && l->type.isScalar() && *r->type.elem == l->type);
  if (!(l->type == r->type) && !vecScalar)
    fail(pos, "operator '" + op + "' cannot combine " + l->type.wgsl() + " and " + r->type.wgsl());
  const Type result = l->type.k == K::Vec ? l->type : r->type;
  const Type& st = result.scalarType();
  const bool cmp = op == "==" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=";
  if (cmp) {
    if (result.k == K::Vec) {
      if (!(l->type == r->type))
        fail(pos, "component-wise '" + op + "' needs two vectors of the same type");
      if (st.k == K::Bool && op != "==" && op != "!=")
        fail(pos, "'" + op + "' cannot compare bool vectors");
      return make(Type::vec(result.n, Type::scalar(K::Bool)));
    }
    if (st.k == K::Bool && op != "==" && op != "!=")
      fail(pos, "'" + op + "' cannot compare bool values");
    std::optional<double> c;
    if (l->constant && r->constant) {
      const double a = *l->constant, b = *r->constant;
      c = op == "=="   ? a == b
          : op == "!=" ? a != b
          : op == "<"  ? a < b
          : op == ">"  ? a > b
          : op == "<=" ? a <= b
                       : a >= b;
    }
    return make(Type::scalar(K::Bool), c);
  }
  if (op == "&" || op == "|" || op == "^") {
    if (!st.isInteger() && !(st.k == K::Bool && op != "^"))
      fail(pos, "'" + op + "' needs integer operands, got " + l->type.wgsl());
    return make(result);
  }
  if (!st.isNumeric())
    fail(pos, "arithmetic '" + op + "' needs numeric operands, got " + l->type.wgsl() + " and " +
                  r->type.wgsl());
  // Abstract constants fold in double / int64, as WGSL evaluates them at compile time.
  if (result.isAbstract() && l->constant && r->constant) {
    const double a = *l->constant, b = *r->constant;
    double v = 0;
    if (op == "+") {
      v = a + b;
    } else if (op == "-") {
      v = a - b;
    } else if (op == "*") {
      v = a * b;
    } else if (op == "/") {
      if (result.k == K::AbstractInt) {
        if (b == 0)
          return notEvaluable(pos, "integer division by zero in a constant expression", result);
        v = std::trunc(a / b);
      } else {
        v = a / b;
      }
    } else if (op == "%") {
      if (result.k == K::AbstractInt && b == 0)
        return notEvaluable(pos, "integer remainder by zero in a constant expression", result);
      v = std::fmod(a, b);
    }
    return literal(v, result, pos);
  }
  // Concrete scalar constants fold too (const-expressions): a result the type cannot hold and
  // integer division by zero are errors, as in Tint.
  if (result.isScalar() && l->constant && r->constant) return foldConcrete(op, l, r, result, pos);
  return make(result);
}

const ir::Expr* Resolver::foldConcrete(const std::string& op, X l, X r, const Type& t,
                                       SourcePos pos) {
  const std::string what = "'" + literalText(*l->constant, l->type) + " " + op + " " +
                           literalText(*r->constant, r->type) + "'";
  if (t.k == K::F32) {  // f32 results must be finite
    const auto a = static_cast<float>(*l->constant), b = static_cast<float>(*r->constant);
    const float v = op == "+"   ? a + b
                    : op == "-" ? a - b
                    : op == "*" ? a * b
                    : op == "/" ? a / b
                                : std::fmod(a, b);
    if (!std::isfinite(v)) return notEvaluable(pos, what + " cannot be represented as 'f32'", t);
    return literal(static_cast<double>(v), t, pos);
  }
  if (t.k == K::F16) {
    // In double, then rounded to f16 once: + - * and fmod of halves are exact in double, and a
    // quotient rounded to 53 bits then to 11 rounds as if directly (53 >= 2 * 11 + 2).
    const double a = *l->constant, b = *r->constant;
    const double v = roundToF16(op == "+"   ? a + b
                                : op == "-" ? a - b
                                : op == "*" ? a * b
                                : op == "/" ? a / b
                                            : std::fmod(a, b));
    if (!std::isfinite(v)) return notEvaluable(pos, what + " cannot be represented as 'f16'", t);
    return literal(v, t, pos);
  }
  const auto a = static_cast<int64_t>(*l->constant), b = static_cast<int64_t>(*r->constant);
  if ((op == "/" || op == "%") && b == 0)
    return notEvaluable(
        pos, std::string("integer ") + (op == "/" ? "division" : "modulo") + " by zero is invalid",
        t);
  const bool i32 = t.k == K::I32;
  if (i32 && a == INT32_MIN && b == -1 && (op == "/" || op == "%"))
    return notEvaluable(pos, what + " cannot be represented as 'i32'", t);
  // Concrete integer + - * wrap (two's complement), in const-expressions too.
  const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  const uint32_t w = op == "+" ? ua + ub : op == "-" ? ua - ub : ua * ub;
  const int64_t v = op == "/"   ? a / b
                    : op == "%" ? a % b
                    : i32       ? int64_t{static_cast<int32_t>(w)}
                                : int64_t{w};
  return literal(static_cast<double>(v), t, pos);
}

// Component `i` of a constant vector or array built by a constructor (`vec2(1, 2).x`,
// `array(3, 4)[1]`, a const of either), when it is a folded scalar or a constructor itself;
// null otherwise.
static const ir::Expr* constantComponent(const ir::Expr* base, int64_t i) {
  for (;;) {  // through parentheses, consts and vecN(v) of a same-size vector
    if (base->kind == EK::Paren)
      base = base->args[0];
    else if (base->kind == EK::Ref && base->var->inlined)
      base = base->var->inlined;
    else if (base->kind == EK::Construct && base->type.k == K::Vec && base->args.size() == 1 &&
             base->args[0]->type.k == K::Vec)
      base = base->args[0];
    else
      break;
  }
  if (base->kind != EK::Construct || base->args.empty() || base->type.k == K::Mat) return nullptr;
  if (base->type.k == K::Vec && base->args.size() == 1 && base->args[0]->type.isScalar())
    return base->args[0]->constant ? base->args[0] : nullptr;  // a splat
  if (base->type.k == K::Vec) {
    for (const ir::Expr* a : base->args) {
      if (a->type.k == K::Vec) return nullptr;  // built from vector parts
    }
  }
  if (i < 0 || i >= static_cast<int64_t>(base->args.size())) return nullptr;
  const ir::Expr* c = base->args[static_cast<size_t>(i)];
  return c->constant || c->kind == EK::Construct ? c : nullptr;
}

const ir::Expr* Resolver::index(const Expr& e) {
  X base = expr(*e.args[0]);
  if (base->type.k == K::Ptr) base = deref(base, e.pos);  // p[i] is (*p)[i]
  X idx = expr(*e.args[1]);
  if (idx->type.isAbstract()) idx = convert(idx, Type::scalar(K::I32), e.args[1]->pos);
  if (idx->type.k != K::I32 && idx->type.k != K::U32)
    fail(e.args[1]->pos, "index must be i32 or u32, got " + idx->type.wgsl());
  if (idx->constant) {
    const auto c = static_cast<int64_t>(*idx->constant);
    // An override-sized array's length is known at pipeline creation only.
    const int n = (base->type.k == K::Array && !base->type.overrideSized()) ||
                          base->type.k == K::Vec || base->type.k == K::Mat
                      ? base->type.n
                      : 0;
    if (c < 0 || (n > 0 && c >= n))
      fail(e.args[1]->pos, "index " + std::to_string(c) + " out of bounds" +
                               (n > 0 ? " [0.." + std::to_string(n - 1) + "]" : ""));
  }
  if (base->type.k != K::Array && base->type.k != K::Vec && base->type.k != K::Mat)
    fail(e.pos, "cannot index a value of type " + base->type.wgsl());
  if (idx->constant) {
    if (X c = constantComponent(base, static_cast<int64_t>(*idx->constant))) return c;
  }
  ir::Expr* out = node(EK::Index, e.pos, *base->type.elem, {base, idx});
  out->assignable = base->assignable;
  out->writable = base->writable;
  return out;
}

const ir::Expr* Resolver::member(const Expr& e) {
  X base = expr(*e.args[0]);
  if (base->type.k == K::Ptr) base = deref(base, e.pos);  // p.m is (*p).m
  const std::string& m = e.text;
  if (base->type.k == K::Struct) {
    for (const auto& [name, t] : out_.structs[base->type.name]) {
      if (name != m) continue;
      ir::Expr* out = node(EK::Member, e.pos, t, {base});
      out->name = m;
      out->assignable = base->assignable;
      out->writable = base->writable;
      return out;
    }
    fail(e.pos, "struct '" + base->type.name + "' has no member '" + m + "'");
  }
  if (base->type.k == K::Vec) {
    const std::string xyzw = "xyzw", rgba = "rgba";
    if (m.empty() || m.size() > 4) fail(e.pos, "invalid swizzle '" + m + "'");
    const bool useRgba = rgba.find(m[0]) != std::string::npos;
    std::string components;  // spelled xyzw
    for (char c : m) {
      const auto k = (useRgba ? rgba : xyzw).find(c);
      if (k == std::string::npos || static_cast<int>(k) >= base->type.n)
        fail(e.pos, "invalid swizzle '" + m + "' for " + base->type.wgsl());
      components += xyzw[k];
    }
    const Type t =
        m.size() == 1 ? *base->type.elem : Type::vec(static_cast<int>(m.size()), *base->type.elem);
    if (components.size() == 1) {  // a component of a constant vector is a constant
      X c = constantComponent(base, static_cast<int64_t>(xyzw.find(components[0])));
      if (c && c->constant) return c;
    }
    if (base->kind == EK::Swizzle) {  // v.yz.x is v.y: one swizzle of the vector
      std::string composed;
      for (char c : components) composed += base->name[xyzw.find(c)];
      components = composed;
      base = base->args[0];
    }
    // Assignable when it names distinct components (`v.zy = ...`).
    bool distinct = true;
    for (size_t i = 0; i < components.size(); ++i) {
      if (components.find(components[i], i + 1) != std::string::npos) distinct = false;
    }
    ir::Expr* out = node(EK::Swizzle, e.pos, t, {base});
    out->name = components;
    out->assignable = base->assignable && distinct;
    out->writable = base->writable && distinct;
    return out;
  }
  fail(e.pos, "type " + base->type.wgsl() + " has no members");
}

}  // namespace wgsl::detail

namespace wgsl::detail {

// &r: a pointer to the memory reference r names, in its root variable's address space; a
// read_write pointer when r may be written. WGSL forbids pointers to vector components.
const ir::Expr* Resolver::addressOf(const Expr& e) {
  X r = expr(*e.args[0]);
  if (r->type.k == K::Ptr) fail(e.pos, "cannot take the address of a pointer");
  if (r->kind == EK::Swizzle || (r->kind == EK::Index && r->args[0]->type.k == K::Vec))
    fail(e.pos, "cannot take the address of a vector component");
  X root = r;
  while (root->kind == EK::Index || root->kind == EK::Member || root->kind == EK::Paren)
    root = root->args[0];
  if (!r->assignable || (root->kind != EK::Ref && root->kind != EK::Deref))
    fail(e.pos, "cannot take the address of a value");
  const std::string space = root->kind == EK::Deref ? root->args[0]->type.name : root->var->space;
  bool readWrite = space != "uniform" && (space != "storage" || r->writable);
  if (root->kind == EK::Deref) readWrite = root->args[0]->type.n == 1;
  return node(EK::AddressOf, e.pos, Type::ptr(space, r->type, readWrite), {r});
}

// *p: a reference to what p points at (&r's is r itself).
const ir::Expr* Resolver::deref(X p, SourcePos pos) {
  while (p->kind == EK::Paren) p = p->args[0];
  if (p->kind == EK::AddressOf) return p->args[0];
  ir::Expr* out = node(EK::Deref, pos, *p->type.elem, {p});
  out->assignable = true;
  out->writable = p->type.n == 1;
  return out;
}

// The memory a builtin's pointer argument (`&x` or a pointer value) points at.
const ir::Expr* Resolver::pointee(const Expr& e, const char* what) {
  X p = expr(e);
  if (p->type.k != K::Ptr)
    fail(e.pos, std::string(what) + " takes a pointer, got " + p->type.wgsl());
  return deref(p, e.pos);
}

}  // namespace wgsl::detail
