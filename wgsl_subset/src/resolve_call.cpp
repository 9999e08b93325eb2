// The resolver's calls: value conversions, bitcasts, vector and array constructors, atomics,
// barriers, select, the math builtins' overloads and user functions.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "layout.h"
#include "resolver.h"

namespace wgsl::detail {
namespace {
using K = Type::K;
using EK = ir::Expr::Kind;

// The zero value of an array or struct is spelled element by element: a bound on its size.
constexpr uint64_t kMaxZeroValueScalars = 65536;

// Whether values of `t` can be constructed (no atomics, no runtime-sized arrays), and how many
// scalars they hold.
bool constructible(const Type& t, const std::map<std::string, ir::StructMembers>& structs,
                   uint64_t* scalars) {
  switch (t.k) {
    case K::Atomic:
      return false;
    case K::Vec:
      *scalars += static_cast<uint64_t>(t.n);
      return true;
    case K::Array: {
      if (t.n == 0 || t.overrideSized()) return false;
      uint64_t inner = 0;
      if (!constructible(*t.elem, structs, &inner)) return false;
      // Saturates well below 2^64: at most 2^32 per element times 2^24 elements.
      *scalars =
          std::min(*scalars + std::min<uint64_t>(inner, 1ull << 32) * static_cast<uint64_t>(t.n),
                   uint64_t{1} << 62);
      return true;
    }
    case K::Struct:
      for (const auto& [name, mt] : structs.at(t.name)) {
        if (!constructible(mt, structs, scalars)) return false;
      }
      return true;
    default:
      *scalars += 1;
      return true;
  }
}

// The values of a constant scalar or vector (a literal, `vecN(...)` of constants or a splat, a
// const's value), component by component; nullopt for anything else.
std::optional<std::vector<double>> constComponents(const ir::Expr* e) {
  if (e->constant) return std::vector<double>{*e->constant};
  if (e->kind == EK::Paren) return constComponents(e->args[0]);
  if (e->kind == EK::Ref && e->var->inlined) return constComponents(e->var->inlined);
  if (e->kind != EK::Construct || e->type.k != K::Vec || e->args.empty()) return std::nullopt;
  std::vector<double> out;
  for (const ir::Expr* a : e->args) {
    auto c = constComponents(a);
    if (!c) return std::nullopt;
    out.insert(out.end(), c->begin(), c->end());
  }
  if (out.size() == 1) out.assign(e->type.n, out[0]);  // a splat
  if (out.size() != static_cast<size_t>(e->type.n)) return std::nullopt;
  return out;
}

// Whether bitcast<to>(the constant `values` of scalar type `from`) holds an infinity or NaN: the
// bits in 16-bit halves, low half first (WGSL's component order in memory).
bool bitcastGivesNonFinite(const std::vector<double>& values, K from, K to) {
  std::vector<uint32_t> halves;
  for (double v : values) {
    uint32_t bits = 0;
    if (from == K::F16) {
      halves.push_back(f16Bits(v));
      continue;
    }
    if (from == K::F32) {
      const auto f = static_cast<float>(v);
      std::memcpy(&bits, &f, 4);
    } else {
      bits = static_cast<uint32_t>(static_cast<int64_t>(v));
    }
    halves.push_back(bits & 0xffff);
    halves.push_back(bits >> 16);
  }
  for (size_t i = 0; i < halves.size(); ++i) {
    if (to == K::F16 && (halves[i] & 0x7c00) == 0x7c00) return true;
    if (to == K::F32 && i % 2 == 1 && (halves[i] & 0x7f80) == 0x7f80) return true;
  }
  return false;
}

}  // namespace

std::vector<const ir::Expr*> Resolver::argsOf(const Expr& e) {
  std::vector<X> out;
  for (const auto& a : e.args) out.push_back(expr(*a));
  return out;
}

void Resolver::arity(const Expr& e, size_t n) {
  if (e.args.size() != n)
    fail(e.pos, "'" + e.text + "' takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                    ", got " + std::to_string(e.args.size()));
}

const ir::Expr* Resolver::call(const Expr& e) {
  const std::string& f = e.text;
  if (lookup(f))
    fail(e.pos, "cannot call '" + f + "': it is a value declared in scope, not a function");
  // A module-scope function shadows the builtin of its name (atomicAdd_1, vec_len, ...).
  if (auto it = functions_.find(f); it != functions_.end() && !e.typeArgs)
    return userCall(e, *it->second);
  if (e.typeArgs && f == "bitcast") return bitcast(e);
  if (f == "f32" || f == "i32" || f == "u32" || f == "bool" || f == "f16") return conversion(e);
  if (out_.structs.contains(f) && !e.typeArgs) return structConstruct(e);
  if (f == "array" && !e.typeArgs) return inferredArray(e);
  if (matrixColumns(f)) return matrixConstruct(e);
  if (f.starts_with("vec") || e.typeArgs) return construct(e);
  if (f == "arrayLength") return arrayLength(e);
  if (f.starts_with("atomic")) return atomic(e);
  if (f == "workgroupBarrier" || f == "storageBarrier") {
    arity(e, 0);
    ir::Expr* out = node(EK::Barrier, e.pos, Type::scalar(K::Void));
    out->name = f;
    return out;
  }
  if (f == "workgroupUniformLoad") return workgroupUniformLoad(e);
  if (f == "modf" || f == "frexp") return modfFrexp(e);
  if (f == "select") return select(e);
  if (f == "transpose" || f == "determinant") return matrixBuiltin(e);
  if (X v = subgroupBuiltin(e)) return v;
  return builtin(e);
}

const ir::Expr* Resolver::userCall(const Expr& e, const ir::Function& fn) {
  if (e.args.size() != fn.params.size())
    fail(e.pos, "function '" + fn.name + "' takes " + std::to_string(fn.params.size()) +
                    " arguments, got " + std::to_string(e.args.size()));
  std::vector<X> args;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    args.push_back(convert(expr(*e.args[i]), fn.params[i]->type, e.args[i]->pos));
    if (args.back()->type.k == K::Ptr) checkPointerArgument(args.back(), e.args[i]->pos);
  }
  ir::Expr* out = node(EK::Call, e.pos, fn.returnType, std::move(args));
  out->name = fn.name;
  out->function = &fn;
  return out;
}

const ir::Expr* Resolver::conversion(const Expr& e) {
  if (e.text == "f16") requireF16(e.pos);
  const Type to = Type::scalar(e.text == "f32"   ? K::F32
                               : e.text == "f16" ? K::F16
                               : e.text == "i32" ? K::I32
                               : e.text == "u32" ? K::U32
                                                 : K::Bool);
  if (e.args.empty()) return literal(0, to, e.pos);  // the zero value
  arity(e, 1);
  X v = expr(*e.args[0]);
  if (v->type.k == K::Vec)
    fail(e.pos, e.text + "() converts scalars; use vecN<" + e.text + ">(...) for vectors");
  if (!v->type.isScalar()) fail(e.pos, "cannot convert " + v->type.wgsl() + " to " + to.wgsl());
  if (v->constant && v->type.isAbstract()) {
    if (to.k == K::F32 || to.k == K::F16) return convert(v, to, e.pos);
    if (to.k == K::Bool) return literal(*v->constant != 0 ? 1 : 0, to, e.pos);
    return convert(literal(std::trunc(*v->constant), Type::scalar(K::AbstractInt), e.pos), to,
                   e.pos);
  }
  v = convert(v, concrete(v->type), e.pos);
  if (v->type == to) return v;
  // A constant converted to or from f16 folds, rounded to the target (f16 in f16 precision); a
  // value the target cannot hold is an error at shader creation, as WGSL asks of f32 -> f16.
  // (Other concrete conversions stay run-time Converts, so f32 code is written as before.)
  if (v->constant && (to.k == K::F16 || v->type.k == K::F16)) {
    const double c = *v->constant;
    if (to.k == K::F16 || to.k == K::F32) {
      const double r = roundToFloat(c, to.k);
      if (!std::isfinite(r))
        return notEvaluable(
            e.pos, "value " + literalText(c, v->type) + " cannot be represented as " + to.wgsl(),
            to);
      return literal(r, to, e.pos);
    }
    if (to.k == K::Bool) return literal(c != 0 ? 1 : 0, to, e.pos);
    // f16 -> i32/u32: toward zero, saturated (every f16 is finite here).
    const double t = std::trunc(c);
    return literal(to.k == K::I32 ? t : std::max(0.0, t), to, e.pos);
  }
  return node(EK::Convert, e.pos, to, {v});
}

const ir::Expr* Resolver::bitcast(const Expr& e) {
  arity(e, 1);
  if (e.typeArgs->args.size() != 1) fail(e.pos, "bitcast needs one target type: bitcast<T>(x)");
  const Type target = resolveType(e.typeArgs->args[0]);
  X v = expr(*e.args[0]);
  v = convert(v, concrete(v->type), e.pos);
  // Scalars or vectors of 32-bit or f16 components, of the same size: the same bits
  // (vec2<f16> <-> a 32-bit scalar, vec4<f16> <-> a vec2 of 32-bit components).
  const auto bits = [](const Type& t) {
    const Type& st = t.scalarType();
    const int width = st.k == K::F16                                       ? 16
                      : st.k == K::F32 || st.k == K::I32 || st.k == K::U32 ? 32
                                                                           : 0;
    if (!(t.isScalar() || t.k == K::Vec)) return 0;
    return width * (t.k == K::Vec ? t.n : 1);
  };
  if (bits(target) == 0 || bits(target) != bits(v->type))
    fail(e.pos, "cannot bitcast from " + v->type.wgsl() + " to " + target.wgsl());
  // Of a constant it is a const-expression, which WGSL forbids to be an infinity or NaN. (Its
  // value is spelled as the bitcast itself: a literal could not keep a -0.0 or a NaN's bits.)
  if (auto c = constComponents(v);
      c && !unevaluated_ &&
      bitcastGivesNonFinite(*c, v->type.scalarType().k, target.scalarType().k))
    fail(e.pos, "bitcast<" + target.wgsl() + "> of this constant gives an infinity or NaN, " +
                    "which a const-expression cannot be");
  if (v->type == target) return v;
  return node(EK::Bitcast, e.pos, target, {v});
}

const ir::Expr* Resolver::construct(const Expr& e) {
  if (e.typeArgs && e.typeArgs->name == "array") {
    Type t = resolveType(*e.typeArgs);
    if (t.n == 0) t.n = static_cast<int>(e.args.size());
    if (e.args.empty() && t.n > 0) {  // the zero value
      uint64_t scalars = 0;
      if (!constructible(t, out_.structs, &scalars))
        fail(e.pos, "array constructor has non-constructible element type " + t.elem->wgsl());
      if (scalars > kMaxZeroValueScalars)
        unsupported(e.pos, "zero-value constructor of " + t.wgsl() + " (more than " +
                               std::to_string(kMaxZeroValueScalars) + " scalars)");
      return node(EK::Construct, e.pos, t);
    }
    if (static_cast<int>(e.args.size()) != t.n)
      fail(e.pos, "array constructor needs " + std::to_string(t.n) + " elements, got " +
                      std::to_string(e.args.size()));
    std::vector<X> args;
    for (const auto& a : e.args) args.push_back(convert(expr(*a), *t.elem, a->pos));
    return node(EK::Construct, e.pos, t, std::move(args));
  }
  if (!e.text.starts_with("vec") || e.text.size() < 4 || e.text[3] < '2' || e.text[3] > '4') {
    if (e.typeArgs && out_.structs.contains(e.text))
      unsupported(e.pos, "struct constructor with template arguments");
    fail(e.pos, "unknown function '" + e.text + "'");
  }
  const int n = e.text[3] - '0';
  std::vector<X> a = argsOf(e);
  Type elem;
  if (e.typeArgs) {
    elem = *resolveType(*e.typeArgs).elem;
  } else if (e.text.size() == 5) {
    if (e.text[4] == 'h') requireF16(e.pos);
    elem = Type::scalar(e.text[4] == 'f'   ? K::F32
                        : e.text[4] == 'h' ? K::F16
                        : e.text[4] == 'u' ? K::U32
                                           : K::I32);
  } else {
    // Inferred: the arguments' common element type; abstract when they all are (`vec3(1, 2, 3)`
    // is a vec3<abstract-int>, made concrete where it is used), abstract-int for `vec3()`.
    elem = Type::scalar(K::AbstractInt);
    for (X v : a) {
      const Type& st = v->type.scalarType();
      if (!st.isAbstract()) {
        elem = st;
        break;
      }
      if (st.k == K::AbstractFloat) elem = st;
    }
  }
  const Type t = Type::vec(n, elem);
  // vecN<T>(v) of a vecN<U>: a component-wise value conversion.
  if (a.size() == 1 && a[0]->type.k == K::Vec && a[0]->type.n == n && !(*a[0]->type.elem == elem)) {
    const Type& from = *a[0]->type.elem;
    if (from.isAbstract()) return convert(a[0], t, e.pos);
    if (!elem.isScalar() || elem.isAbstract())
      fail(e.args[0]->pos, "vector component type mismatch: expected " + elem.wgsl() + ", got " +
                               a[0]->type.wgsl());
    return node(EK::Convert, e.pos, t, {a[0]});
  }
  int count = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]->type.k == K::Vec) {
      if (!(*a[i]->type.elem == elem))
        a[i] = convert(a[i], Type::vec(a[i]->type.n, elem), e.args[i]->pos);
      count += a[i]->type.n;
    } else {
      a[i] = convert(a[i], elem, e.args[i]->pos);
      count += 1;
    }
  }
  if (!(count == n || (count == 1 && a.size() == 1) || a.empty()))
    fail(e.pos,
         e.text + " needs " + std::to_string(n) + " components, got " + std::to_string(count));
  return node(EK::Construct, e.pos, t, std::move(a));
}

// S(a, b, ...) with one argument per member, or S() for the zero value.
const ir::Expr* Resolver::structConstruct(const Expr& e) {
  const Type t{K::Struct, 0, nullptr, e.text};
  const ir::StructMembers& members = out_.structs.at(e.text);
  uint64_t scalars = 0;
  if (!constructible(t, out_.structs, &scalars))
    fail(e.pos, "struct constructor has non-constructible type '" + e.text + "'");
  if (e.args.empty()) {
    if (scalars > kMaxZeroValueScalars)
      unsupported(e.pos, "zero-value constructor of '" + e.text + "' (more than " +
                             std::to_string(kMaxZeroValueScalars) + " scalars)");
    return node(EK::Construct, e.pos, t);
  }
  if (e.args.size() != members.size())
    fail(e.pos, "structure constructor has too " +
                    std::string(e.args.size() < members.size() ? "few" : "many") +
                    " inputs: expected " + std::to_string(members.size()) + ", found " +
                    std::to_string(e.args.size()));
  std::vector<X> args;
  for (size_t i = 0; i < members.size(); ++i)
    args.push_back(convert(expr(*e.args[i]), members[i].second, e.args[i]->pos));
  return node(EK::Construct, e.pos, t, std::move(args));
}

// array(a, b, ...): the element type is the arguments' common type.
const ir::Expr* Resolver::inferredArray(const Expr& e) {
  if (e.args.empty())
    fail(e.pos, "'array' requires at least one argument (or a type: array<T, N>())");
  std::vector<X> a = argsOf(e);
  Type elem = a[0]->type;
  for (X v : a) {
    if (!v->type.isAbstract() && !(v->type.k == K::Vec && v->type.elem->isAbstract())) {
      elem = v->type;
      break;
    }
    if (v->type.k == K::AbstractFloat) elem = v->type;
  }
  elem = concrete(elem);
  for (size_t i = 0; i < a.size(); ++i) a[i] = convert(a[i], elem, e.args[i]->pos);
  const Type t = Type::array(elem, static_cast<int>(a.size()));
  return node(EK::Construct, e.pos, t, std::move(a));
}

const ir::Expr* Resolver::arrayLength(const Expr& e) {
  arity(e, 1);
  const Expr& a = *e.args[0];
  X v = pointee(a, "arrayLength");
  if (v->type.k != K::Array || v->type.n != 0)
    fail(a.pos, "arrayLength needs a runtime-sized array, got " + v->type.wgsl());
  return node(EK::ArrayLength, e.pos, Type::scalar(K::U32), {v});
}

// `&x` where x is an atomic; `f` writes it unless it is atomicLoad.
const ir::Expr* Resolver::atomicOperand(const Expr& e, const std::string& f) {
  if (e.args.empty()) fail(e.pos, f + " needs a pointer to an atomic as its first argument");
  const Expr& p = *e.args[0];
  X target = pointee(p, f.c_str());
  if (target->type.k != K::Atomic)
    fail(p.pos, f + " needs an atomic<i32> or atomic<u32>, got " + target->type.wgsl());
  if (!target->writable && f != "atomicLoad")
    fail(p.pos, f + " writes its operand, which is read-only here");
  return target;
}

const ir::Expr* Resolver::atomic(const Expr& e) {
  const std::string& f = e.text;
  static const std::set<std::string> readModifyWrite = {"atomicAdd", "atomicSub",     "atomicMax",
                                                        "atomicMin", "atomicAnd",     "atomicOr",
                                                        "atomicXor", "atomicExchange"};
  X target = atomicOperand(e, f);
  const Type& t = *target->type.elem;
  const auto make = [&](const Type& result, std::vector<X> args) {
    ir::Expr* out = node(EK::Atomic, e.pos, result, std::move(args));
    out->name = f;
    return out;
  };
  if (f == "atomicLoad") {
    arity(e, 1);
    return make(t, {target});
  }
  if (f == "atomicStore") {
    arity(e, 2);
    return make(Type::scalar(K::Void), {target, convert(expr(*e.args[1]), t, e.args[1]->pos)});
  }
  if (f == "atomicCompareExchangeWeak")
    unsupported(e.pos, "atomicCompareExchangeWeak outside a 'let' or 'var' initializer");
  if (!readModifyWrite.contains(f)) fail(e.pos, "unknown atomic builtin '" + f + "'");
  arity(e, 2);
  return make(t, {target, convert(expr(*e.args[1]), t, e.args[1]->pos)});
}

const ir::Expr* Resolver::select(const Expr& e) {
  arity(e, 3);
  std::vector<X> a = argsOf(e);
  unify(a[0], a[1], e.pos);
  if (!(a[0]->type == a[1]->type))
    fail(e.pos, "select: both values must have the same type, got " + a[0]->type.wgsl() + " and " +
                    a[1]->type.wgsl());
  // The condition: a bool, or (component-wise) a vecN<bool> of the values' width.
  const bool perComponent = a[2]->type.k == K::Vec && a[2]->type.elem->k == K::Bool &&
                            a[0]->type.k == K::Vec && a[0]->type.n == a[2]->type.n;
  if (a[2]->type.k != K::Bool && !perComponent)
    fail(e.args[2]->pos,
         "select: the condition must be bool" +
             std::string(a[0]->type.k == K::Vec ? " or a vector of bool as wide" : "") + ", got " +
             a[2]->type.wgsl());
  if (!a[0]->type.isScalar() && a[0]->type.k != K::Vec)
    fail(e.pos, "select takes scalars or vectors, got " + a[0]->type.wgsl());
  if (a[0]->constant && a[1]->constant && a[2]->constant && a[0]->type.isScalar()) {
    X v = *a[2]->constant != 0 ? a[1] : a[0];  // a const-expression: fold it
    return literal(*v->constant, v->type, e.pos);
  }
  const Type t = concrete(a[0]->type);
  return node(EK::Select, e.pos, t, {convert(a[0], t, e.pos), convert(a[1], t, e.pos), a[2]});
}

const ir::Expr* Resolver::builtin(const Expr& e) {
  const std::string& f = e.text;
  struct Rule {
    int arity;
    enum { Float, Numeric, Int, Bool } domain;
    enum { Same, ScalarOfArg, BoolScalar } result = Same;
  };
  static const std::map<std::string, Rule> rules = {
      {"abs", {1, Rule::Numeric}},
      {"acosh", {1, Rule::Float}},
      {"asinh", {1, Rule::Float}},
      {"atanh", {1, Rule::Float}},
      {"degrees", {1, Rule::Float}},
      {"radians", {1, Rule::Float}},
      {"distance", {2, Rule::Float, Rule::ScalarOfArg}},
      {"acos", {1, Rule::Float}},
      {"asin", {1, Rule::Float}},
      {"atan", {1, Rule::Float}},
      {"atan2", {2, Rule::Float}},
      {"ceil", {1, Rule::Float}},
      {"clamp", {3, Rule::Numeric}},
      {"cos", {1, Rule::Float}},
      {"cosh", {1, Rule::Float}},
      {"exp", {1, Rule::Float}},
      {"exp2", {1, Rule::Float}},
      {"floor", {1, Rule::Float}},
      {"fma", {3, Rule::Float}},
      {"fract", {1, Rule::Float}},
      {"inverseSqrt", {1, Rule::Float}},
      {"log", {1, Rule::Float}},
      {"log2", {1, Rule::Float}},
      {"max", {2, Rule::Numeric}},
      {"min", {2, Rule::Numeric}},
      {"mix", {3, Rule::Float}},
      {"pow", {2, Rule::Float}},
      {"round", {1, Rule::Float}},
      {"sign", {1, Rule::Numeric}},
      {"sin", {1, Rule::Float}},
      {"sinh", {1, Rule::Float}},
      {"smoothstep", {3, Rule::Float}},
      {"sqrt", {1, Rule::Float}},
      {"step", {2, Rule::Float}},
      {"tan", {1, Rule::Float}},
      {"tanh", {1, Rule::Float}},
      {"trunc", {1, Rule::Float}},
      {"dot", {2, Rule::Numeric, Rule::ScalarOfArg}},
      {"cross", {2, Rule::Float}},
      {"length", {1, Rule::Float, Rule::ScalarOfArg}},
      {"normalize", {1, Rule::Float}},
      {"countOneBits", {1, Rule::Int}},
      {"firstLeadingBit", {1, Rule::Int}},
      {"reverseBits", {1, Rule::Int}},
      {"all", {1, Rule::Bool, Rule::BoolScalar}},
      {"any", {1, Rule::Bool, Rule::BoolScalar}},
  };
  auto it = rules.find(f);
  if (it == rules.end()) {
    // WGSL's other builtin functions (spec §17), and the experimental ones Tint's tests use.
    static const std::set<std::string> known = {"countLeadingZeros",
                                                "countTrailingZeros",
                                                "dot4I8Packed",
                                                "dot4U8Packed",
                                                "dpdx",
                                                "dpdxCoarse",
                                                "dpdxFine",
                                                "dpdy",
                                                "dpdyCoarse",
                                                "dpdyFine",
                                                "extractBits",
                                                "faceForward",
                                                "firstTrailingBit",
                                                "fwidth",
                                                "fwidthCoarse",
                                                "fwidthFine",
                                                "insertBits",
                                                "ldexp",
                                                "pack2x16float",
                                                "pack2x16snorm",
                                                "pack2x16unorm",
                                                "pack4x8snorm",
                                                "pack4x8unorm",
                                                "pack4xI8",
                                                "pack4xU8",
                                                "pack4xI8Clamp",
                                                "pack4xU8Clamp",
                                                "quantizeToF16",
                                                "reflect",
                                                "refract",
                                                "saturate",
                                                "textureBarrier",
                                                "textureDimensions",
                                                "textureGather",
                                                "textureGatherCompare",
                                                "textureLoad",
                                                "textureNumLayers",
                                                "textureNumLevels",
                                                "textureNumSamples",
                                                "textureSample",
                                                "textureSampleBaseClampToEdge",
                                                "textureSampleBias",
                                                "textureSampleCompare",
                                                "textureSampleCompareLevel",
                                                "textureSampleGrad",
                                                "textureSampleLevel",
                                                "textureStore",
                                                "unpack2x16float",
                                                "unpack2x16snorm",
                                                "unpack2x16unorm",
                                                "unpack4x8snorm",
                                                "unpack4x8unorm",
                                                "unpack4xI8",
                                                "unpack4xU8",
                                                "subgroupAdd",
                                                "subgroupAll",
                                                "subgroupAnd",
                                                "subgroupAny",
                                                "subgroupBallot",
                                                "subgroupBroadcast",
                                                "subgroupBroadcastFirst",
                                                "subgroupElect",
                                                "subgroupExclusiveAdd",
                                                "subgroupExclusiveMul",
                                                "subgroupInclusiveAdd",
                                                "subgroupInclusiveMul",
                                                "subgroupMax",
                                                "subgroupMin",
                                                "subgroupMul",
                                                "subgroupOr",
                                                "subgroupShuffle",
                                                "subgroupShuffleDown",
                                                "subgroupShuffleUp",
                                                "subgroupShuffleXor",
                                                "subgroupXor",
                                                "quadBroadcast",
                                                "quadSwapDiagonal",
                                                "quadSwapX",
                                                "quadSwapY",
                                                "bufferArrayView",
                                                "bufferLength",
                                                "bufferView",
                                                "subgroupMatrixLoad",
                                                "subgroupMatrixStore",
                                                "subgroupMatrixMultiply",
                                                "subgroupMatrixMultiplyAccumulate",
                                                "subgroupMatrixScalarAdd",
                                                "print"};
    if (known.contains(f)) unsupported(e.pos, "builtin function '" + f + "'");
    fail(e.pos, "unresolved function '" + f + "'");
  }
  const Rule& r = it->second;
  arity(e, static_cast<size_t>(r.arity));
  std::vector<X> a = argsOf(e);
  for (size_t i = 1; i < a.size(); ++i) unify(a[0], a[i], e.pos);
  for (size_t i = 1; i < a.size(); ++i)
    unify(a[0], a[i], e.pos);  // a later concrete argument fixes earlier abstract ones
  const Type t = concrete(a[0]->type);
  const Type& st = t.scalarType();
  const bool ok = r.domain == Rule::Float ? (st.k == K::F32 || st.k == K::F16)
                  : r.domain == Rule::Numeric
                      ? (st.k == K::F32 || st.k == K::F16 || st.k == K::I32 || st.k == K::U32)
                  : r.domain == Rule::Int ? (st.k == K::I32 || st.k == K::U32)
                                          : (t.k == K::Vec && st.k == K::Bool) || t.k == K::Bool;
  if (!ok) fail(e.pos, "no overload of '" + f + "' takes " + a[0]->type.wgsl());
  if (f == "cross" && t.n != 3) fail(e.pos, "no overload of 'cross' takes " + a[0]->type.wgsl());
  if (f == "min" || f == "max" || f == "abs" || f == "clamp") {
    if (X v = foldNumeric(f, a, e)) return v;
  }
  for (size_t i = 0; i < a.size(); ++i) a[i] = convert(a[i], t, e.args[i]->pos);
  if (t.k == K::Bool && (f == "all" || f == "any")) return a[0];  // all(scalar) is the scalar
  const Type result = r.result == Rule::ScalarOfArg  ? st
                      : r.result == Rule::BoolScalar ? Type::scalar(K::Bool)
                                                     : t;
  ir::Expr* out = node(EK::Builtin, e.pos, result, std::move(a));
  out->name = f;
  return out;
}

// min, max, abs and clamp on constant scalars are const-expressions (WGSL evaluates them at
// shader creation): `const c = max(1, 2);` is the abstract-int 2. Abstract arguments stay
// abstract; f32 folds in float; abs of the most negative i32 wraps, as at run time.
const ir::Expr* Resolver::foldNumeric(const std::string& f, const std::vector<X>& a,
                                      const Expr& e) {
  for (X v : a) {
    if (!v->constant || !v->type.isScalar()) return nullptr;
  }
  const Type t = a[0]->type;
  std::vector<double> x;
  for (size_t i = 0; i < a.size(); ++i) {
    const double c = roundToFloat(*convert(a[i], t, e.args[i]->pos)->constant, t.k);
    x.push_back(c);
  }
  double v = 0;
  if (f == "min") v = std::min(x[0], x[1]);
  if (f == "max") v = std::max(x[0], x[1]);
  if (f == "abs") v = t.k == K::I32 && x[0] == -2147483648.0 ? x[0] : std::fabs(x[0]);
  if (f == "clamp") {
    if (x[1] > x[2])
      fail(e.pos, "clamp called with 'low' (" + literalText(x[1], t) + ") greater than 'high' (" +
                      literalText(x[2], t) + ")");
    v = std::min(std::max(x[0], x[1]), x[2]);
  }
  return literal(v, t, e.pos);
}

}  // namespace wgsl::detail

namespace wgsl::detail {

// workgroupUniformLoad(p): a barrier, *p, a barrier; the value is uniform (the validator checks
// that p is). A Barrier node with the memory p names as its argument.
const ir::Expr* Resolver::workgroupUniformLoad(const Expr& e) {
  arity(e, 1);
  X p = expr(*e.args[0]);
  if (p->type.k != K::Ptr || p->type.name != "workgroup")
    fail(e.args[0]->pos,
         "workgroupUniformLoad takes a pointer into <workgroup> memory, got " + p->type.wgsl());
  X target = deref(p, e.args[0]->pos);
  uint64_t scalars = 0;
  const Type& t = target->type.k == K::Atomic ? *target->type.elem : target->type;
  if (target->type.k != K::Atomic && !constructible(t, out_.structs, &scalars))
    fail(e.args[0]->pos, "workgroupUniformLoad needs a constructible type or an atomic, got " +
                             target->type.wgsl());
  ir::Expr* out = node(EK::Barrier, e.pos, t, {target});
  out->name = "workgroupUniformLoad";
  return out;
}

// modf(x) and frexp(x) of f32 or f16 scalars and vectors: WGSL's result structs
// __modf_result_f32 (fract, whole) and __frexp_result_f32 (fract, exp: i32), with vecN and f16
// variants (__frexp_result_vec2_f16: fract vec2<f16>, exp vec2<i32>).
const ir::Expr* Resolver::modfFrexp(const Expr& e) {
  arity(e, 1);
  X x = expr(*e.args[0]);
  Type t = concrete(x->type);
  if (x->type.scalarType().isAbstract())  // abstract integers too: they become f32 here
    t = x->type.k == K::Vec ? Type::vec(x->type.n, Type::scalar(K::F32)) : Type::scalar(K::F32);
  const K element = t.scalarType().k;
  if ((element != K::F32 && element != K::F16) || !(t.isScalar() || t.k == K::Vec))
    fail(e.pos, "no overload of '" + e.text + "' takes " + x->type.wgsl());
  x = convert(x, t, e.args[0]->pos);
  const bool modf = e.text == "modf";
  const std::string name = "__" + e.text + "_result_" +
                           (t.k == K::Vec ? "vec" + std::to_string(t.n) + "_" : "") +
                           (element == K::F16 ? "f16" : "f32");
  if (!out_.structs.contains(name)) {
    const Type second = modf            ? t
                        : t.k == K::Vec ? Type::vec(t.n, Type::scalar(K::I32))
                                        : Type::scalar(K::I32);
    out_.structs[name] = {{"fract", t}, {modf ? "whole" : "exp", second}};
    const uint32_t a = alignOf(t, out_.layouts), size = sizeOf(t, out_.layouts);
    out_.layouts[name] = {{0, (size + a - 1) / a * a}, a, 2 * ((size + a - 1) / a * a)};
  }
  ir::Expr* out = node(EK::Builtin, e.pos, Type{K::Struct, 0, nullptr, name}, {x});
  out->name = e.text;
  return out;
}

// The writer passes a workgroup, storage or uniform pointer by specialising the callee for the
// memory it names (GLSL cannot pass that memory by reference), so the indices on the way there
// must be constants.
void Resolver::checkPointerArgument(X arg, SourcePos pos) {
  const std::string& space = arg->type.name;
  if (space == "function" || space == "private") return;  // an inout parameter
  for (X e = arg;;) {
    if (e->kind == EK::Index && !e->args[1]->constant)
      unsupported(pos, "pointer argument into <" + space + "> memory with a run-time index");
    if (e->kind == EK::Ref && e->var->kind == ir::Variable::Kind::Let && e->var->init)
      e = e->var->init;
    else if (e->kind == EK::Ref || e->args.empty())
      return;
    else
      e = e->args[0];
  }
}

}  // namespace wgsl::detail
