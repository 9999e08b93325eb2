// The GLSL writer's expressions (glsl_writer_class.h).
#include "glsl_writer_class.h"
#include "subgroups.h"

#include "glsl_prelude.h"
#include "layout.h"

namespace wgsl::detail {

std::string GlslWriter::args(const ir::Expr& e) {
  std::string out;
  for (size_t i = 0; i < e.args.size(); ++i) out += (i ? ", " : "") + expr(e.args[i]);
  return out;
}

std::optional<Std140::Rep> GlslWriter::uniformRep(const ir::Expr* e, std::string* pre,
                                                  const std::string& p, bool hoisted) {
  using Rep = Std140::Rep;
  switch (e->kind) {
    case EK::Ref: {
      const ir::Variable& v = *e->var;
      if (v.kind != ir::Variable::Kind::Global || v.space != "uniform" ||
          !std140_.holdsSplitMatrix(v.type))
        return std::nullopt;
      if (v.type.k == K::Struct) return Rep{Rep::Kind::Block, name(&v), {}, {}};
      if (v.type.k == K::Array) return Rep{Rep::Kind::Mirror, name(&v), {}, {}};
      return Rep{Rep::Kind::Split, {}, {}, name(&v)};
    }
    case EK::Paren:
      return uniformRep(e->args[0], pre, p, hoisted);
    case EK::Member: {
      auto base = uniformRep(e->args[0], pre, p, hoisted);
      if (!base) return std::nullopt;
      if (base->kind == Rep::Kind::Plain)
        return Rep{Rep::Kind::Plain, base->code + "." + glslName(e->name), {}, {}};
      return std140_.member(base->code, glslName(e->name), e->type);
    }
    case EK::Index: {
      auto base = uniformRep(e->args[0], pre, p, hoisted);
      if (!base) return std::nullopt;
      const Type& bt = e->args[0]->type;
      const std::string code = bt.k == K::Array && base->kind != Rep::Kind::Plain
                                   ? base->code
                                   : std140_.value(*base, bt);
      std::string index = expr(e->args[1]);
      if (pre && !e->args[1]->constant) index = indexTemporary(index, *pre, p, hoisted);
      const std::string element = indexed(code, bt, index);
      if (bt.k == K::Array) return std140_.element(element, e->type);
      return Rep{Rep::Kind::Plain, element, {}, {}};  // a column, or a component
    }
    default:
      return std::nullopt;
  }
}

std::string GlslWriter::expr(const ir::Expr* e) {
  if (e->kind == EK::Ref || e->kind == EK::Member || e->kind == EK::Index) {
    if (auto r = uniformRep(e)) return std140_.value(*r, e->type);
  }
  switch (e->kind) {
    case EK::Literal:
      return literalText(*e->constant, e->type);
    case EK::Ref:
      if (e->var->inlined) return expr(e->var->inlined);
      if (e->type.k == K::Ptr) {  // spelled as the memory it points at
        if (auto it = pointers_.find(e->var); it != pointers_.end()) return it->second;
        if (auto it = binding_.find(e->var); it != binding_.end()) return it->second;
        return name(e->var);  // an inout parameter
      }
      if (isBufferStruct(*e)) return bufferStructValue(*e->var);
      return name(e->var);
    case EK::Paren:
      return "(" + expr(e->args[0]) + ")";
    case EK::Unary:
      return "(" + e->name + expr(e->args[0]) + ")";
    case EK::Binary:
      return binary(*e);
    case EK::Index:
      return indexed(expr(e->args[0]), e->args[0]->type, expr(e->args[1]), bounds_.inRange(*e));
    case EK::AddressOf:
      return place(e->args[0]);
    case EK::Deref: {  // a whole buffer struct as a value: rebuilt, as bufferStructValue does
      const std::string code = place(e);
      auto it = bufferBlocks_.find(code);
      return it != bufferBlocks_.end() ? bufferStructValue(*it->second) : code;
    }
    case EK::Member:  // a buffer's block instance names its members directly
      return place(e->args[0]) + "." + glslName(e->name);
    case EK::Swizzle:
      return expr(e->args[0]) + "." + e->name;
    case EK::Convert: {  // f32 (and f16, through f32: exact) to integers saturates
      const Type& from = e->args[0]->type.scalarType();
      const Type& to = e->type.scalarType();
      const bool vec = e->type.k == K::Vec;
      const std::string v = vec ? "v" : "";
      std::string arg = expr(e->args[0]);
      if (from.k == K::F16 && (to.k == K::I32 || to.k == K::U32))
        arg = (vec ? "vec" + std::to_string(e->type.n) : std::string("float")) + "(" + arg + ")";
      const bool real = from.k == K::F32 || from.k == K::F16;
      if (real && to.k == K::I32) return "tg_" + v + "f2i(" + arg + ")";
      if (real && to.k == K::U32) return "tg_" + v + "f2u(" + arg + ")";
      return e->type.glsl() + "(" + arg + ")";
    }
    case EK::Bitcast: {  // scalars or vectors; int <-> uint conversions keep the bits
      const Type& from = e->args[0]->type.scalarType();
      const Type& to = e->type.scalarType();
      if (from.k == K::F16 || to.k == K::F16) return bitcastF16(*e);
      std::string fn = e->type.glsl();
      if (from.k == K::F32) fn = to.k == K::U32 ? "floatBitsToUint" : "floatBitsToInt";
      if (to.k == K::F32) fn = from.k == K::U32 ? "uintBitsToFloat" : "intBitsToFloat";
      return fn + "(" + expr(e->args[0]) + ")";
    }
    case EK::Construct:
      return construct(*e);
    case EK::Call:
      return call(*e);
    case EK::Builtin: {
      if (e->name == "dot" && e->type.isInteger()) return "tg_dot(" + args(*e) + ")";
      if (e->name == "modf" || e->name == "frexp") return modfFrexp(*e);
      if (const SubgroupFunction* s = subgroupFunction(e->name))
        return std::string(s->glsl) + "(" + args(*e) + ")";
      std::string code = builtinName(e->name) + "(" + args(*e) + ")";
      if ((e->name == "firstLeadingBit" || e->name == "countOneBits") &&
          e->type.scalarType().k == K::U32)
        code = e->type.glsl() + "(" + code + ")";  // findMSB and bitCount return int
      return code;
    }
    case EK::ArrayLength:
      return "uint(" + expr(e->args[0]) + ".length())";
    case EK::Atomic:
      return atomic(*e);
    case EK::Barrier: {
      if (e->name == "storageBarrier") return "memoryBarrierBuffer(), barrier()";
      if (e->name != "workgroupUniformLoad") return "barrier()";
      // (barrier(), t = *p, barrier(), t), t a module-scope (per-invocation) temporary.
      const std::string t = "tg_wul_" + std::to_string(++counter_);
      decls_ += e->type.glsl() + " " + t + dims(e->type) + ";\n";
      return "(barrier(), " + t + " = " + expr(e->args[0]) + ", barrier(), " + t + ")";
    }
    case EK::Select:
      if (e->args[2]->type.k == K::Vec)  // component-wise: GLSL's mix with a bvec
        return "mix(" + expr(e->args[0]) + ", " + expr(e->args[1]) + ", " + expr(e->args[2]) + ")";
      return "(" + expr(e->args[2]) + " ? " + expr(e->args[1]) + " : " + expr(e->args[0]) + ")";
  }
  return "";
}

std::string GlslWriter::staticUse(const ir::Expr& pointer, const std::string& p) {
  std::string code = expr(&pointer);
  Type t = *pointer.type.elem;
  for (;;) {
    if (t.k == K::Array && t.n == 0) {
      code += ".length()";
      t = Type::scalar(K::I32);
    } else if (t.k == K::Array) {
      code += "[0]";
      t = *t.elem;
      continue;
    } else if (t.k == K::Struct) {
      const auto& first = m_.structs.at(t.name).front();
      code += "." + glslName(first.first);
      t = first.second;
      continue;
    }
    break;
  }
  return p + t.glsl() + " tg_use_" + std::to_string(++counter_) + " = " + code + ";\n";
}

std::string GlslWriter::bitcastF16(const ir::Expr& e) {
  const Type& fromType = e.args[0]->type;
  const K from = fromType.scalarType().k, to = e.type.scalarType().k;
  const bool pair = fromType.k == K::Vec && (from == K::F16 ? fromType.n == 4 : fromType.n == 2);
  std::string u = expr(e.args[0]);  // the bits, as uint (uvec2 for 64 bits)
  if (from == K::F16)
    u = (pair ? "tg_h4bits(" : "packFloat2x16(") + u + ")";
  else if (from == K::F32)
    u = "floatBitsToUint(" + u + ")";
  else if (from == K::I32)
    u = (pair ? "uvec2(" : "uint(") + u + ")";
  if (to == K::F16) return (pair ? "tg_bitsh4(" : "unpackFloat2x16(") + u + ")";
  if (to == K::F32) return "uintBitsToFloat(" + u + ")";
  if (to == K::I32) return (pair ? "ivec2(" : "int(") + u + ")";
  return u;
}

std::string GlslWriter::modfFrexp(const ir::Expr& e) {
  const std::string& s = e.type.name;
  const std::string helper = "tg_" + e.name + "_" + std::to_string(e.args[0]->type.n) +
                             (e.args[0]->type.scalarType().k == K::F16 ? "h" : "");
  if (builtinStructs_.insert(s).second) {
    const std::string st = glslName(s), second = glslName(m_.structs.at(s)[1].first);
    decls_ += "struct " + st + " {\n" + glslMemberDecls(s, m_.structs, m_.layouts, "  ", "\n") +
              "};\n" + st + " " + helper + "(" + e.args[0]->type.glsl() + " x) { " + st +
              " r; r.w_fract = " + e.name + "(x, r." + second + "); return r; }\n";
  }
  return helper + "(" + expr(e.args[0]) + ")";
}

std::string GlslWriter::indexed(const std::string& base, const Type& bt, const std::string& index,
                                bool inRange) {
  if (inRange) return base + "[" + index + "]";
  const std::string limit = bt.k == K::Array && !bt.n ? "uint(" + base + ".length()) - 1u"
                            : bt.overrideSized()      ? "uint(" + glslName(bt.name) + ") - 1u"
                                                      : std::to_string(bt.n - 1) + "u";
  return base + "[min(uint(" + index + "), " + limit + ")]";
}

std::string GlslWriter::pointerLet(const ir::Stmt& s, const std::string& p) {
  std::string pre;
  pointers_[s.var] = pointerPath(s.value, pre, p, hoisted_.contains(s.var));
  return pre;
}

std::string GlslWriter::indexTemporary(const std::string& index, std::string& pre,
                                       const std::string& p, bool hoisted) {
  const std::string t = "tg_i_" + std::to_string(++counter_);
  if (hoisted) loopTemps_.push_back(t);
  pre += p + (hoisted ? "" : "uint ") + t + " = uint(" + index + ");\n";
  return t;
}

std::string GlslWriter::pointerPath(const ir::Expr* e, std::string& pre, const std::string& p,
                                    bool hoisted) {
  // Into a uniform buffer holding a split matrix: the value it names (uniform memory is
  // read-only).
  if (e->kind == EK::Ref || e->kind == EK::Member || e->kind == EK::Index) {
    if (auto r = uniformRep(e, &pre, p, hoisted)) return std140_.value(*r, e->type);
  }
  switch (e->kind) {
    case EK::Paren:
    case EK::AddressOf:
    case EK::Deref:
      return pointerPath(e->args[0], pre, p, hoisted);
    case EK::Index: {
      const std::string base = pointerPath(e->args[0], pre, p, hoisted);
      std::string index = expr(e->args[1]);
      if (!e->args[1]->constant) index = indexTemporary(index, pre, p, hoisted);
      return indexed(base, e->args[0]->type, index);
    }
    case EK::Member:
      return (isBufferStruct(*e->args[0]) ? name(e->args[0]->var)
                                          : pointerPath(e->args[0], pre, p, hoisted)) +
             "." + glslName(e->name);
    default:
      return place(e);
  }
}

std::string GlslWriter::place(const ir::Expr* e) {
  if (e->kind == EK::Ref || e->kind == EK::Member || e->kind == EK::Index) {
    if (auto r = uniformRep(e)) return std140_.value(*r, e->type);  // read-only: its value
  }
  if (isBufferStruct(*e)) return name(e->var);
  if (e->kind == EK::Paren) return place(e->args[0]);  // `(*p).m`: a postfix chain either way
  if (e->kind == EK::Deref) {
    const ir::Expr* p = e->args[0];
    while (p->kind == EK::Paren) p = p->args[0];
    return p->kind == EK::AddressOf ? place(p->args[0]) : expr(p);
  }
  return expr(e);
}

std::string GlslWriter::binary(const ir::Expr& e) {
  const std::string l = expr(e.args[0]), r = expr(e.args[1]);
  const std::string& op = e.name;
  if (op == "<<" || op == ">>")  // WGSL masks a run-time amount to the bit width
    return "(" + l + " " + op + " (" + r + " & 31u))";
  if (e.type.k == K::Vec && e.type.elem->k == K::Bool && e.args[0]->type.k == K::Vec &&
      e.args[0]->type.elem->k != K::Bool) {  // component-wise comparison
    const char* fn = op == "=="   ? "equal"
                     : op == "!=" ? "notEqual"
                     : op == "<"  ? "lessThan"
                     : op == ">"  ? "greaterThan"
                     : op == "<=" ? "lessThanEqual"
                                  : "greaterThanEqual";
    return std::string(fn) + "(" + l + ", " + r + ")";
  }
  if ((op == "&" || op == "|") && e.type.scalarType().k == K::Bool) {  // both sides evaluated
    const std::string u = e.type.k == K::Vec ? "uvec" + std::to_string(e.type.n) : "uint";
    return e.type.glsl() + "(" + u + "(" + l + ") " + op + " " + u + "(" + r + "))";
  }
  const bool integer = e.type.scalarType().isInteger();
  if ((op == "/" && integer) || op == "%") {
    const std::string fn = op == "/" ? "div(" : "rem(";
    if (e.type.k != K::Vec) return "tg_" + fn + l + ", " + r + ")";
    // Component-wise, a scalar operand splatted to the vector.
    const auto splat = [&](const ir::Expr* x, const std::string& code) {
      return x->type.k == K::Vec ? code : e.type.glsl() + "(" + code + ")";
    };
    return "tg_v" + fn + splat(e.args[0], l) + ", " + splat(e.args[1], r) + ")";
  }
  return "(" + l + " " + op + " " + r + ")";
}

std::string GlslWriter::construct(const ir::Expr& e) {
  const Type& t = e.type;
  if (e.args.empty()) return zeroValue(t);
  if (t.k == K::Struct) {  // padding members take zeros
    std::vector<std::string> values;
    for (const ir::Expr* a : e.args) values.push_back(expr(a));
    return glslStructValue(t.name, values, m_.structs, m_.layouts);
  }
  return t.glsl() + dims(t) + "(" + args(e) + ")";
}

std::string GlslWriter::zeroValue(const Type& t) const {
  if (t.k == K::Vec || t.k == K::Mat) return zeroOf(t);
  if (t.k == K::Array) {
    std::string code = t.glsl() + dims(t) + "(";
    for (int i = 0; i < t.n; ++i) code += (i ? ", " : "") + zeroValue(*t.elem);
    return code + ")";
  }
  if (t.k == K::Struct) {
    std::vector<std::string> values;
    for (const auto& [mn, mt] : m_.structs.at(t.name)) values.push_back(zeroValue(mt));
    return glslStructValue(t.name, values, m_.structs, m_.layouts);
  }
  return zeroOf(t);
}

bool GlslWriter::isBufferStruct(const ir::Expr& e) {
  return e.kind == EK::Ref && e.var->type.k == K::Struct &&
         (e.var->space == "storage" || e.var->space == "uniform");
}

std::string GlslWriter::bufferStructValue(const ir::Variable& v) {
  std::vector<std::string> values;
  for (const auto& [mn, mt] : m_.structs.at(v.type.name))
    values.push_back(name(&v) + "." + glslName(mn));
  return glslStructValue(v.type.name, values, m_.structs, m_.layouts);
}

std::string GlslWriter::atomic(const ir::Expr& e) {
  const std::string target = expr(e.args[0]);
  if (e.name == "atomicLoad") return "atomicOr(" + target + ", " + zeroOf(e.type) + ")";
  const std::string v = expr(e.args[1]);
  if (e.name == "atomicStore") return "atomicExchange(" + target + ", " + v + ")";
  if (e.name == "atomicSub") return "atomicAdd(" + target + ", -(" + v + "))";
  return e.name + "(" + target + ", " + v + ")";  // GLSL spells the others as WGSL does
}

}  // namespace wgsl::detail
