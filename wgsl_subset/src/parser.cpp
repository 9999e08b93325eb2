#include "parser.h"

#include <set>

namespace wgsl::detail {
namespace {

const std::set<std::string> kTemplatedTypes = {
    "vec2",   "vec3",   "vec4",   "array",  "atomic", "bitcast", "ptr",    "mat2x2",
    "mat3x3", "mat4x4", "mat2x3", "mat2x4", "mat3x2", "mat3x4",  "mat4x2", "mat4x3"};

// Templated names outside the subset (binding arrays; Tint's experimental buffer extension).
const std::set<std::string> kUnsupportedTemplated = {"buffer", "bufferArrayView", "bufferView",
                                                     "binding_array"};

// Deeply nested input must fail cleanly instead of exhausting the stack.
constexpr int kMaxNesting = 128;

// WGSL keywords: never names.
const std::set<std::string> kKeywords = {
    "alias",   "break",      "case",    "const", "const_assert", "continue", "continuing",
    "default", "diagnostic", "discard", "else",  "enable",       "false",    "fn",
    "for",     "if",         "let",     "loop",  "override",     "requires", "return",
    "struct",  "switch",     "true",    "var",   "while"};

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Module module() {
    Module m;
    bool declared = false;  // directives (enable, requires, diagnostic) come before declarations
    while (!at(Tok::End)) {
      if (atIdent("diagnostic")) {  // filters derivative and subgroup uniformity
        if (declared) fail(peek().pos, "directives must come before all module-scope declarations");
        next();
        expect(Tok::LParen, "after 'diagnostic'");
        std::vector<std::string> words;
        while (!at(Tok::RParen) && !at(Tok::End)) words.push_back(next().text);
        expect(Tok::RParen, "to close the diagnostic control");
        expect(Tok::Semi, "after the diagnostic directive");
        if (words.size() >= 3 && words[0] == "off" && words[2] == "subgroup_uniformity")
          m.subgroupUniformityOff = true;
        continue;
      }
      if (atIdent("enable")) {
        if (declared) fail(peek().pos, "directives must come before all module-scope declarations");
        next();
        do {
          const Token& name = expect(Tok::Ident, "naming an extension after 'enable'");
          // Extensions outside the subset stop here, before syntax they bring (`@blend_src`).
          if (name.text != "f16" && name.text != "subgroups") {
            static const char* known[] = {"clip_distances",        "dual_source_blending",
                                          "primitive_index",       "subgroups_f16",
                                          "subgroup_size_control", "atomic_vec2u_min_max"};
            bool isKnown = name.text.starts_with("chromium_");
            for (const char* k : known) isKnown = isKnown || name.text == k;
            if (isKnown) unsupported(name.pos, "extension '" + name.text + "'");
            fail(name.pos, "unknown extension '" + name.text + "'");
          }
          m.enables.push_back({name.pos, name.text});
        } while (at(Tok::Comma) && (next(), !at(Tok::Semi)));
        expect(Tok::Semi, "after the enable directive");
        continue;
      }
      if (atIdent("const_assert")) {
        m.constAsserts.push_back(constAssert());
        continue;
      }
      if (atIdent("requires")) unsupported(peek().pos, "'requires' directive");
      if (!at(Tok::Semi)) declared = true;
      if (atIdent("alias")) {
        m.aliases.push_back(aliasDecl());
        continue;
      }
      if (at(Tok::Semi)) {
        next();
        continue;
      }
      auto attrs = attributes();
      if (atIdent("fn")) {
        m.functions.push_back(function(std::move(attrs)));
      } else if (atIdent("var") || atIdent("const") || atIdent("override")) {
        m.globals.push_back(globalVar(std::move(attrs)));
      } else if (atIdent("struct")) {
        if (!attrs.empty()) fail(attrs[0].pos, "attributes are not allowed on a struct");
        m.structs.push_back(structDecl());
      } else if (atIdent("let")) {
        fail(peek().pos, "'let' is not allowed at module scope (use 'const')");
      } else {
        fail(peek().pos,
             "expected a module-scope declaration ('fn', 'var', 'const', 'override' or 'struct'), "
             "got " +
                 describe(peek()));
      }
    }
    return m;
  }

 private:
  // ---- tokens ----
  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool at(Tok k) const { return peek().kind == k; }
  bool atIdent(const char* word) const { return at(Tok::Ident) && peek().text == word; }
  const Token& next() {
    const Token& t = peek();
    if (i_ < t_.size() - 1) ++i_;
    return t;
  }
  static std::string describe(const Token& t) {
    return t.kind == Tok::Ident || t.kind == Tok::IntLit || t.kind == Tok::FloatLit
               ? "'" + t.text + "'"
               : tokName(t.kind);
  }
  const Token& expect(Tok k, const char* context) {
    if (!at(k))
      fail(peek().pos,
           std::string("expected ") + tokName(k) + " " + context + ", got " + describe(peek()));
    return next();
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    next();
    return true;
  }
  std::string ident(const char* what) {
    if (!at(Tok::Ident))
      fail(peek().pos, std::string("expected ") + what + ", got " + describe(peek()));
    if (kKeywords.contains(peek().text))
      fail(peek().pos, std::string("expected ") + what + ", got the keyword '" + peek().text + "'");
    return next().text;
  }
  // `>` `>` written without a gap is a right shift.
  bool atShr() const {
    return at(Tok::Gt) && peek(1).kind == Tok::Gt && peek(1).pos.line == peek().pos.line &&
           peek(1).pos.column == peek().pos.column + 1;
  }

  struct Nest {
    Nest(Parser& p, SourcePos pos) : parser(p) {
      if (++parser.depth_ > kMaxNesting)
        fail(pos, "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    ~Nest() { --parser.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    Parser& parser;
  };

  // ---- declarations ----
  std::vector<Attribute> attributes() {
    std::vector<Attribute> out;
    while (at(Tok::At)) {
      const SourcePos pos = next().pos;
      // `diagnostic` and `const` are keywords and attribute names too.
      const bool keywordName =
          at(Tok::Ident) && (peek().text == "diagnostic" || peek().text == "const");
      Attribute a{pos, keywordName ? next().text : ident("an attribute name"), {}};
      static const std::set<std::string> known = {
          "group", "binding",    "builtin",  "compute",     "workgroup_size", "id",
          "align", "size",       "location", "interpolate", "invariant",      "must_use",
          "const", "diagnostic", "vertex",   "fragment"};
      if (!known.contains(a.name)) fail(pos, "unknown attribute '@" + a.name + "'");
      for (const Attribute& earlier : out) {
        if (earlier.name == a.name) fail(pos, "duplicate '@" + a.name + "' attribute");
      }
      if (accept(Tok::LParen)) {
        while (!at(Tok::RParen)) {
          a.args.push_back(expression());
          if (!accept(Tok::Comma)) break;
        }
        expect(Tok::RParen, "to close the attribute arguments");
      }
      out.push_back(std::move(a));
    }
    return out;
  }

  TypeExpr type() {
    const Nest nest(*this, peek().pos);
    TypeExpr t;
    t.pos = peek().pos;
    t.name = ident("a type");
    if (kUnsupportedTemplated.contains(t.name) && at(Tok::Lt))
      unsupported(t.pos, "'" + t.name + "'");
    if (t.name.starts_with("texture_") || t.name == "sampler" || t.name == "sampler_comparison")
      unsupported(t.pos, "texture and sampler types ('" + t.name + "')");
    if (at(Tok::Lt) && (kTemplatedTypes.contains(t.name))) {
      next();
      if (t.name == "array") {
        t.args.push_back(type());
        if (accept(Tok::Comma) && !at(Tok::Gt))
          t.count = std::shared_ptr<Expr>(expression(/*noGreater=*/true).release());
        accept(Tok::Comma);
      } else if (t.name == "ptr") {  // ptr<space, T[, access]>: accessArgs = {space[, access]}
        t.accessArgs.push_back(ident("an address space"));
        expect(Tok::Comma, "after the pointer's address space");
        t.args.push_back(type());
        if (accept(Tok::Comma) && !at(Tok::Gt)) t.accessArgs.push_back(ident("an access mode"));
        accept(Tok::Comma);
      } else {
        t.args.push_back(type());
        accept(Tok::Comma);
      }
      expect(Tok::Gt, "to close the template list");
    }
    return t;
  }

  GlobalVar globalVar(std::vector<Attribute> attrs) {
    GlobalVar g;
    g.pos = peek().pos;
    g.attributes = std::move(attrs);
    const std::string word = next().text;
    if (word == "const") g.kind = GlobalVar::Kind::Const;
    if (word == "override") g.kind = GlobalVar::Kind::Override;
    if (word == "var" && accept(Tok::Lt)) {
      g.addressSpace = ident("an address space");
      if (accept(Tok::Comma)) g.access = ident("an access mode");
      expect(Tok::Gt, "to close the address space");
    }
    g.name = ident("a variable name");
    if (accept(Tok::Colon)) g.type = type();
    if (accept(Tok::Eq)) g.init = expression();
    expect(Tok::Semi, "after the declaration");
    return g;
  }

  AliasDecl aliasDecl() {
    AliasDecl a;
    a.pos = next().pos;
    a.name = ident("an alias name");
    expect(Tok::Eq, "after the alias name");
    a.type = type();
    expect(Tok::Semi, "after the alias");
    return a;
  }

  StructDecl structDecl() {
    StructDecl s;
    s.pos = next().pos;
    s.name = ident("a struct name");
    expect(Tok::LBrace, "to open the struct");
    while (!at(Tok::RBrace)) {
      auto attrs = attributes();
      for (const Attribute& a : attrs) {
        if (a.name != "size" && a.name != "align" && a.name != "builtin")
          unsupported(a.pos, "member attribute '@" + a.name + "'");
      }
      StructMember m;
      m.attributes = std::move(attrs);
      m.pos = peek().pos;
      m.name = ident("a member name");
      expect(Tok::Colon, "after the member name");
      m.type = type();
      s.members.push_back(std::move(m));
      if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RBrace, "to close the struct");
    accept(Tok::Semi);
    return s;
  }

  Function function(std::vector<Attribute> attrs) {
    Function f;
    f.pos = next().pos;
    f.attributes = std::move(attrs);
    f.name = ident("a function name");
    expect(Tok::LParen, "to open the parameter list");
    while (!at(Tok::RParen)) {
      Param p;
      p.attributes = attributes();
      p.pos = peek().pos;
      p.name = ident("a parameter name");
      expect(Tok::Colon, "after the parameter name");
      p.type = type();
      f.params.push_back(std::move(p));
      if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RParen, "to close the parameter list");
    if (accept(Tok::Arrow)) {
      auto ra = attributes();
      if (!ra.empty()) unsupported(ra[0].pos, "return value attribute");
      f.returnType = type();
    }
    f.body = block();
    return f;
  }

  // ---- statements ----
  // Attributes before a statement or a body: only @diagnostic, which filters derivative and
  // subgroup uniformity diagnostics (neither exists in compute code without subgroups).
  void bodyAttributes() {
    for (const Attribute& a : attributes()) {
      if (a.name != "diagnostic") fail(a.pos, "'@" + a.name + "' is not allowed here");
    }
  }

  // const_assert expr;
  StmtPtr constAssert() {
    auto s = make(Stmt::Kind::ConstAssert, next().pos);
    s->expr = expression();
    expect(Tok::Semi, "after the const assertion");
    return s;
  }

  std::vector<StmtPtr> block() {
    const Nest nest(*this, peek().pos);
    bodyAttributes();
    expect(Tok::LBrace, "to open a block");
    std::vector<StmtPtr> out;
    while (!at(Tok::RBrace)) {
      if (at(Tok::End)) fail(peek().pos, "expected '}' to close the block, got end of input");
      if (accept(Tok::Semi)) continue;
      out.push_back(statement());
    }
    next();
    return out;
  }

  StmtPtr make(Stmt::Kind k, SourcePos pos) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->pos = pos;
    return s;
  }

  StmtPtr statement() {
    const SourcePos pos = peek().pos;
    const Nest nest(*this, pos);
    if (at(Tok::At)) {
      bodyAttributes();
      if (!at(Tok::LBrace) && !atIdent("if") && !atIdent("for") && !atIdent("while") &&
          !atIdent("loop") && !atIdent("switch"))
        fail(peek().pos,
             "attributes are only allowed before a block, if, for, while, loop or switch");
    }
    if (at(Tok::LBrace)) {
      auto s = make(Stmt::Kind::Block, pos);
      s->body = block();
      return s;
    }
    if (atIdent("if")) return ifStmt();
    if (atIdent("for")) {
      next();
      auto s = make(Stmt::Kind::For, pos);
      expect(Tok::LParen, "after 'for'");
      if (!at(Tok::Semi)) s->init = simpleStatement();
      expect(Tok::Semi, "after the for-loop initializer");
      if (!at(Tok::Semi)) s->expr = expression();
      expect(Tok::Semi, "after the for-loop condition");
      if (!at(Tok::RParen)) s->update = simpleStatement();
      expect(Tok::RParen, "to close the for-loop header");
      s->body = block();
      return s;
    }
    if (atIdent("while")) {
      next();
      auto s = make(Stmt::Kind::While, pos);
      s->expr = expression();
      s->body = block();
      return s;
    }
    if (atIdent("loop")) {
      next();
      auto s = make(Stmt::Kind::Loop, pos);
      bodyAttributes();
      expect(Tok::LBrace, "to open the loop body");
      while (!at(Tok::RBrace)) {
        if (at(Tok::End)) fail(peek().pos, "expected '}' to close the loop, got end of input");
        if (atIdent("continuing")) {
          next();
          bodyAttributes();
          expect(Tok::LBrace, "to open the continuing block");
          while (!at(Tok::RBrace)) {
            if (at(Tok::End)) fail(peek().pos, "expected '}' to close the continuing block");
            if (atIdent("break") && peek(1).kind == Tok::Ident && peek(1).text == "if") {
              auto b = make(Stmt::Kind::BreakIf, next().pos);
              next();
              b->expr = expression();
              expect(Tok::Semi, "after 'break if'");
              s->continuing.push_back(std::move(b));
              if (!at(Tok::RBrace))
                fail(peek().pos, "'break if' must be the last statement of the continuing block");
              break;
            }
            if (accept(Tok::Semi)) continue;
            s->continuing.push_back(statement());
          }
          expect(Tok::RBrace, "to close the continuing block");
          if (!at(Tok::RBrace))
            fail(peek().pos, "the continuing block must be the last statement of the loop");
          break;
        }
        if (accept(Tok::Semi)) continue;
        s->body.push_back(statement());
      }
      expect(Tok::RBrace, "to close the loop");
      return s;
    }
    if (atIdent("switch")) return switchStmt();
    if (atIdent("return")) {
      next();
      auto s = make(Stmt::Kind::Return, pos);
      if (!at(Tok::Semi)) s->expr = expression();
      expect(Tok::Semi, "after 'return'");
      return s;
    }
    if (atIdent("break")) {
      next();
      if (atIdent("if")) fail(pos, "'break if' is only allowed at the end of a continuing block");
      expect(Tok::Semi, "after 'break'");
      return make(Stmt::Kind::Break, pos);
    }
    if (atIdent("continue")) {
      next();
      expect(Tok::Semi, "after 'continue'");
      return make(Stmt::Kind::Continue, pos);
    }
    if (atIdent("discard")) unsupported(pos, "'discard' (compute shaders only)");
    if (atIdent("const_assert")) return constAssert();
    auto s = simpleStatement();
    expect(Tok::Semi, "after the statement");
    return s;
  }

  // Declarations, assignments, increments and calls: what a for-loop header may hold too.
  StmtPtr simpleStatement() {
    const SourcePos pos = peek().pos;
    if (atIdent("let") || atIdent("var") || atIdent("const")) {
      const std::string word = next().text;
      auto s = make(word == "let"   ? Stmt::Kind::Let
                    : word == "var" ? Stmt::Kind::Var
                                    : Stmt::Kind::Const,
                    pos);
      if (word == "var" && at(Tok::Lt)) {
        next();
        const std::string space = ident("an address space");
        if (space != "function")
          fail(pos, "a function-scope variable must be in the 'function' address space, not '" +
                        space + "'");
        expect(Tok::Gt, "to close the address space");
      }
      s->name = ident("a name");
      if (accept(Tok::Colon)) s->type = type();
      if (accept(Tok::Eq))
        s->expr = expression();
      else if (word != "var")
        fail(peek().pos, "'" + word + "' declaration of '" + s->name + "' needs an initializer");
      return s;
    }
    if (at(Tok::Underscore)) {
      next();
      expect(Tok::Eq, "after '_'");
      auto s = make(Stmt::Kind::PhonyAssign, pos);
      s->expr = expression();
      return s;
    }
    ExprPtr target = expression();
    if (accept(Tok::Eq)) {
      auto s = make(Stmt::Kind::Assign, pos);
      s->lhs = std::move(target);
      s->expr = expression();
      return s;
    }
    if (at(Tok::PlusPlus) || at(Tok::MinusMinus)) {
      auto s =
          make(next().kind == Tok::PlusPlus ? Stmt::Kind::Increment : Stmt::Kind::Decrement, pos);
      s->lhs = std::move(target);
      return s;
    }
    static const std::pair<Tok, const char*> compound[] = {
        {Tok::PlusEq, "+"},    {Tok::MinusEq, "-"}, {Tok::StarEq, "*"}, {Tok::SlashEq, "/"},
        {Tok::PercentEq, "%"}, {Tok::AmpEq, "&"},   {Tok::PipeEq, "|"}, {Tok::CaretEq, "^"},
        {Tok::ShlEq, "<<"},    {Tok::ShrEq, ">>"}};
    for (const auto& [tok, op] : compound) {
      if (accept(tok)) {
        auto s = make(Stmt::Kind::CompoundAssign, pos);
        s->name = op;
        s->lhs = std::move(target);
        s->expr = expression();
        return s;
      }
    }
    if (target->kind == Expr::Kind::Call) {
      auto s = make(Stmt::Kind::Call, pos);
      s->expr = std::move(target);
      return s;
    }
    fail(peek().pos,
         "expected an assignment, increment or function call statement, got " + describe(peek()));
  }

  StmtPtr ifStmt() {
    auto s = make(Stmt::Kind::If, next().pos);
    s->expr = expression();
    s->body = block();
    if (atIdent("else")) {
      next();
      if (atIdent("if")) {
        const Nest nest(*this, peek().pos);  // an else-if chain nests like a block
        s->elseBody.push_back(ifStmt());
      } else
        s->elseBody = block();
    }
    return s;
  }

  StmtPtr switchStmt() {
    auto s = make(Stmt::Kind::Switch, next().pos);
    s->expr = expression();
    bodyAttributes();
    expect(Tok::LBrace, "to open the switch body");
    while (!at(Tok::RBrace)) {
      Stmt::Case c;
      c.pos = peek().pos;
      if (atIdent("default")) {
        next();
        c.isDefault = true;
      } else if (atIdent("case")) {
        next();
        do {
          if (atIdent("default")) {
            next();
            c.isDefault = true;
          } else {
            c.selectors.push_back(expression());
          }
        } while (accept(Tok::Comma) && !at(Tok::Colon) && !at(Tok::LBrace));
      } else {
        fail(peek().pos,
             "expected 'case' or 'default' in the switch body, got " + describe(peek()));
      }
      accept(Tok::Colon);
      c.body = block();
      s->cases.push_back(std::move(c));
    }
    next();
    return s;
  }

  // ---- expressions (C-like precedence) ----
  ExprPtr node(Expr::Kind k, SourcePos pos, std::string text = {}) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->pos = pos;
    e->text = std::move(text);
    return e;
  }

  ExprPtr binary(ExprPtr l, const Token& op, ExprPtr r, std::string text) {
    auto e = node(Expr::Kind::Binary, op.pos, std::move(text));
    e->args.push_back(std::move(l));
    e->args.push_back(std::move(r));
    return measured(std::move(e));
  }

  // Sets the node's height from its children (already bounded) and enforces Tint's expression
  // depth limit, so that no later recursion over the tree can run deeper than it.
  static ExprPtr measured(ExprPtr e) {
    int h = 0;
    for (const auto& a : e->args) h = std::max(h, a->height);
    e->height = e->kind == Expr::Kind::Paren ? h : h + 1;
    if (e->height > kMaxExpressionDepth)
      fail(e->pos, "reached max expression depth of " + std::to_string(kMaxExpressionDepth));
    return e;
  }

  // `noGreater` stops at '>' (an array count inside a template list).
  ExprPtr expression(bool noGreater = false) {
    noGreater_.push_back(noGreater);
    ExprPtr e = level(0);
    noGreater_.pop_back();
    return e;
  }

  // WGSL's expression grammar (spec §16.1), which is stricter than precedence: `&&` and `||`
  // chain only with themselves, over relational expressions; `&`, `|` and `^` chain only with
  // themselves, over unary expressions; a relational operator joins two shift expressions at
  // most; `<<` and `>>` join two unary expressions. Mixing them needs parentheses, as in Tint.
  ExprPtr level(int /*from the top*/) {
    ExprPtr left = relational();
    const auto opText = [&]() -> std::string {
      if (at(Tok::AndAnd)) return "&&";
      if (at(Tok::OrOr)) return "||";
      if (at(Tok::Amp)) return "&";
      if (at(Tok::Pipe)) return "|";
      if (at(Tok::Caret)) return "^";
      return "";
    };
    const std::string op = opText();
    if (op.empty()) return left;
    const bool bitwise = op != "&&" && op != "||";
    if (bitwise && left->kind == Expr::Kind::Binary) mixing(left->text, op);
    while (opText() == op) {
      const Token t = next();
      ExprPtr right = bitwise ? unary() : relational();
      left = binary(std::move(left), t, std::move(right), op);
    }
    if (const std::string other = opText(); !other.empty()) mixing(op, other);
    if (!bitwise && (at(Tok::Amp) || at(Tok::Pipe) || at(Tok::Caret))) mixing(op, opText());
    return left;
  }

  [[noreturn]] void mixing(const std::string& a, const std::string& b) {
    fail(peek().pos, "mixing '" + a + "' and '" + b + "' requires parenthesis");
  }

  // The relational operator at the cursor ("" when none); `>` is not one inside a template.
  std::string relationalOp() {
    if (at(Tok::Lt)) return "<";
    if (at(Tok::Le)) return "<=";
    if (at(Tok::Ge)) return ">=";
    if (at(Tok::EqEq)) return "==";
    if (at(Tok::NotEq)) return "!=";
    if (at(Tok::Gt) && !noGreater_.back() && !atShr()) return ">";
    return "";
  }

  ExprPtr relational() {
    ExprPtr left = shift();
    const std::string op = relationalOp();
    if (op.empty()) return left;
    const Token t = next();
    left = binary(std::move(left), t, shift(), op);
    if (const std::string again = relationalOp(); !again.empty()) mixing(op, again);
    return left;
  }

  ExprPtr shift() {
    ExprPtr left = additive();
    const bool shr = atShr() && !noGreater_.back();  // `array<u32, 8>>` closes two lists
    if (!shr && !at(Tok::Shl)) return left;
    const std::string op = shr ? ">>" : "<<";
    if (left->kind == Expr::Kind::Binary) mixing(left->text, op);
    const Token t = next();
    if (shr) next();
    left = binary(std::move(left), t, unary(), op);
    if (atShr() || at(Tok::Shl)) mixing(op, atShr() ? ">>" : "<<");
    if (at(Tok::Plus) || at(Tok::Minus) || at(Tok::Star) || at(Tok::Slash) || at(Tok::Percent))
      mixing(op, peek().text);
    return left;
  }

  ExprPtr additive() {
    ExprPtr left = multiplicative();
    for (;;) {
      const Tok after = peek(1).kind;
      if (at(Tok::MinusMinus) && after != Tok::Semi && after != Tok::RParen &&
          after != Tok::RBrace && after != Tok::Comma && after != Tok::End) {  // `a--b`: `a - -b`
        Token second = t_[i_];
        second.kind = t_[i_].kind = Tok::Minus;
        second.text = t_[i_].text = "-";
        second.pos.column++;
        t_.insert(t_.begin() + static_cast<std::ptrdiff_t>(i_) + 1, second);
      }
      if (!at(Tok::Plus) && !at(Tok::Minus)) return left;
      const Token t = next();
      left = binary(std::move(left), t, multiplicative(), t.text);
    }
  }

  ExprPtr multiplicative() {
    ExprPtr left = unary();
    while (at(Tok::Star) || at(Tok::Slash) || at(Tok::Percent)) {
      const Token t = next();
      left = binary(std::move(left), t, unary(), t.text);
    }
    return left;
  }

  ExprPtr unary() {
    const SourcePos pos = peek().pos;
    const Nest nest(*this, pos);
    if (at(Tok::Minus) || at(Tok::Bang) || at(Tok::Tilde)) {
      auto e = node(Expr::Kind::Unary, pos, next().text);
      e->args.push_back(unary());
      return measured(std::move(e));
    }
    if (at(Tok::Amp) || at(Tok::Star)) {  // address-of, indirection
      auto e = node(Expr::Kind::Unary, pos, next().text);
      e->args.push_back(unary());
      return measured(std::move(e));
    }
    if (at(Tok::MinusMinus)) {  // `--x` in an expression is `- -x`
      Token second = t_[i_];
      second.kind = t_[i_].kind = Tok::Minus;
      second.text = t_[i_].text = "-";
      second.pos.column++;
      t_.insert(t_.begin() + static_cast<std::ptrdiff_t>(i_) + 1, second);
      return unary();
    }
    return postfix(primary());
  }

  ExprPtr postfix(ExprPtr e) {
    for (;;) {
      if (at(Tok::LBracket)) {
        auto ix = node(Expr::Kind::Index, next().pos);
        ix->args.push_back(std::move(e));
        ix->args.push_back(expression());
        expect(Tok::RBracket, "to close the index");
        e = measured(std::move(ix));
      } else if (at(Tok::Dot)) {
        auto m = node(Expr::Kind::Member, next().pos);
        m->text = ident("a member name or swizzle");
        m->args.push_back(std::move(e));
        e = measured(std::move(m));
      } else {
        return e;
      }
    }
  }

  ExprPtr primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::IntLit:
        return node(Expr::Kind::IntLit, t.pos, next().text);
      case Tok::FloatLit:
        return node(Expr::Kind::FloatLit, t.pos, next().text);
      case Tok::LParen: {
        auto e = node(Expr::Kind::Paren, next().pos);
        noGreater_.push_back(false);
        e->args.push_back(level(0));
        noGreater_.pop_back();
        expect(Tok::RParen, "to close the parenthesis");
        return measured(std::move(e));
      }
      case Tok::Ident: {
        if (t.text == "true" || t.text == "false")
          return node(Expr::Kind::BoolLit, t.pos, next().text);
        const SourcePos pos = t.pos;
        std::optional<TypeExpr> templ;
        std::string name = t.text;
        if (kUnsupportedTemplated.contains(name) && peek(1).kind == Tok::Lt)
          unsupported(pos, "'" + name + "'");
        if (kTemplatedTypes.contains(name) && peek(1).kind == Tok::Lt) {
          templ = type();
        } else {
          next();
        }
        if (at(Tok::LParen)) {
          next();
          auto call = node(Expr::Kind::Call, pos, name);
          call->typeArgs = std::move(templ);
          noGreater_.push_back(false);
          while (!at(Tok::RParen)) {
            call->args.push_back(level(0));
            if (!accept(Tok::Comma)) break;
          }
          noGreater_.pop_back();
          expect(Tok::RParen, "to close the call arguments");
          return measured(std::move(call));
        }
        if (templ) fail(pos, "expected '(' after the type '" + name + "<...>' in an expression");
        return node(Expr::Kind::Ident, pos, name);
      }
      default:
        fail(t.pos, "expected an expression, got " + describe(t));
    }
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  std::vector<bool> noGreater_{false};
  int depth_ = 0;
};

}  // namespace

Module parse(std::string_view source) {
  return Parser(lex(source)).module();
}

}  // namespace wgsl::detail
