// The resolver's matrices (matCxR<f32>: C columns of vecR<f32>): constructors, the arithmetic
// operators WGSL defines on them and the matrix builtins. GLSL's matCxR has the same shape and
// column-major order, and its operators the same meaning, so the writer spells them as written.
// Matrices are never abstract here: WGSL's abstract-float matrices exist only in
// const-expressions, and every use makes them f32 (or f16 where the other side is f16).
#include "resolver.h"

namespace wgsl::detail {
namespace {
using K = Type::K;
using EK = ir::Expr::Kind;
}  // namespace

// matCxR<f32>(), matCxR<f32>(m), matCxR[<f32>|f](C*R scalars), matCxR[<f32>|f](C columns).
const ir::Expr* Resolver::matrixConstruct(const Expr& e) {
  const int c = matrixColumns(e.text), r = e.text[5] - '0';
  const bool shortH = e.text.size() == 7 && e.text[6] == 'h';
  if (shortH) requireF16(e.pos);
  const bool inferred = !e.typeArgs && e.text.size() == 6;
  if (e.args.empty() && inferred)
    fail(e.pos, "cannot infer the element type of '" + e.text + "()'; write " + e.text + "<f32>()");
  std::vector<X> a = argsOf(e);
  // Inferred (`mat2x2(...)`): f16 when an argument is, else f32 (abstract arguments included).
  K element = shortH ? K::F16 : K::F32;
  for (X v : a) {
    const Type& st = v->type.k == K::Mat ? *v->type.elem->elem : v->type.scalarType();
    if (inferred && st.k == K::F16) element = K::F16;
  }
  const Type t = e.typeArgs ? resolveType(*e.typeArgs) : Type::mat(c, r, element);
  if (a.empty()) return node(EK::Construct, e.pos, t);  // the zero value
  if (a.size() == 1 && a[0]->type.k == K::Mat) {
    if (a[0]->type.n != t.n || a[0]->type.rows() != t.rows())
      fail(e.pos, "cannot construct " + t.wgsl() + " from " + a[0]->type.wgsl());
    if (a[0]->type == t) return a[0];            // matCxR<T>(m) of a matCxR<T>: the value itself
    return node(EK::Convert, e.pos, t, {a[0]});  // f32 <-> f16, column by column
  }
  const Type& column = *t.elem;
  if (a.size() == static_cast<size_t>(c) * static_cast<size_t>(r) && a[0]->type.isScalar()) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i]->type.isScalar() ||
          (!(a[i]->type == column.scalarType()) && !a[i]->type.isAbstract()))
        fail(e.args[i]->pos, t.wgsl() + " constructor takes " + column.scalarType().wgsl() +
                                 " scalars, got " + a[i]->type.wgsl());
      a[i] = convert(a[i], column.scalarType(), e.args[i]->pos);
    }
    return node(EK::Construct, e.pos, t, std::move(a));
  }
  if (a.size() == static_cast<size_t>(c) && a[0]->type.k == K::Vec) {
    for (size_t i = 0; i < a.size(); ++i) {
      const Type& at = a[i]->type;
      if (at.k != K::Vec || at.n != r || !(at.elem->isFloat() || at.elem->k == K::AbstractInt))
        fail(e.args[i]->pos, t.wgsl() + " constructor takes " + std::to_string(c) +
                                 " columns of type " + column.wgsl() + ", got " + at.wgsl());
      a[i] = convert(a[i], column, e.args[i]->pos);
    }
    return node(EK::Construct, e.pos, t, std::move(a));
  }
  fail(e.pos, t.wgsl() + " constructor needs " + std::to_string(c) + " column vectors or " +
                  std::to_string(c * r) + " scalars, got " + std::to_string(a.size()) +
                  " argument" + (a.size() == 1 ? "" : "s"));
}

// The operators on matrices (null when neither operand is one): + and - of two matrices of one
// shape; * of a matrix and a scalar, of a matrix and a vector (either side), and of two matrices
// whose inner sizes agree.
const ir::Expr* Resolver::matrixBinary(const std::string& op, X l, X r, SourcePos pos) {
  if (l->type.k != K::Mat && r->type.k != K::Mat) return nullptr;
  const auto cannot = [&]() {
    fail(pos, "operator '" + op + "' cannot combine " + l->type.wgsl() + " and " + r->type.wgsl());
  };
  const auto make = [&](const Type& t) {
    ir::Expr* out = node(EK::Binary, pos, t, {l, r});
    out->name = op;
    return out;
  };
  // The matrices' element type (f32 or f16); scalars and vectors must have it, or be abstract.
  const Type f32 = (l->type.k == K::Mat ? l->type : r->type).elem->scalarType();
  const auto isF32Scalar = [&](X v) {
    return v->type == f32 || v->type.k == K::AbstractFloat || v->type.k == K::AbstractInt;
  };
  if (op == "+" || op == "-") {
    if (!(l->type == r->type)) cannot();
    return make(l->type);
  }
  if (op != "*") cannot();
  if (l->type.k == K::Mat && isF32Scalar(r)) {
    r = convert(r, f32, pos);
    return make(l->type);
  }
  if (r->type.k == K::Mat && isF32Scalar(l)) {
    l = convert(l, f32, pos);
    return make(r->type);
  }
  const auto f32Vector = [&](X& v, int n) {  // a vecN of f32 (abstract ones made f32)
    if (v->type.k != K::Vec || v->type.n != n ||
        !(*v->type.elem == f32 || v->type.elem->isAbstract()))
      cannot();
    v = convert(v, Type::vec(n, f32), pos);
  };
  if (l->type.k == K::Mat && r->type.k == K::Mat) {  // matKxR * matCxK = matCxR
    if (l->type.n != r->type.rows() || !(*l->type.elem->elem == *r->type.elem->elem)) cannot();
    return make(Type::mat(r->type.n, l->type.rows(), f32.k));
  }
  if (l->type.k == K::Mat) {  // matCxR * vecC = vecR
    f32Vector(r, l->type.n);
    return make(*l->type.elem);
  }
  f32Vector(l, r->type.rows());  // vecR * matCxR = vecC
  return make(Type::vec(r->type.n, f32));
}

// transpose(matCxR) = matRxC; determinant(matCxC) = f32.
const ir::Expr* Resolver::matrixBuiltin(const Expr& e) {
  arity(e, 1);
  X m = expr(*e.args[0]);
  if (m->type.k != K::Mat) fail(e.pos, "no overload of '" + e.text + "' takes " + m->type.wgsl());
  const K elem = m->type.elem->elem->k;
  Type result = Type::mat(m->type.rows(), m->type.n, elem);
  if (e.text == "determinant") {
    if (m->type.n != m->type.rows())
      fail(e.pos, "determinant needs a square matrix, got " + m->type.wgsl());
    result = Type::scalar(elem);
  }
  ir::Expr* out = node(EK::Builtin, e.pos, result, {m});
  out->name = e.text;
  return out;
}

}  // namespace wgsl::detail
