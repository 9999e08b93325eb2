// The resolver's subgroup built-in functions (`enable subgroups;`): argument types and constant
// ids by WGSL's rules (subgroups.h has the table). Their uniformity is the validator's.
#include <map>

#include "resolver.h"
#include "subgroups.h"

namespace wgsl::detail {
namespace {
using K = Type::K;
using EK = ir::Expr::Kind;
using A = SubgroupFunction::Args;
using R = SubgroupFunction::Result;
}  // namespace

const SubgroupFunction* subgroupFunction(const std::string& name) {
  static const std::map<std::string, SubgroupFunction> table = {
      {"subgroupElect", {A::None, R::Bool, "subgroupElect", false}},
      {"subgroupAll", {A::Bool, R::Bool, "subgroupAll", true}},
      {"subgroupAny", {A::Bool, R::Bool, "subgroupAny", true}},
      {"subgroupBallot", {A::Bool, R::Vec4U32, "subgroupBallot", true}},
      {"subgroupAdd", {A::Numeric, R::Same, "subgroupAdd", true}},
      {"subgroupExclusiveAdd", {A::Numeric, R::Same, "subgroupExclusiveAdd", false}},
      {"subgroupInclusiveAdd", {A::Numeric, R::Same, "subgroupInclusiveAdd", false}},
      {"subgroupMul", {A::Numeric, R::Same, "subgroupMul", true}},
      {"subgroupExclusiveMul", {A::Numeric, R::Same, "subgroupExclusiveMul", false}},
      {"subgroupInclusiveMul", {A::Numeric, R::Same, "subgroupInclusiveMul", false}},
      {"subgroupMin", {A::Numeric, R::Same, "subgroupMin", true}},
      {"subgroupMax", {A::Numeric, R::Same, "subgroupMax", true}},
      {"subgroupAnd", {A::Integer, R::Same, "subgroupAnd", true}},
      {"subgroupOr", {A::Integer, R::Same, "subgroupOr", true}},
      {"subgroupXor", {A::Integer, R::Same, "subgroupXor", true}},
      {"subgroupBroadcast", {A::NumericConstId, R::Same, "subgroupBroadcast", true, 128}},
      {"subgroupBroadcastFirst", {A::Numeric, R::Same, "subgroupBroadcastFirst", true}},
      {"subgroupShuffle", {A::NumericId, R::Same, "subgroupShuffle", false}},
      {"subgroupShuffleXor", {A::NumericU32, R::Same, "subgroupShuffleXor", false}},
      {"subgroupShuffleUp", {A::NumericU32, R::Same, "subgroupShuffleUp", false}},
      {"subgroupShuffleDown", {A::NumericU32, R::Same, "subgroupShuffleDown", false}},
      {"quadBroadcast", {A::NumericConstId, R::Same, "subgroupQuadBroadcast", false, 4}},
      {"quadSwapX", {A::Numeric, R::Same, "subgroupQuadSwapHorizontal", false}},
      {"quadSwapY", {A::Numeric, R::Same, "subgroupQuadSwapVertical", false}},
      {"quadSwapDiagonal", {A::Numeric, R::Same, "subgroupQuadSwapDiagonal", false}},
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

const ir::Expr* Resolver::subgroupBuiltin(const Expr& e) {
  const std::string& f = e.text;
  const SubgroupFunction* fn = subgroupFunction(f);
  if (!fn) return nullptr;
  if (!subgroups_)
    fail(e.pos, "cannot call built-in function '" + f +
                    "' without extension 'subgroups' (add 'enable subgroups;')");
  const bool twoArgs =
      fn->args == A::NumericConstId || fn->args == A::NumericId || fn->args == A::NumericU32;
  arity(e, fn->args == A::None ? 0 : twoArgs ? 2 : 1);
  std::vector<X> a = argsOf(e);
  Type result = Type::scalar(K::Bool);
  if (fn->args == A::Bool) {
    if (a[0]->type.k != K::Bool)
      fail(e.args[0]->pos, f + " takes a bool, got " + a[0]->type.wgsl());
  } else if (fn->args != A::None) {
    const Type t = concrete(a[0]->type);
    const Type& st = t.scalarType();
    const bool shape = t.isScalar() || t.k == K::Vec;
    const bool ok = fn->args == A::Integer
                        ? (st.k == K::I32 || st.k == K::U32)
                        : (st.k == K::I32 || st.k == K::U32 || st.k == K::F32 || st.k == K::F16);
    if (!shape || !ok) fail(e.pos, "no overload of '" + f + "' takes " + a[0]->type.wgsl());
    a[0] = convert(a[0], t, e.args[0]->pos);
    result = t;
  }
  if (twoArgs) {
    X& id = a[1];
    const SourcePos at = e.args[1]->pos;
    const Type& it = id->type;
    const bool u32Only = fn->args == A::NumericU32;
    if (!(it.k == K::U32 || (!u32Only && (it.k == K::I32 || it.k == K::AbstractInt)) ||
          (u32Only && it.k == K::AbstractInt)))
      fail(at, "the second argument of '" + f + "' must be " + (u32Only ? "u32" : "i32 or u32") +
                   ", got " + it.wgsl());
    if (fn->args == A::NumericConstId && !id->constant)
      fail(at, "the " + std::string(f == "quadBroadcast" ? "id" : "sourceLaneIndex") +
                   " argument of " + f + " must be a const-expression");
    if (id->constant) {  // a constant lane index or delta must name a lane that can exist
      const double c = *id->constant;
      const unsigned limit = fn->args == A::NumericConstId ? fn->idLimit : 128;
      if (c < 0) fail(at, "the lane argument of " + f + " must be greater than or equal to zero");
      if (c >= limit)
        fail(at, "the lane argument of " + f + " must be less than " + std::to_string(limit));
    }
    // GLSL takes the lane as a uint.
    if (it.k == K::I32)
      id = id->constant ? literal(*id->constant, Type::scalar(K::U32), at)
                        : node(EK::Convert, at, Type::scalar(K::U32), {id});
    else
      id = convert(id, Type::scalar(K::U32), at);
  }
  if (fn->result == R::Vec4U32) result = Type::vec(4, Type::scalar(K::U32));
  if (fn->result == R::Bool) result = Type::scalar(K::Bool);
  ir::Expr* out = node(EK::Builtin, e.pos, result, std::move(a));
  out->name = f;
  return out;
}

}  // namespace wgsl::detail
