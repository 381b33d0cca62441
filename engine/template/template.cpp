#include "engine/template/template.h"

#include <algorithm>
#include <map>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/template/builtins.h"
#include "engine/template/compiled.h"
#include "engine/template/lexer.h"
#include "engine/template/parser.h"
#include "engine/template/py_value.h"

namespace engine::tmpl {
namespace {

const std::vector<std::string> kGlobals = {"range", "dict", "namespace", "raise_exception", "strftime_now", "loop",
                                           "true", "false", "none"};

// One pass over the tree after parsing: unknown filters and tests are compile errors (as in Jinja2), and the
// names the template reads from its context are collected so workflows can check them against declared inputs.
class Checker {
 public:
  explicit Checker(const SourceText& src) : src_(src) {}

  void body(const Body& b) {
    for (const auto& n : b) node(*n);
  }
  std::vector<std::string> free_names;
  std::vector<NamePath> free_paths;

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
        for (const auto& [name, a] : s.filters) {
          check_filter(name, s.pos);
          args(a);
        }
        body(s.body);
        return bind(s.target);
      }
      case NodeKind::With: {
        const auto& w = static_cast<const WithNode&>(n);
        for (const auto& [_, value] : w.assignments) expr(value.get());  // in the enclosing scope
        bound_.emplace_back();
        for (const auto& [name, _] : w.assignments) bound_.back().push_back(name);
        body(w.body);
        bound_.pop_back();
        return;
      }
      case NodeKind::Break:
      case NodeKind::Continue: return;
      case NodeKind::Macro: {
        const auto& m = static_cast<const MacroNode&>(n);
        bind(m.def.name);
        return macro(m.def);
      }
      case NodeKind::CallBlock: {
        const auto& c = static_cast<const CallBlockNode&>(n);
        expr(c.call.get());
        return macro(c.caller);
      }
      case NodeKind::FilterBlock: {
        const auto& f = static_cast<const FilterBlockNode&>(n);
        for (const auto& [name, a] : f.filters) {
          check_filter(name, f.pos);
          args(a);
        }
        return body(f.body);
      }
      case NodeKind::Include: {
        const auto& i = static_cast<const IncludeNode&>(n);
        if (i.target && i.with_context) {
          for (const auto& name : i.target->free_names) add_free(name);
          for (const auto& path : i.target->free_paths)
            if (!is_bound(path.parts[0])) free_paths.push_back(NamePath{path.parts, i.pos.line, i.pos.col});
        }
        return;
      }
      case NodeKind::Import: {
        const auto& i = static_cast<const ImportNode&>(n);
        if (!i.alias.empty()) bind(i.alias);
        for (const auto& [_, bound] : i.names) bind(bound);
        return;
      }
    }
  }
  void macro(const MacroDef& def) {
    bound_.emplace_back();
    for (const auto& [name, dflt] : def.params) {
      expr(dflt.get());
      bound_.back().push_back(name);
    }
    bound_.back().insert(bound_.back().end(), {"varargs", "kwargs", "caller"});
    body(def.body);
    bound_.pop_back();
  }
  void add_free(const std::string& n) {
    if (!is_bound(n) && std::find(free_names.begin(), free_names.end(), n) == free_names.end()) free_names.push_back(n);
  }
  void check_filter(const std::string& name, Pos pos) {
    // Jinja2's filters the engine leaves out, and why (docs/templates.md, "Differences from Jinja2").
    if (name == "random")
      throw located_error(ErrorKind::TemplateUnsupported,
                          "the filter 'random' is not supported: a prompt renders the same every time, so runs and "
                          "tests repeat (pick with an input, or loop.cycle())",
                          src_, pos.line, pos.col);
    if (name == "urlize")
      throw located_error(ErrorKind::TemplateUnsupported, "the filter 'urlize' is not supported: prompts are not HTML", src_,
                          pos.line, pos.col);
    if (name != "default" && name != "d" && !find_filter(name))
      throw located_error(ErrorKind::TemplateUnknownFilter, "unknown filter '" + name + "'" + did_you_mean(name, filter_names()),
                          src_, pos.line, pos.col);
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
    if (a.star) expr(a.star.get());
    if (a.double_star) expr(a.double_star.get());
  }
  // The attribute path `e` reads from a name (`a.b['c']` -> a, b, c), or false when a part is computed.
  static bool path_of(const Expr* e, std::vector<std::string>& out, Pos& root) {
    if (e->kind == ExprKind::Name) {
      out.push_back(static_cast<const NameExpr*>(e)->name);
      root = e->pos;
      return true;
    }
    if (e->kind == ExprKind::Attr) {
      auto* a = static_cast<const AttrExpr*>(e);
      if (!path_of(a->object.get(), out, root)) return false;
      out.push_back(a->name);
      return true;
    }
    if (e->kind == ExprKind::Item) {
      auto* i = static_cast<const ItemExpr*>(e);
      auto* key = i->index->kind == ExprKind::Literal ? static_cast<const LiteralExpr*>(i->index.get()) : nullptr;
      if (!key || !key->value.is_string() || !path_of(i->object.get(), out, root)) return false;
      out.push_back(key->value.get<std::string>());
      return true;
    }
    return false;
  }
  // Records the read of a name with the longest path read of it; true when `e` was such a read, wholly handled.
  bool read_path(const Expr* e) {
    std::vector<std::string> parts;
    Pos root;
    if (!path_of(e, parts, root)) return false;
    add_free(parts[0]);
    if (!is_bound(parts[0])) free_paths.push_back(NamePath{std::move(parts), root.line, root.col});
    return true;
  }

  void expr(const Expr* e) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Literal: return;
      case ExprKind::Name: read_path(e); return;
      case ExprKind::Attr:
        if (read_path(e)) return;
        return expr(static_cast<const AttrExpr*>(e)->object.get());
      case ExprKind::Item: {
        if (read_path(e)) return;
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
        check_filter(f->name, f->pos);
        return expr(f->input.get()), args(f->args);
      }
      case ExprKind::Test: {
        auto* t = static_cast<const TestExpr*>(e);
        if (t->name != "defined" && t->name != "undefined" && !find_test(t->name))
          throw located_error(ErrorKind::TemplateUnknownTest,
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

namespace {

// The files one compile has included, by path: each is read and compiled once however often it is included (ten
// includes of a file that includes the next ten times, eight deep, would otherwise be 10^8 compiles).
using IncludedFiles = std::map<std::filesystem::path, std::shared_ptr<const Compiled>>;

std::shared_ptr<const Compiled> compile_source(std::string source, std::string name, const TemplateOptions& options,
                                                int depth, IncludedFiles& included);

// Included and imported templates are compiled with their parent, once; a cycle stops at the depth limit.
void resolve_includes(Body& body, const SourceText& src, const TemplateOptions& options, int depth,
                      IncludedFiles& included) {
  auto load = [&](const std::string& name, Pos pos, bool ignore_missing) -> std::shared_ptr<const Compiled> {
    if (depth >= limits::kTemplateIncludeDepth)
      throw located_error(ErrorKind::TemplateIncludeDepth,
                          "templates include each other deeper than " + std::to_string(limits::kTemplateIncludeDepth) +
                              " levels (a template including itself?)",
                          src, pos.line, pos.col);
    std::filesystem::path path;
    if (options.include_dir.empty()) {
      if (ignore_missing) return nullptr;
      throw located_error(ErrorKind::TemplateNotFound,
                          "template '" + name + "' not found (this template has no folder to include from)", src,
                          pos.line, pos.col);
    }
    // Beside the including template, then (a bare name) on the workflow's search path.
    FileScope::Found found;
    try {
      found = options.scope ? options.scope->find(options.include_dir, name)
                            : FileScope({options.include_dir}).find(options.include_dir, name);
    } catch (const Error& e) {
      throw located_error(e.kind(), "cannot include '" + name + "': " + e.message(), src, pos.line, pos.col);
    }
    std::error_code ec;
    if (!found.exists || !std::filesystem::is_regular_file(found.path, ec)) {
      if (ignore_missing) return nullptr;
      throw located_error(ErrorKind::TemplateNotFound, "template " + not_found_message(name, found.looked), src, pos.line,
                          pos.col);
    }
    path = found.path;
    if (auto it = included.find(path); it != included.end()) return it->second;
    std::string text;
    try {
      text = read_file(path);
    } catch (const Error& e) {
      throw located_error(e.kind(), e.message(), src, pos.line, pos.col);
    }
    TemplateOptions own = options;
    own.embedding.reset();  // an included file is its own text, not the embedding one's
    auto compiled = compile_source(std::move(text), path.lexically_normal().string(), own, depth + 1, included);
    included[path] = compiled;
    return compiled;
  };
  for (auto& n : body) {
    switch (n->kind) {
      case NodeKind::Include: {
        auto& i = static_cast<IncludeNode&>(*n);
        i.target = load(i.name, i.pos, i.ignore_missing);
        break;
      }
      case NodeKind::Import: {
        auto& i = static_cast<ImportNode&>(*n);
        i.target = load(i.name, i.pos, false);
        break;
      }
      case NodeKind::If:
        for (auto& [_, b] : static_cast<IfNode&>(*n).branches) resolve_includes(b, src, options, depth, included);
        resolve_includes(static_cast<IfNode&>(*n).otherwise, src, options, depth, included);
        break;
      case NodeKind::For:
        resolve_includes(static_cast<ForNode&>(*n).body, src, options, depth, included);
        resolve_includes(static_cast<ForNode&>(*n).otherwise, src, options, depth, included);
        break;
      case NodeKind::SetBlock:
        resolve_includes(static_cast<SetBlockNode&>(*n).body, src, options, depth, included);
        break;
      case NodeKind::Macro: resolve_includes(static_cast<MacroNode&>(*n).def.body, src, options, depth, included); break;
      case NodeKind::CallBlock:
        resolve_includes(static_cast<CallBlockNode&>(*n).caller.body, src, options, depth, included);
        break;
      case NodeKind::FilterBlock:
        resolve_includes(static_cast<FilterBlockNode&>(*n).body, src, options, depth, included);
        break;
      default: break;
    }
  }
}

std::shared_ptr<const Compiled> compile_source(std::string source, std::string name, const TemplateOptions& options,
                                                int depth, IncludedFiles& included) {
  // Jinja2 writes every line break of the template (\r\n, \r) as \n: a template saved on Windows renders the same.
  if (source.find('\r') != std::string::npos) {
    std::string lf;
    lf.reserve(source.size());
    for (size_t i = 0; i < source.size(); ++i) {
      if (source[i] != '\r') lf += source[i];
      else if (i + 1 >= source.size() || source[i + 1] != '\n') lf += '\n';
    }
    source = std::move(lf);
  }
  if (!options.keep_trailing_newline && !source.empty() && source.back() == '\n') source.pop_back();
  auto c = std::make_shared<Compiled>(
      Compiled{SourceText(std::move(name), std::move(source), options.embedding), options, {}, {}});
  auto tokens = tokenize(c->source, c->options);
  c->body = parse(c->source, tokens);
  resolve_includes(c->body, c->source, c->options, depth, included);
  Checker checker(c->source);
  checker.body(c->body);
  c->free_names = std::move(checker.free_names);
  c->free_paths = std::move(checker.free_paths);
  return c;
}

}  // namespace

Template Template::compile(std::string source, std::string name, TemplateOptions options) {
  IncludedFiles included;
  return Template(compile_source(std::move(source), std::move(name), options, 0, included));
}

Template Template::compile_file(const std::filesystem::path& path, TemplateOptions options) {
  if (options.include_dir.empty()) options.include_dir = path.has_parent_path() ? path.parent_path() : ".";
  return compile(read_file(path), path.string(), std::move(options));
}

std::string Template::render(const Vars& vars) const {
  std::string out;
  render_to(vars, out);
  return out;
}

void Template::render_to(const Vars& vars, std::string& out) const { render_compiled(*compiled_, vars, out); }

Template Template::compile_chat(std::string source, std::string name) {
  TemplateOptions o;
  o.trim_blocks = true;
  o.lstrip_blocks = true;
  o.strict_undefined = false;
  o.plain_tojson = true;
  o.keep_trailing_newline = false;
  return compile(std::move(source), std::move(name), o);
}

std::string Template::render_chat(const Value& messages, bool add_generation_prompt, const Value& extra) const {
  Value ctx = extra.is_object() ? extra : Value::object();
  // transformers passes tools and documents always, as None when there are none: templates test `tools is not none`.
  for (const char* always : {"tools", "documents"})
    if (!ctx.contains(always)) ctx[always] = nullptr;
  ctx["messages"] = messages;
  ctx["add_generation_prompt"] = add_generation_prompt;
  return render(ctx);
}

const std::string& Template::name() const { return compiled_->source.name(); }
const TemplateOptions& Template::options() const { return compiled_->options; }
Template Template::compile_expression(const std::string& expression, std::string name, TemplateOptions options) {
  // Wrapped as an output so the one lexer and parser read it; a column in an error is then 3 past the expression's.
  if (options.embedding) options.embedding->wrap = 3;
  IncludedFiles included;
  auto c = compile_source("{{ " + expression + " }}", std::move(name), options, 0, included);
  if (c->body.size() != 1 || c->body[0]->kind != NodeKind::Output)
    throw located_error(ErrorKind::TemplateSyntax, "expected one expression, got a template", c->source, 1, 1);
  return Template(std::move(c));
}

Value Template::evaluate(const Vars& vars) const { return evaluate_compiled(*compiled_, vars); }
bool Template::test(const Vars& vars) const { return truthy(evaluate(vars)); }

const std::vector<std::string>& Template::free_names() const { return compiled_->free_names; }
const std::vector<NamePath>& Template::free_paths() const { return compiled_->free_paths; }

Error Template::error_at_start(ErrorKind kind, std::string message) const {
  const auto& embedding = compiled_->source.embedding();
  int col = 1 + (embedding ? embedding->wrap : 0);  // an expression's first character, past the "{{ " put around it
  return located_error(kind, std::move(message), compiled_->source, 1, col);
}

Error Template::error_at(int line, int col, ErrorKind kind, std::string message) const {
  return located_error(kind, std::move(message), compiled_->source, line, col);
}

std::optional<SourceLoc> Template::place_in_file(int line, int col) const {
  return compiled_->source.place_in_file(line, col);
}

}  // namespace engine::tmpl
