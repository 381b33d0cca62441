#include "engine/template/template.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/template/builtins.h"
#include "engine/template/compiled.h"
#include "engine/template/lexer.h"
#include "engine/template/parser.h"

namespace engine::tmpl {
namespace {

const std::vector<std::string> kGlobals = {"range", "dict", "loop", "true", "false", "none"};

// One pass over the tree after parsing: unknown filters and tests are compile errors (as in Jinja2), and the
// names the template reads from its context are collected so workflows can check them against declared inputs.
class Checker {
 public:
  explicit Checker(const SourceText& src) : src_(src) {}

  void body(const Body& b) {
    for (const auto& n : b) node(*n);
  }
  std::vector<std::string> free_names;

 private:
  void node(const Node& n) {
    switch (n.kind) {
      case NodeKind::Text: return;
      case NodeKind::Output: return expr(static_cast<const OutputNode&>(n).expr.get());
      case NodeKind::If: {
        const auto& i = static_cast<const IfNode&>(n);
        for (const auto& [c, b] : i.branches) expr(c.get()), body(b);
        return body(i.otherwise);
      }
      case NodeKind::For: {
        const auto& f = static_cast<const ForNode&>(n);
        expr(f.iterable.get());
        bound_.push_back(f.targets);
        bound_.back().push_back("loop");
        expr(f.filter.get());
        body(f.body);
        bound_.pop_back();
        return body(f.otherwise);
      }
      case NodeKind::Set: {
        const auto& s = static_cast<const SetNode&>(n);
        expr(s.value.get());
        for (const auto& t : s.targets) bind(t);
        return;
      }
      case NodeKind::SetBlock: {
        const auto& s = static_cast<const SetBlockNode&>(n);
        body(s.body);
        return bind(s.target);
      }
    }
  }
  void bind(const std::string& name) {
    if (bound_.empty()) bound_.emplace_back();
    bound_.back().push_back(name);
  }
  bool is_bound(const std::string& name) const {
    for (const auto& frame : bound_)
      if (std::find(frame.begin(), frame.end(), name) != frame.end()) return true;
    return std::find(kGlobals.begin(), kGlobals.end(), name) != kGlobals.end();
  }
  void args(const Args& a) {
    for (const auto& e : a.positional) expr(e.get());
    for (const auto& [_, e] : a.keyword) expr(e.get());
  }
  void expr(const Expr* e) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Literal: return;
      case ExprKind::Name: {
        const auto& n = static_cast<const NameExpr&>(*e).name;
        if (!is_bound(n) && std::find(free_names.begin(), free_names.end(), n) == free_names.end())
          free_names.push_back(n);
        return;
      }
      case ExprKind::Attr: return expr(static_cast<const AttrExpr*>(e)->object.get());
      case ExprKind::Item: {
        auto* i = static_cast<const ItemExpr*>(e);
        return expr(i->object.get()), expr(i->index.get());
      }
      case ExprKind::Slice: {
        auto* s = static_cast<const SliceExpr*>(e);
        return expr(s->object.get()), expr(s->start.get()), expr(s->stop.get()), expr(s->step.get());
      }
      case ExprKind::Call: {
        auto* c = static_cast<const CallExpr*>(e);
        return expr(c->callee.get()), args(c->args);
      }
      case ExprKind::Filter: {
        auto* f = static_cast<const FilterExpr*>(e);
        if (f->name != "default" && f->name != "d" && !find_filter(f->name))
          throw located_error("template.unknown_filter",
                              "unknown filter '" + f->name + "'" + did_you_mean(f->name, filter_names()), src_,
                              f->pos.line, f->pos.col);
        return expr(f->input.get()), args(f->args);
      }
      case ExprKind::Test: {
        auto* t = static_cast<const TestExpr*>(e);
        if (t->name != "defined" && t->name != "undefined" && !find_test(t->name))
          throw located_error("template.unknown_test",
                              "unknown test '" + t->name + "'" + did_you_mean(t->name, test_names()), src_,
                              t->pos.line, t->pos.col);
        return expr(t->input.get()), args(t->args);
      }
      case ExprKind::Unary: return expr(static_cast<const UnaryExpr*>(e)->operand.get());
      case ExprKind::Binary: {
        auto* b = static_cast<const BinaryExpr*>(e);
        return expr(b->left.get()), expr(b->right.get());
      }
      case ExprKind::Compare: {
        auto* c = static_cast<const CompareExpr*>(e);
        expr(c->first.get());
        for (const auto& [_, r] : c->rest) expr(r.get());
        return;
      }
      case ExprKind::And:
      case ExprKind::Or: {
        auto* l = static_cast<const LogicExpr*>(e);
        return expr(l->left.get()), expr(l->right.get());
      }
      case ExprKind::Cond: {
        auto* c = static_cast<const CondExpr*>(e);
        return expr(c->cond.get()), expr(c->then.get()), expr(c->otherwise.get());
      }
      case ExprKind::List:
        for (const auto& i : static_cast<const ListExpr*>(e)->items) expr(i.get());
        return;
      case ExprKind::Dict:
        for (const auto& [k, v] : static_cast<const DictExpr*>(e)->items) expr(k.get()), expr(v.get());
        return;
    }
  }

  const SourceText& src_;
  std::vector<std::vector<std::string>> bound_;
};

}  // namespace

Template Template::compile(std::string source, std::string name, TemplateOptions options) {
  if (!options.keep_trailing_newline && !source.empty() && source.back() == '\n') {
    source.pop_back();
    if (!source.empty() && source.back() == '\r') source.pop_back();
  }
  auto c = std::make_shared<Compiled>(Compiled{SourceText(std::move(name), std::move(source)), options, {}, {}});
  auto tokens = tokenize(c->source, c->options);
  c->body = parse(c->source, tokens);
  Checker checker(c->source);
  checker.body(c->body);
  c->free_names = std::move(checker.free_names);
  return Template(std::move(c));
}

std::string Template::render(const Value& vars) const {
  std::string out;
  render_to(vars, out);
  return out;
}

void Template::render_to(const Value& vars, std::string& out) const { render_compiled(*compiled_, vars, out); }

const std::string& Template::name() const { return compiled_->source.name(); }
const std::vector<std::string>& Template::free_names() const { return compiled_->free_names; }

}  // namespace engine::tmpl
