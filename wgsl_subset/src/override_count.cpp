// Array counts that are override-expressions (`array<f32, n * 2u>`): the resolver writes the
// expression as a postfix program (wgsl_subset.h: ComputedCount), and pipeline creation evaluates
// it with the pipeline's override values, as WGSL evaluates an override-expression: integers
// exact, and an error where a const-expression would have one (overflow, division by zero,
// shifts of 32 or more). The shader sees only the result, a specialization constant, so GLSL's
// own spec-constant arithmetic (which wraps, and whose `%` takes the divisor's sign) never
// decides it.
#include "override_count.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace wgsl {
namespace {

constexpr int64_t kI32Min = -2147483648LL, kI32Max = 2147483647LL, kU32Max = 4294967295LL;

bool inRange(int64_t v, bool isSigned) {
  return isSigned ? v >= kI32Min && v <= kI32Max : v >= 0 && v <= kU32Max;
}

// The value of the same 32 bits in the other type.
int64_t reinterpret(int64_t v, bool toSigned) {
  const auto bits = static_cast<uint32_t>(v);
  return toSigned ? static_cast<int64_t>(static_cast<int32_t>(bits)) : static_cast<int64_t>(bits);
}

}  // namespace

CountValue evaluateCount(const ComputedCount& count,
                         const std::function<std::optional<double>(uint32_t)>& overrideValue) {
  CountValue out;
  std::vector<int64_t> stack;
  const auto fail = [&](const std::string& why) {
    out.error = "'" + count.text + "': it " + why;
    return out;
  };
  for (const std::string& token : count.program) {
    if (token.size() < 2) return fail("is malformed");
    const bool isSigned = token.back() == 'i';
    if (token[0] == 'o' ||
        ((token[0] == 'i' || token[0] == 'u') &&
         (std::isdigit(static_cast<unsigned char>(token[1])) || token[1] == '-'))) {
      // "o<id><i|u>": an override of that type; "i<v>", "u<v>": a literal.
      const char* last = token.data() + token.size() - (token[0] == 'o' ? 1 : 0);
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(token.data() + 1, last, v);
      if (ec != std::errc() || end != last) return fail("is malformed");
      if (token[0] == 'o') {
        const std::optional<double> value = overrideValue(static_cast<uint32_t>(v));
        if (!value) return fail("uses override " + std::to_string(v) + ", which is not set");
        const double t = std::trunc(*value);
        if (!(t >= (isSigned ? -2147483648.0 : 0.0) &&
              t <= (isSigned ? 2147483647.0 : 4294967295.0)))
          return fail("uses override " + std::to_string(v) + " = " + std::to_string(*value) +
                      ", which is no " + (isSigned ? "i32" : "u32"));
        v = static_cast<int64_t>(t);
      }
      if (!inRange(v, token[0] == 'o' ? isSigned : token[0] == 'i'))  // a literal past its type
        return fail("is malformed");
      stack.push_back(v);
      continue;
    }
    const std::string op = token.substr(0, token.size() - 1);  // without the result type
    if (stack.empty()) return fail("is malformed");
    const int64_t b = stack.back();
    if (op == "neg" || op == "~" || op == "as") {
      int64_t& a = stack.back();
      a = op == "neg" ? -b : reinterpret(op == "~" ? ~b : b, isSigned);
      if (!inRange(a, isSigned)) return fail("overflows (" + std::to_string(a) + ")");
      continue;
    }
    stack.pop_back();
    if (stack.empty()) return fail("is malformed");
    int64_t& a = stack.back();
    if (op == "+") {
      a += b;
    } else if (op == "-") {
      a -= b;
    } else if (op == "*") {
      a *= b;  // both within 32 bits: exact in 64
    } else if (op == "/" || op == "%") {
      if (b == 0) return fail("divides by zero");
      if (isSigned && a == kI32Min && b == -1) return fail("overflows (" + token + ")");
      a = op == "/" ? a / b : a % b;  // toward zero; the remainder takes the dividend's sign
    } else if (op == "&" || op == "|" || op == "^") {
      const auto x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b);
      a = reinterpret(op == "&" ? x & y : op == "|" ? x | y : x ^ y, isSigned);
    } else if (op == "<<" || op == ">>") {
      if (b < 0 || b >= 32) return fail("shifts by " + std::to_string(b) + " (32 or more)");
      // << keeps every bit shifted out equal to the result's sign: the product stays in range.
      a = op == "<<" ? a * (int64_t{1} << b) : a >> b;  // >> of an i32: arithmetic
    } else {
      return fail("has an unknown operation '" + token + "'");
    }
    if (!inRange(a, isSigned)) return fail("overflows (" + std::to_string(a) + ")");
  }
  if (stack.size() != 1) return fail("is malformed");
  if (stack.back() <= 0)
    return fail("is " + std::to_string(stack.back()) + " (it must be greater than 0)");
  out.value = stack.back();
  return out;
}

}  // namespace wgsl

namespace wgsl::detail {

std::string overrideCountProgram(const ir::Expr* e, std::vector<std::string>& program,
                                 std::string& text) {
  using K = Type::K;
  using EK = ir::Expr::Kind;
  const K k = e->type.k;
  if (k != K::I32 && k != K::U32) return "a value of type " + e->type.wgsl();
  const std::string suffix = k == K::I32 ? "i" : "u";
  if (e->constant) {
    program.push_back(suffix + std::to_string(static_cast<int64_t>(*e->constant)));
    text = literalText(*e->constant, e->type);
    return "";
  }
  std::vector<std::string> parts(e->args.size());
  for (size_t i = 0; i < e->args.size(); ++i) {  // bounded: the parser limits expression depth
    if (e->kind != EK::Paren && e->kind != EK::Unary && e->kind != EK::Binary &&
        e->kind != EK::Convert)
      break;
    if (std::string why = overrideCountProgram(e->args[i], program, parts[i]); !why.empty())
      return why;
  }
  switch (e->kind) {
    case EK::Ref:
      if (e->var->kind != ir::Variable::Kind::Override) return "'" + e->var->name + "'";
      program.push_back("o" + std::to_string(e->var->overrideId) + suffix);
      text = e->var->name;
      return "";
    case EK::Paren:
      text = "(" + parts[0] + ")";
      return "";
    case EK::Unary:
      if (e->name != "-" && e->name != "~") return "unary '" + e->name + "'";
      program.push_back((e->name == "-" ? "neg" : "~") + suffix);
      text = e->name + parts[0];
      return "";
    case EK::Binary:
      for (const char* op : {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"}) {
        if (e->name != op) continue;
        program.push_back(e->name + suffix);
        text = parts[0] + " " + e->name + " " + parts[1];
        return "";
      }
      return "'" + e->name + "'";
    case EK::Convert:
      if (e->args[0]->type.k != k) program.push_back("as" + suffix);
      text = e->type.wgsl() + "(" + parts[0] + ")";
      return "";
    default:
      return "this kind of expression";
  }
}

}  // namespace wgsl::detail
