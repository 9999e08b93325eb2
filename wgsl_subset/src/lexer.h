// WGSL tokens with positions. Literals keep their spelling; the resolver types them.
#pragma once

#include <string>
#include <vector>

#include "diagnostics.h"

namespace wgsl::detail {

enum class Tok {
  Ident,
  IntLit,
  FloatLit,
  // punctuation and operators
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Lt,
  Gt,
  Le,
  Ge,
  EqEq,
  NotEq,
  Eq,
  Comma,
  Colon,
  Semi,
  Dot,
  Arrow,
  At,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Amp,
  Pipe,
  Caret,
  Tilde,
  Bang,
  AndAnd,
  OrOr,
  Shl,
  Shr,
  PlusEq,
  MinusEq,
  StarEq,
  SlashEq,
  PercentEq,
  AmpEq,
  PipeEq,
  CaretEq,
  ShlEq,
  ShrEq,
  PlusPlus,
  MinusMinus,
  Underscore,
  End,
};

struct Token {
  Tok kind;
  std::string text;
  SourcePos pos;
};

std::vector<Token> lex(std::string_view source);
const char* tokName(Tok t);

}  // namespace wgsl::detail
