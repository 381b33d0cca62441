#include "engine/template/parser.h"

#include <charconv>
#include <cstdlib>

#include "engine/core/error.h"
#include "engine/core/limits.h"

namespace engine::tmpl {
namespace {

const char* describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::Text: return "text";
    case TokenKind::VarBegin: return "'{{'";
    case TokenKind::VarEnd: return "'}}'";
    case TokenKind::BlockBegin: return "'{%'";
    case TokenKind::BlockEnd: return "'%}'";
    case TokenKind::End: return "end of template";
    default: return nullptr;
  }
}

class Parser {
 public:
  Parser(const SourceText& src, const std::vector<Token>& toks) : src_(src), t_(toks) {}

  Body parse_template() {
    Body body = parse_body({});
    if (peek().kind != TokenKind::End) fail_at(peek(), "unexpected " + found(peek()));
    return body;
  }

 private:
  // ---- token helpers ----
  const Token& peek(size_t ahead = 0) const { return t_[std::min(i_ + ahead, t_.size() - 1)]; }
  const Token& next() { return t_[i_ < t_.size() - 1 ? i_++ : i_]; }
  static Pos pos_of(const Token& t) { return {t.line, t.col}; }
  bool is_op(const char* op, size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == TokenKind::Operator && t.text == op;
  }
  bool is_name(const char* name, size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == TokenKind::Name && t.text == name;
  }
  static std::string found(const Token& t) {
    if (const char* d = describe(t)) return d;
    return "'" + t.text + "'";
  }
  [[noreturn]] void fail_at(const Token& t, const std::string& msg) const {
    throw located_error(ErrorKind::TemplateSyntax, msg, src_, t.line, t.col);
  }
  // An integer literal; one past 64 bits is an error here, at compile time, rather than a float or a wrapped value.
  long long integer_literal(const Token& t) const {
    long long v = 0;
    int base = 10;
    size_t digits = 0;
    if (t.text.size() > 2 && t.text[0] == '0') {
      char prefix = static_cast<char>(std::tolower(static_cast<unsigned char>(t.text[1])));
      base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : prefix == 'b' ? 2 : 10;
      if (base != 10) digits = 2;
    }
    auto [end, ec] = std::from_chars(t.text.data() + digits, t.text.data() + t.text.size(), v, base);
    if (ec == std::errc::invalid_argument || (ec == std::errc() && end != t.text.data() + t.text.size()))
      throw located_error(ErrorKind::TemplateSyntax, "'" + t.text.substr(0, 40) + "' is not a valid number", src_, t.line,
                          t.col);
    if (ec != std::errc())
      throw located_error(ErrorKind::TemplateIntegerOverflow,
                          "integer literal " + t.text.substr(0, 40) +
                              " does not fit in 64 bits (Jinja2 computes it exactly; the engine's integers are 64-bit)",
                          src_, t.line, t.col);
    return v;
  }
  void expect_op(const char* op, const char* context) {
    if (!is_op(op)) fail_at(peek(), std::string("expected '") + op + "' " + context + ", got " + found(peek()));
    next();
  }
  std::string expect_name(const char* context) {
    if (peek().kind != TokenKind::Name) fail_at(peek(), std::string("expected a name ") + context + ", got " +
                                                            found(peek()));
    return next().text;
  }
  void expect_block_end(const std::string& after) {
    if (peek().kind != TokenKind::BlockEnd)
      fail_at(peek(), "expected '%}' after '" + after + "', got " + found(peek()));
    next();
  }
  struct DepthGuard {
    DepthGuard(Parser& p, const Token& at) : p(p) {
      if (++p.depth_ > limits::kTemplateNesting) p.fail_at(at, "template nested deeper than " + std::to_string(limits::kTemplateNesting) + " levels");
    }
    ~DepthGuard() { --p.depth_; }
    Parser& p;
  };

  // ---- statements ----

  // Parses nodes until a block tag whose name is in `stops` (left unconsumed, positioned at its name) or the end.
  Body parse_body(const std::vector<std::string>& stops) {
    Body body;
    for (;;) {
      const Token& t = peek();
      if (t.kind == TokenKind::End) return body;
      if (t.kind == TokenKind::Text) {
        body.push_back(std::make_unique<TextNode>(t.text, pos_of(t)));
        next();
      } else if (t.kind == TokenKind::VarBegin) {
        next();
        auto e = parse_expression();
        if (peek().kind != TokenKind::VarEnd) fail_at(peek(), "expected '}}' to end the expression, got " + found(peek()));
        next();
        body.push_back(std::make_unique<OutputNode>(std::move(e), pos_of(t)));
      } else if (t.kind == TokenKind::BlockBegin) {
        const Token& name = peek(1);
        if (name.kind != TokenKind::Name) fail_at(name, "expected a tag name after '{%', got " + found(name));
        for (const auto& s : stops)
          if (name.text == s) {
            next();  // '{%'
            return body;
          }
        next();
        body.push_back(parse_statement(t));
      } else {
        fail_at(t, "unexpected " + found(t));
      }
    }
  }

  NodePtr parse_statement(const Token& open) {
    DepthGuard guard(*this, open);
    const Token& name = next();
    if (name.text == "if") return parse_if(open);
    if (name.text == "for") return parse_for(open);
    if (name.text == "set") return parse_set(open);
    if (name.text == "macro") return parse_macro(open);
    if (name.text == "call") return parse_call_block(open);
    if (name.text == "filter") return parse_filter_block(open);
    if (name.text == "include") return parse_include(open);
    if (name.text == "import") return parse_import(open);
    if (name.text == "from") return parse_from_import(open);
    if (name.text == "with") return parse_with(open);
    if (name.text == "break" || name.text == "continue") return parse_loop_control(open, name);
    static const std::vector<std::string> closers = {"endif",    "endfor",    "endset", "elif",   "else",
                                                     "endmacro", "endcall",   "endfilter", "endraw", "endwith"};
    for (const auto& c : closers)
      if (name.text == c) fail_at(name, "unexpected '" + c + "': no open block to close or continue here");
    // Jinja2's own statements the engine leaves out (docs/templates.md, "Differences from Jinja2").
    static const std::vector<std::pair<std::string, std::string>> unsupported = {
        {"extends", "template inheritance"}, {"block", "template inheritance"},
        {"autoescape", "there is no autoescaping: prompts are not HTML"}, {"do", "an extension"},
        {"trans", "the i18n extension"}, {"pluralize", "the i18n extension"}};
    for (const auto& [tag, why] : unsupported)
      if (name.text == tag)
        throw located_error(ErrorKind::TemplateUnsupported,
                            "'" + tag + "' is not supported (" + why + "; docs/templates.md lists what is)", src_,
                            name.line, name.col);
    fail_at(name, "unknown tag '" + name.text + "'");
  }

  // Consumes the closing tag name after parse_body stopped; reports where the block was opened if it never closed.
  const Token& block_continuation(const Token& open, const char* block, const char* end_name) {
    if (peek().kind == TokenKind::End)
      fail_at(peek(), std::string("unclosed '") + block + "' block opened at line " +
                          src_.position_text(open.line, open.col) + ": expected '{% " + end_name + " %}' before the end");
    return next();
  }

  NodePtr parse_if(const Token& open) {
    auto node = std::make_unique<IfNode>(pos_of(open));
    auto cond = parse_expression();
    expect_block_end("if");
    for (;;) {
      Body body = parse_body({"elif", "else", "endif"});
      node->branches.emplace_back(std::move(cond), std::move(body));
      const Token& tag = block_continuation(open, "if", "endif");
      if (tag.text == "elif") {
        cond = parse_expression();
        expect_block_end("elif");
        continue;
      }
      if (tag.text == "else") {
        expect_block_end("else");
        node->otherwise = parse_body({"endif"});
        block_continuation(open, "if", "endif");
      }
      expect_block_end("endif");
      return node;
    }
  }

  // A for loop's targets: names, or groups of them in parentheses; every name is added to `names`.
  std::vector<TargetPattern> parse_targets(std::vector<std::string>& names, int depth = 0) {
    if (depth > 32) fail_at(peek(), "the for loop's targets nest too deeply");
    std::vector<TargetPattern> out;
    do {
      if (!out.empty()) next();  // the ','
      if (is_op("(")) {
        next();
        out.push_back(TargetPattern{"", parse_targets(names, depth + 1)});
        expect_op(")", "to close the group of targets");
      } else {
        out.push_back(TargetPattern{expect_name(out.empty() && depth == 0 ? "after 'for'" : "in the for loop's targets"), {}});
        names.push_back(out.back().name);
      }
    } while (is_op(","));
    return out;
  }

  NodePtr parse_for(const Token& open) {
    auto node = std::make_unique<ForNode>(pos_of(open));
    std::vector<TargetPattern> top = parse_targets(node->targets);
    if (top.size() == 1 && !top[0].parts.empty()) top = std::move(top[0].parts);  // for (a, b) in ...
    bool nested = false;
    for (const auto& t : top) nested = nested || !t.parts.empty();
    if (nested) node->pattern.parts = std::move(top);
    if (!is_name("in")) fail_at(peek(), "expected 'in' in the for loop, got " + found(peek()));
    next();
    node->iterable = parse_or_no_cond();
    if (is_name("if")) {
      next();
      node->filter = parse_or_no_cond();
    }
    if (is_name("recursive")) {
      next();
      node->recursive = true;
    }
    expect_block_end("for");
    ++loop_depth_;
    node->body = parse_body({"else", "endfor"});
    --loop_depth_;
    const Token& tag = block_continuation(open, "for", "endfor");
    if (tag.text == "else") {
      expect_block_end("else");
      node->otherwise = parse_body({"endfor"});
      block_continuation(open, "for", "endfor");
    }
    expect_block_end("endfor");
    return node;
  }

  NodePtr parse_set(const Token& open) {
    std::vector<std::string> targets{expect_name("after 'set'")};
    if (is_op(".")) {  // {% set ns.attr = value %}
      next();
      auto node = std::make_unique<SetNode>(pos_of(open));
      node->targets = std::move(targets);
      node->attribute = expect_name("after '.' in the set target");
      expect_op("=", "in the set statement");
      node->value = parse_tuple_or_expression();
      expect_block_end("set");
      return node;
    }
    while (is_op(",")) {
      next();
      targets.push_back(expect_name("in the set's targets"));
    }
    if ((peek().kind == TokenKind::BlockEnd || is_op("|")) && targets.size() == 1) {
      auto node = std::make_unique<SetBlockNode>(pos_of(open));
      while (is_op("|")) {  // {% set x | upper %}: the block's text goes through these filters
        next();
        std::string filter = expect_name("after '|' in the set block");
        Args args;
        if (is_op("(")) args = parse_call_args();
        node->filters.emplace_back(std::move(filter), std::move(args));
      }
      expect_block_end("set");
      node->target = targets[0];
      node->body = parse_body({"endset"});
      block_continuation(open, "set", "endset");
      expect_block_end("endset");
      return node;
    }
    expect_op("=", "in the set statement");
    auto node = std::make_unique<SetNode>(pos_of(open));
    node->targets = std::move(targets);
    node->value = parse_tuple_or_expression();
    expect_block_end("set");
    return node;
  }

  // {% with a = 1, b = x %}: the values are computed in the enclosing scope, then bound in the block's own.
  NodePtr parse_with(const Token& open) {
    auto node = std::make_unique<WithNode>(pos_of(open));
    while (peek().kind != TokenKind::BlockEnd) {
      if (!node->assignments.empty()) expect_op(",", "between the with statement's assignments");
      std::string target = expect_name("in the with statement");
      expect_op("=", "in the with statement");
      node->assignments.emplace_back(std::move(target), parse_expression());
    }
    expect_block_end("with");
    node->body = parse_body({"endwith"});
    block_continuation(open, "with", "endwith");
    expect_block_end("endwith");
    return node;
  }

  // {% break %} and {% continue %} (Jinja2's loopcontrols extension, which transformers turns on for chat templates).
  NodePtr parse_loop_control(const Token& open, const Token& name) {
    if (loop_depth_ == 0) fail_at(name, "'" + name.text + "' outside a for loop");
    expect_block_end(name.text);
    return std::make_unique<LoopControlNode>(name.text == "break" ? NodeKind::Break : NodeKind::Continue, pos_of(open));
  }

  // A macro's or a call block's body is a function of its own: a loop around its definition is not its loop.
  Body parse_function_body(const char* end) {
    int saved = loop_depth_;
    loop_depth_ = 0;
    Body b = parse_body({end});
    loop_depth_ = saved;
    return b;
  }

  // (a, b=default, ...) for macros and call blocks.
  void parse_params(MacroDef& def) {
    expect_op("(", "to start the parameters");
    while (!is_op(")")) {
      std::string name = expect_name("as a parameter");
      ExprPtr dflt;
      if (is_op("=")) {
        next();
        dflt = parse_expression();
      } else if (!def.params.empty() && def.params.back().second) {
        fail_at(peek(), "parameter '" + name + "' without a default follows one with a default");
      }
      def.params.emplace_back(std::move(name), std::move(dflt));
      if (!is_op(",")) break;
      next();
    }
    expect_op(")", "to close the parameters");
  }

  NodePtr parse_macro(const Token& open) {
    auto node = std::make_unique<MacroNode>(pos_of(open));
    node->def.name = expect_name("after 'macro'");
    parse_params(node->def);
    expect_block_end("macro");
    macros_.push_back(&node->def);
    node->def.body = parse_function_body("endmacro");
    macros_.pop_back();
    block_continuation(open, "macro", "endmacro");
    if (peek().kind == TokenKind::Name) next();  // {% endmacro name %}
    expect_block_end("endmacro");
    return node;
  }

  NodePtr parse_call_block(const Token& open) {
    auto node = std::make_unique<CallBlockNode>(pos_of(open));
    node->caller.name = "caller";
    if (is_op("(")) parse_params(node->caller);
    const Token& at = peek();
    node->call = parse_expression();
    if (node->call->kind != ExprKind::Call) fail_at(at, "expected a macro call after 'call'");
    expect_block_end("call");
    macros_.push_back(&node->caller);
    node->caller.body = parse_function_body("endcall");
    macros_.pop_back();
    block_continuation(open, "call", "endcall");
    expect_block_end("endcall");
    return node;
  }

  NodePtr parse_filter_block(const Token& open) {
    auto node = std::make_unique<FilterBlockNode>(pos_of(open));
    do {
      if (!node->filters.empty()) next();  // '|'
      std::string name = expect_name("after 'filter'");
      Args args;
      if (is_op("(")) args = parse_call_args();
      node->filters.emplace_back(std::move(name), std::move(args));
    } while (is_op("|"));
    expect_block_end("filter");
    node->body = parse_body({"endfilter"});
    block_continuation(open, "filter", "endfilter");
    expect_block_end("endfilter");
    return node;
  }

  // Included and imported names must be string literals: they are compiled with the template, never while rendering.
  std::string template_name(const char* statement) {
    if (peek().kind != TokenKind::String)
      fail_at(peek(), std::string(statement) + " needs a template name in quotes, got " + found(peek()));
    return next().text;
  }
  // [with context | without context]; returns `dflt` when absent.
  bool context_clause(bool dflt) {
    if ((is_name("with") || is_name("without")) && is_name("context", 1)) {
      bool with = next().text == "with";
      next();
      return with;
    }
    return dflt;
  }

  NodePtr parse_include(const Token& open) {
    auto node = std::make_unique<IncludeNode>(pos_of(open));
    node->name = template_name("include");
    if (is_name("ignore") && is_name("missing", 1)) {
      next(), next();
      node->ignore_missing = true;
    }
    node->with_context = context_clause(true);
    expect_block_end("include");
    return node;
  }

  NodePtr parse_import(const Token& open) {
    auto node = std::make_unique<ImportNode>(pos_of(open));
    node->name = template_name("import");
    if (!is_name("as")) fail_at(peek(), "expected 'as' after the imported template's name, got " + found(peek()));
    next();
    node->alias = expect_name("after 'as'");
    node->with_context = context_clause(false);
    expect_block_end("import");
    return node;
  }

  NodePtr parse_from_import(const Token& open) {
    auto node = std::make_unique<ImportNode>(pos_of(open));
    node->name = template_name("from");
    if (!is_name("import")) fail_at(peek(), "expected 'import' after the template's name, got " + found(peek()));
    next();
    do {
      if (!node->names.empty()) next();  // ','
      if ((is_name("with") || is_name("without")) && is_name("context", 1)) break;
      std::string name = expect_name("to import");
      std::string bound = name;
      if (is_name("as")) {
        next();
        bound = expect_name("after 'as'");
      }
      node->names.emplace_back(std::move(name), std::move(bound));
    } while (is_op(","));
    node->with_context = context_clause(false);
    expect_block_end("from");
    return node;
  }

  // ---- expressions, lowest precedence first (Jinja2's grammar) ----

  ExprPtr parse_tuple_or_expression() {
    const Token& start = peek();
    auto first = parse_expression();
    if (!is_op(",")) return first;
    auto list = std::make_unique<ListExpr>(pos_of(start));
    list->items.push_back(std::move(first));
    while (is_op(",")) {
      next();
      list->items.push_back(parse_expression());
    }
    return list;
  }

  ExprPtr parse_expression() {
    DepthGuard guard(*this, peek());
    const Token& start = peek();
    auto e = parse_or();
    while (is_name("if")) {
      next();
      auto c = std::make_unique<CondExpr>(pos_of(start));
      c->then = std::move(e);
      c->cond = parse_or();
      if (is_name("else")) {
        next();
        c->otherwise = parse_expression();
      }
      e = std::move(c);
    }
    return e;
  }

  // For-loop iterables and filters: a conditional expression would swallow the loop's own 'if'.
  ExprPtr parse_or_no_cond() { return parse_or(); }

  ExprPtr parse_or() {
    auto left = parse_and();
    while (is_name("or")) {
      Pos p = pos_of(next());
      left = std::make_unique<LogicExpr>(ExprKind::Or, std::move(left), parse_and(), p);
    }
    return left;
  }
  ExprPtr parse_and() {
    auto left = parse_not();
    while (is_name("and")) {
      Pos p = pos_of(next());
      left = std::make_unique<LogicExpr>(ExprKind::And, std::move(left), parse_not(), p);
    }
    return left;
  }
  ExprPtr parse_not() {
    if (is_name("not")) {
      DepthGuard guard(*this, peek());
      Pos p = pos_of(next());
      return std::make_unique<UnaryExpr>("not", parse_not(), p);
    }
    return parse_compare();
  }
  ExprPtr parse_compare() {
    const Token& start = peek();
    auto first = parse_math1();
    std::unique_ptr<CompareExpr> cmp;
    for (;;) {
      std::string op;
      const Token& t = peek();
      if (t.kind == TokenKind::Operator &&
          (t.text == "==" || t.text == "!=" || t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=")) {
        op = t.text;
        next();
      } else if (is_name("in")) {
        op = "in";
        next();
      } else if (is_name("not") && is_name("in", 1)) {
        op = "notin";
        next(), next();
      } else {
        break;
      }
      if (!cmp) cmp = std::make_unique<CompareExpr>(std::move(first), pos_of(start));
      cmp->rest.emplace_back(op, parse_math1());
    }
    if (cmp) return cmp;
    return first;
  }
  ExprPtr parse_math1() {
    auto left = parse_concat();
    while (is_op("+") || is_op("-")) {
      const Token& op = next();
      left = std::make_unique<BinaryExpr>(op.text, std::move(left), parse_concat(), pos_of(op));
    }
    return left;
  }
  ExprPtr parse_concat() {
    auto left = parse_math2();
    while (is_op("~")) {
      const Token& op = next();
      left = std::make_unique<BinaryExpr>("~", std::move(left), parse_math2(), pos_of(op));
    }
    return left;
  }
  ExprPtr parse_math2() {
    auto left = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const Token& op = next();
      left = std::make_unique<BinaryExpr>(op.text, std::move(left), parse_pow(), pos_of(op));
    }
    return left;
  }
  ExprPtr parse_pow() {
    auto left = parse_unary(true);
    while (is_op("**")) {
      const Token& op = next();
      left = std::make_unique<BinaryExpr>("**", std::move(left), parse_unary(true), pos_of(op));
    }
    return left;
  }
  ExprPtr parse_unary(bool with_filter) {
    DepthGuard guard(*this, peek());
    ExprPtr e;
    if (is_op("-") || is_op("+")) {
      const Token& op = next();
      e = std::make_unique<UnaryExpr>(op.text, parse_unary(false), pos_of(op));
    } else {
      e = parse_primary();
    }
    e = parse_postfix(std::move(e));
    if (with_filter) e = parse_filters_and_tests(std::move(e));
    return e;
  }

  ExprPtr parse_primary() {
    const Token& t = peek();
    Pos p = pos_of(t);
    switch (t.kind) {
      case TokenKind::String: {
        std::string s = next().text;
        while (peek().kind == TokenKind::String) s += next().text;  // adjacent literals join, as in Python
        return std::make_unique<LiteralExpr>(Value(s), p);
      }
      case TokenKind::Integer: {
        next();
        return std::make_unique<LiteralExpr>(Value(integer_literal(t)), p);
      }
      case TokenKind::Float:
        next();
        // as Python's float(): 1e400 is inf and 1e-400 is 0.0, never an exception
        return std::make_unique<LiteralExpr>(Value(std::strtod(t.text.c_str(), nullptr)), p);
      case TokenKind::Name: {
        next();
        const std::string& n = t.text;
        if (n == "true" || n == "True") return std::make_unique<LiteralExpr>(Value(true), p);
        if (n == "false" || n == "False") return std::make_unique<LiteralExpr>(Value(false), p);
        if (n == "none" || n == "None") return std::make_unique<LiteralExpr>(Value(nullptr), p);
        if (!macros_.empty() && n == "varargs") macros_.back()->catch_varargs = true;
        if (!macros_.empty() && n == "kwargs") macros_.back()->catch_kwargs = true;
        return std::make_unique<NameExpr>(n, p);
      }
      case TokenKind::Operator:
        if (t.text == "(") {
          next();
          if (is_op(")")) {  // the empty tuple
            next();
            return std::make_unique<ListExpr>(p);
          }
          auto e = parse_expression();
          if (is_op(",")) {
            auto list = std::make_unique<ListExpr>(p);
            list->items.push_back(std::move(e));
            while (is_op(",")) {
              next();
              if (is_op(")")) break;
              list->items.push_back(parse_expression());
            }
            e = std::move(list);
          }
          expect_op(")", "to close the parenthesis");
          return e;
        }
        if (t.text == "[") {
          next();
          auto list = std::make_unique<ListExpr>(p);
          while (!is_op("]")) {
            list->items.push_back(parse_expression());
            if (!is_op(",")) break;
            next();
          }
          expect_op("]", "to close the list");
          return list;
        }
        if (t.text == "{") {
          next();
          auto dict = std::make_unique<DictExpr>(p);
          while (!is_op("}")) {
            auto k = parse_expression();
            expect_op(":", "after a dict key");
            dict->items.emplace_back(std::move(k), parse_expression());
            if (!is_op(",")) break;
            next();
          }
          expect_op("}", "to close the dict");
          return dict;
        }
        break;
      default:
        break;
    }
    fail_at(t, "expected an expression, got " + found(t));
  }

  ExprPtr parse_postfix(ExprPtr e) {
    for (;;) {
      if (is_op(".")) {
        const Token& dot = next();
        const Token& name = peek();
        if (name.kind == TokenKind::Name) {
          next();
          e = std::make_unique<AttrExpr>(std::move(e), name.text, pos_of(dot));
        } else if (name.kind == TokenKind::Integer) {  // items.0 is items[0], as in Jinja2
          next();
          e = std::make_unique<ItemExpr>(std::move(e), std::make_unique<LiteralExpr>(Value(integer_literal(name)),
                                                                                        pos_of(name)), pos_of(dot));
        } else {
          fail_at(name, "expected an attribute name after '.', got " + found(name));
        }
      } else if (is_op("[")) {
        e = parse_subscript(std::move(e));
      } else if (is_op("(")) {
        Pos p = pos_of(peek());
        e = std::make_unique<CallExpr>(std::move(e), parse_call_args(), p);
      } else {
        return e;
      }
    }
  }

  ExprPtr parse_subscript(ExprPtr object) {
    const Token& open = next();  // '['
    ExprPtr start, stop, step;
    bool is_slice = false;
    if (!is_op(":")) start = parse_expression();
    if (is_op(":")) {
      is_slice = true;
      next();
      if (!is_op("]") && !is_op(":")) stop = parse_expression();
      if (is_op(":")) {
        next();
        if (!is_op("]")) step = parse_expression();
      }
    }
    expect_op("]", "to close the subscript");
    if (!is_slice) return std::make_unique<ItemExpr>(std::move(object), std::move(start), pos_of(open));
    auto s = std::make_unique<SliceExpr>(pos_of(open));
    s->object = std::move(object);
    s->start = std::move(start);
    s->stop = std::move(stop);
    s->step = std::move(step);
    return s;
  }

  Args parse_call_args() {
    expect_op("(", "to start the arguments");
    Args args;
    while (!is_op(")")) {
      if (is_op("**") || is_op("*")) {  // f(*items, **mapping), as Python and Jinja2 write them
        bool mapping = next().text == "**";
        if ((mapping ? args.double_star : args.star) || (!mapping && args.double_star))
          fail_at(peek(), mapping ? "only one **mapping per call" : "*items goes before **mapping, once");
        (mapping ? args.double_star : args.star) = parse_expression();
      } else if (args.double_star) {
        fail_at(peek(), "an argument after **mapping");
      } else if (peek().kind == TokenKind::Name && is_op("=", 1)) {
        std::string key = next().text;
        next();
        args.keyword.emplace_back(key, parse_expression());
      } else {
        if (!args.keyword.empty()) fail_at(peek(), "positional argument after keyword argument");
        args.positional.push_back(parse_expression());
      }
      if (!is_op(",")) break;
      next();
    }
    expect_op(")", "to close the arguments");
    return args;
  }

  ExprPtr parse_filters_and_tests(ExprPtr e) {
    for (;;) {
      if (is_op("|")) {
        const Token& bar = next();
        std::string name = expect_name("after '|'");
        while (is_op(".")) {  // dotted filter names are one name in Jinja2
          next();
          name += "." + expect_name("in the filter name");
        }
        Args args;
        if (is_op("(")) args = parse_call_args();
        e = std::make_unique<FilterExpr>(std::move(e), name, std::move(args), pos_of(bar));
      } else if (is_name("is")) {
        const Token& is = next();
        bool negated = false;
        if (is_name("not")) {
          next();
          negated = true;
        }
        const Token& name_tok = peek();
        std::string name;
        if (name_tok.kind == TokenKind::Name) name = next().text;
        else fail_at(name_tok, "expected a test name after 'is', got " + found(name_tok));
        Args args;
        if (is_op("(")) {
          args = parse_call_args();
        } else if (starts_test_argument()) {  // `x is divisibleby 3`: one argument without parentheses
          args.positional.push_back(parse_primary_with_postfix());
        }
        e = std::make_unique<TestExpr>(std::move(e), name, std::move(args), negated, pos_of(is));
      } else {
        return e;
      }
    }
  }
  bool starts_test_argument() const {
    const Token& t = peek();
    if (t.kind == TokenKind::String || t.kind == TokenKind::Integer || t.kind == TokenKind::Float) return true;
    if (t.kind == TokenKind::Name)
      return t.text != "and" && t.text != "or" && t.text != "else" && t.text != "if" && t.text != "in" &&
             t.text != "is" && t.text != "not";
    return t.kind == TokenKind::Operator && (t.text == "[" || t.text == "{" || t.text == "-");
  }
  ExprPtr parse_primary_with_postfix() {
    if (is_op("-")) {
      const Token& op = next();
      return std::make_unique<UnaryExpr>("-", parse_primary_with_postfix(), pos_of(op));
    }
    return parse_postfix(parse_primary());
  }

  const SourceText& src_;
  const std::vector<Token>& t_;
  size_t i_ = 0;
  int depth_ = 0;
  int loop_depth_ = 0;  // for loops open around the statement being parsed, within the current function
  std::vector<MacroDef*> macros_;  // the macros (and call blocks) whose bodies are being parsed, innermost last
};

}  // namespace

Body parse(const SourceText& source, const std::vector<Token>& tokens) { return Parser(source, tokens).parse_template(); }

}  // namespace engine::tmpl
