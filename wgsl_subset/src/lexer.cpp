#include "lexer.h"

#include <cctype>
#include <cstdio>
#include <set>

namespace wgsl::detail {
namespace {

// WGSL's reserved words (spec §15.3): never identifiers.
const std::set<std::string, std::less<>> kReserved = {"NULL",
                                                      "Self",
                                                      "abstract",
                                                      "active",
                                                      "alignas",
                                                      "alignof",
                                                      "as",
                                                      "asm",
                                                      "asm_fragment",
                                                      "async",
                                                      "attribute",
                                                      "auto",
                                                      "await",
                                                      "become",
                                                      "cast",
                                                      "catch",
                                                      "class",
                                                      "co_await",
                                                      "co_return",
                                                      "co_yield",
                                                      "coherent",
                                                      "column_major",
                                                      "common",
                                                      "compile",
                                                      "compile_fragment",
                                                      "concept",
                                                      "const_cast",
                                                      "consteval",
                                                      "constexpr",
                                                      "constinit",
                                                      "crate",
                                                      "debugger",
                                                      "decltype",
                                                      "delete",
                                                      "demote",
                                                      "demote_to_helper",
                                                      "do",
                                                      "dynamic_cast",
                                                      "enum",
                                                      "explicit",
                                                      "export",
                                                      "extends",
                                                      "extern",
                                                      "external",
                                                      "fallthrough",
                                                      "filter",
                                                      "final",
                                                      "finally",
                                                      "friend",
                                                      "from",
                                                      "fxgroup",
                                                      "get",
                                                      "goto",
                                                      "groupshared",
                                                      "highp",
                                                      "impl",
                                                      "implements",
                                                      "import",
                                                      "inline",
                                                      "instanceof",
                                                      "interface",
                                                      "layout",
                                                      "lowp",
                                                      "macro",
                                                      "macro_rules",
                                                      "match",
                                                      "mediump",
                                                      "meta",
                                                      "mod",
                                                      "module",
                                                      "move",
                                                      "mut",
                                                      "mutable",
                                                      "namespace",
                                                      "new",
                                                      "nil",
                                                      "noexcept",
                                                      "noinline",
                                                      "nointerpolation",
                                                      "non_coherent",
                                                      "noncoherent",
                                                      "noperspective",
                                                      "null",
                                                      "nullptr",
                                                      "of",
                                                      "operator",
                                                      "package",
                                                      "packoffset",
                                                      "partition",
                                                      "pass",
                                                      "patch",
                                                      "pixelfragment",
                                                      "precise",
                                                      "precision",
                                                      "premerge",
                                                      "priv",
                                                      "protected",
                                                      "pub",
                                                      "public",
                                                      "readonly",
                                                      "ref",
                                                      "regardless",
                                                      "register",
                                                      "reinterpret_cast",
                                                      "require",
                                                      "resource",
                                                      "restrict",
                                                      "self",
                                                      "set",
                                                      "shared",
                                                      "sizeof",
                                                      "smooth",
                                                      "snorm",
                                                      "static",
                                                      "static_assert",
                                                      "static_cast",
                                                      "std",
                                                      "subroutine",
                                                      "super",
                                                      "target",
                                                      "template",
                                                      "this",
                                                      "thread_local",
                                                      "throw",
                                                      "trait",
                                                      "try",
                                                      "type",
                                                      "typedef",
                                                      "typeid",
                                                      "typename",
                                                      "typeof",
                                                      "union",
                                                      "unless",
                                                      "unorm",
                                                      "unsafe",
                                                      "unsized",
                                                      "use",
                                                      "using",
                                                      "varying",
                                                      "virtual",
                                                      "volatile",
                                                      "wgsl",
                                                      "where",
                                                      "with",
                                                      "writeonly",
                                                      "yield"};

// The length of the well-formed UTF-8 sequence of a code point >= U+0080 at src[i]; 0 if none.
size_t utf8Length(std::string_view src, size_t i) {
  const auto b = static_cast<unsigned char>(src[i]);
  const size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? (b <= 0xEF ? 3 : 0) : b >= 0xC2 ? 2 : 0;
  if (n == 0 || i + n > src.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(src[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

std::string hex(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04X", cp);
  return buf;
}

// The code point of the UTF-8 sequence of length `n` at src[i].
uint32_t codePoint(std::string_view src, size_t i, size_t n) {
  uint32_t cp = static_cast<unsigned char>(src[i]) & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(src[i + k]) & 0x3F);
  return cp;
}

// Whether a non-ASCII code point may appear in an identifier. WGSL takes Unicode's XID_Start
// and XID_Continue; this rejects the blocks that hold no letters or digits (Latin-1 symbols,
// punctuation, arrows, mathematical and technical symbols, box drawing, dingbats, emoji,
// private use, specials) and accepts the rest, so every script's letters pass and symbols do not.
bool identifierCodePoint(uint32_t cp) {
  if (cp < 0xC0) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;  // ª µ º
  if (cp == 0xD7 || cp == 0xF7) return false;                    // × ÷
  static const std::pair<uint32_t, uint32_t> symbols[] = {
      {0x2000, 0x203E}, {0x2041, 0x2053}, {0x2055, 0x206F},   {0x2190, 0x2BFF},   {0x2E00, 0x2E7F},
      {0x3000, 0x3004}, {0x3008, 0x3020}, {0xD800, 0xF8FF},   {0xFE00, 0xFE0F},   {0xFE10, 0xFE6F},
      {0xFF00, 0xFF0F}, {0xFFF0, 0xFFFF}, {0x1F000, 0x1FBFF}, {0xE0000, 0x10FFFF}};
  for (const auto& [lo, hi] : symbols) {
    if (cp >= lo && cp <= hi) return false;
  }
  return true;
}

}  // namespace

const char* tokName(Tok t) {
  switch (t) {
    case Tok::Ident:
      return "identifier";
    case Tok::IntLit:
      return "integer literal";
    case Tok::FloatLit:
      return "float literal";
    case Tok::LParen:
      return "'('";
    case Tok::RParen:
      return "')'";
    case Tok::LBrace:
      return "'{'";
    case Tok::RBrace:
      return "'}'";
    case Tok::LBracket:
      return "'['";
    case Tok::RBracket:
      return "']'";
    case Tok::Lt:
      return "'<'";
    case Tok::Gt:
      return "'>'";
    case Tok::Le:
      return "'<='";
    case Tok::Ge:
      return "'>='";
    case Tok::EqEq:
      return "'=='";
    case Tok::NotEq:
      return "'!='";
    case Tok::Eq:
      return "'='";
    case Tok::Comma:
      return "','";
    case Tok::Colon:
      return "':'";
    case Tok::Semi:
      return "';'";
    case Tok::Dot:
      return "'.'";
    case Tok::Arrow:
      return "'->'";
    case Tok::At:
      return "'@'";
    case Tok::Plus:
      return "'+'";
    case Tok::Minus:
      return "'-'";
    case Tok::Star:
      return "'*'";
    case Tok::Slash:
      return "'/'";
    case Tok::Percent:
      return "'%'";
    case Tok::Amp:
      return "'&'";
    case Tok::Pipe:
      return "'|'";
    case Tok::Caret:
      return "'^'";
    case Tok::Tilde:
      return "'~'";
    case Tok::Bang:
      return "'!'";
    case Tok::AndAnd:
      return "'&&'";
    case Tok::OrOr:
      return "'||'";
    case Tok::Shl:
      return "'<<'";
    case Tok::Shr:
      return "'>>'";
    case Tok::PlusEq:
      return "'+='";
    case Tok::MinusEq:
      return "'-='";
    case Tok::StarEq:
      return "'*='";
    case Tok::SlashEq:
      return "'/='";
    case Tok::PercentEq:
      return "'%='";
    case Tok::AmpEq:
      return "'&='";
    case Tok::PipeEq:
      return "'|='";
    case Tok::CaretEq:
      return "'^='";
    case Tok::ShlEq:
      return "'<<='";
    case Tok::ShrEq:
      return "'>>='";
    case Tok::PlusPlus:
      return "'++'";
    case Tok::MinusMinus:
      return "'--'";
    case Tok::Underscore:
      return "'_'";
    case Tok::End:
      return "end of input";
  }
  return "?";
}

std::vector<Token> lex(std::string_view src) {
  std::vector<Token> out;
  SourcePos pos;
  size_t i = 0;
  const auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && i < src.size(); ++k, ++i) {
      if (src[i] == '\n')
        pos.line++, pos.column = 1;
      else
        pos.column++;
    }
  };
  while (i < src.size()) {
    const char c = src[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance(1);
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      while (i < src.size() && src[i] != '\n') advance(1);
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {  // block comments nest in WGSL
      const SourcePos start = pos;
      int depth = 0;
      do {
        if (i + 1 < src.size() && src[i] == '/' && src[i + 1] == '*')
          depth++, advance(2);
        else if (i + 1 < src.size() && src[i] == '*' && src[i + 1] == '/')
          depth--, advance(2);
        else if (i < src.size())
          advance(1);
        if (i >= src.size() && depth > 0) fail(start, "unterminated block comment");
      } while (depth > 0);
      continue;
    }
    const SourcePos start = pos;
    // Identifiers: ASCII letters, digits and '_', plus non-ASCII letters (identifierCodePoint).
    if (const size_t n0 = utf8Length(src, i); n0 > 0 && !identifierCodePoint(codePoint(src, i, n0)))
      fail(start, "invalid character in an identifier (U+" + hex(codePoint(src, i, n0)) + ")");
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || utf8Length(src, i) > 0) {
      size_t j = i;
      for (;;) {
        if (j < src.size() && (std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_')) {
          ++j;
        } else if (const size_t n = j < src.size() ? utf8Length(src, j) : 0; n > 0) {
          if (!identifierCodePoint(codePoint(src, j, n))) {
            SourcePos at = start;
            at.column += static_cast<uint32_t>(j - i);
            fail(at, "invalid character in an identifier (U+" + hex(codePoint(src, j, n)) + ")");
          }
          j += n;
        } else {
          break;
        }
      }
      std::string text(src.substr(i, j - i));
      if (text.starts_with("__"))
        fail(start, "identifiers must not start with two or more underscores");
      if (kReserved.contains(text)) fail(start, "'" + text + "' is a reserved keyword");
      // advance() counts columns in bytes; Tint counts code points.
      for (size_t k = i; k < j; ++k) {
        if ((static_cast<unsigned char>(src[k]) & 0xC0) == 0x80) pos.column--;
      }
      advance(j - i);
      out.push_back({text == "_" ? Tok::Underscore : Tok::Ident, text, start});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
      size_t j = i;
      bool isFloat = false;
      if (c == '0' && j + 1 < src.size() && (src[j + 1] == 'x' || src[j + 1] == 'X')) {
        j += 2;
        while (j < src.size() && std::isxdigit(static_cast<unsigned char>(src[j]))) ++j;
        if (j < src.size() && (src[j] == '.' || src[j] == 'p' || src[j] == 'P'))
          unsupported(start, "hexadecimal float literal");
        if (j == i + 2) fail(start, "hexadecimal literal has no digits");
      } else {
        while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
        if (j < src.size() && src[j] == '.') {
          isFloat = true;
          ++j;
          while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
        }
        if (j < src.size() && (src[j] == 'e' || src[j] == 'E')) {
          isFloat = true;
          size_t k = j + 1;
          if (k < src.size() && (src[k] == '+' || src[k] == '-')) ++k;
          if (k >= src.size() || !std::isdigit(static_cast<unsigned char>(src[k])))
            fail(start, "malformed exponent in float literal");
          while (k < src.size() && std::isdigit(static_cast<unsigned char>(src[k]))) ++k;
          j = k;
        }
      }
      if (j < src.size() && (src[j] == 'f' || src[j] == 'h')) {
        isFloat = true;
        ++j;
      } else if (j < src.size() && (src[j] == 'i' || src[j] == 'u')) {
        if (isFloat)
          fail(start, "a float literal cannot take the suffix '" + std::string(1, src[j]) + "'");
        ++j;
      }
      if (j < src.size() && (std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_')) {
        fail(start, "invalid character '" + std::string(1, src[j]) + "' in numeric literal");
      }
      std::string text(src.substr(i, j - i));
      advance(j - i);
      out.push_back({isFloat ? Tok::FloatLit : Tok::IntLit, text, start});
      continue;
    }
    struct Op {
      const char* text;
      Tok kind;
    };
    static const Op ops[] = {
        {"<<=", Tok::ShlEq},  {">>=", Tok::ShrEq},  {"->", Tok::Arrow},     {"<=", Tok::Le},
        {">=", Tok::Ge},      {"==", Tok::EqEq},    {"!=", Tok::NotEq},     {"&&", Tok::AndAnd},
        {"||", Tok::OrOr},    {"<<", Tok::Shl},     {"+=", Tok::PlusEq},    {"-=", Tok::MinusEq},
        {"*=", Tok::StarEq},  {"/=", Tok::SlashEq}, {"%=", Tok::PercentEq}, {"&=", Tok::AmpEq},
        {"|=", Tok::PipeEq},  {"^=", Tok::CaretEq}, {"++", Tok::PlusPlus},  {"--", Tok::MinusMinus},
        {"(", Tok::LParen},   {")", Tok::RParen},   {"{", Tok::LBrace},     {"}", Tok::RBrace},
        {"[", Tok::LBracket}, {"]", Tok::RBracket}, {"<", Tok::Lt},         {">", Tok::Gt},
        {"=", Tok::Eq},       {",", Tok::Comma},    {":", Tok::Colon},      {";", Tok::Semi},
        {".", Tok::Dot},      {"@", Tok::At},       {"+", Tok::Plus},       {"-", Tok::Minus},
        {"*", Tok::Star},     {"/", Tok::Slash},    {"%", Tok::Percent},    {"&", Tok::Amp},
        {"|", Tok::Pipe},     {"^", Tok::Caret},    {"~", Tok::Tilde},      {"!", Tok::Bang},
    };
    bool matched = false;
    for (const Op& op : ops) {
      const std::string_view t(op.text);
      if (src.substr(i, t.size()) == t) {
        // `>>` is lexed as two `>` so that `array<vec2<f32>>` closes both templates; the parser
        // joins adjacent `>` `>` into a shift where an expression needs one.
        out.push_back({op.kind, std::string(t), start});
        advance(t.size());
        matched = true;
        break;
      }
    }
    if (!matched) {
      const auto uc = static_cast<unsigned char>(c);
      fail(start, uc < 0x20 || uc >= 0x7f
                      ? "unexpected byte 0x" + std::string(1, "0123456789abcdef"[uc >> 4]) +
                            std::string(1, "0123456789abcdef"[uc & 15])
                      : "unexpected character '" + std::string(1, c) + "'");
    }
  }
  out.push_back({Tok::End, "", pos});
  return out;
}

}  // namespace wgsl::detail
