// Walks a compiled template. Values from the context are borrowed, not copied: a render of a ReAct prompt
// touches every tool and scratchpad step, and copying them would cost more than the rendering itself.
#include <algorithm>
#include <climits>
#include <cmath>
#include <ctime>
#include <deque>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/limits.h"
#include "engine/template/builtins.h"
#include "engine/template/compiled.h"
#include "engine/template/integer.h"
#include "engine/template/markup_filters.h"
#include "engine/template/py_value.h"
#include "engine/template/unicode_case.h"

namespace engine::tmpl {

bool value_in(const Value& needle, const Value& haystack);  // builtins.cpp

namespace {

struct LoopState {
  const std::vector<const Value*>* items = nullptr;
  size_t index0 = 0;
  int depth = 1;
  const ForNode* node = nullptr;  // for loop(items) in a recursive loop
  int scope = 0;                  // the frame the loop was entered from: a deeper level's scope falls back to it
  mutable std::optional<Value> changed_last;  // what loop.changed() saw last
};

// What {% break %} or {% continue %} asks of the loop around it, while the rest of its body is skipped.
enum class LoopControl { None, Break, Continue };

class Renderer;
struct Module;

// A macro or a call block's body, with where its names resolve: frame `scope` of renderer `home`, or, for a
// macro imported from another template, a fresh renderer of that template's module.
struct Callable {
  const MacroDef* def = nullptr;
  const Compiled* owner = nullptr;
  int scope = 0;
  Renderer* home = nullptr;
  std::shared_ptr<const Module> module;
};

// What {% import %} yields: the imported template's top-level macros and variables.
struct Module {
  const Compiled* compiled = nullptr;
  Value context;                  // what the imported template's renders see (the importer's with context)
  Value values = Value::object();  // top-level {% set %} variables
  std::vector<const MacroDef*> macros;
};

// Jinja2's cycler(...) and joiner(sep): objects with state, shared by every name that holds them.
struct Helper {
  enum class Kind { Cycler, Joiner } kind;
  Value items;       // a cycler's values
  size_t next = 0;   // the cycler's next index
  std::string separator;
  bool called = false;  // a joiner gives "" on its first call, then the separator
};

// The result of evaluating an expression: a borrowed value, an owned temporary, an undefined, or `loop`.
class Ref {
 public:
  static Ref borrow(const Value& v, bool markup = false) {
    Ref r;
    r.ptr_ = &v;
    r.markup_ = markup;
    return r;
  }
  static Ref own(Value v) {
    Ref r;
    r.owned_ = std::move(v);
    return r;
  }
  static Ref undefined(std::string message, Pos pos) {
    Ref r;
    r.undefined_ = true;
    r.message_ = std::move(message);
    r.pos_ = pos;
    return r;
  }
  // Jinja2's plain Undefined, lenient even in strict mode: what a false `x if c` without else yields.
  static Ref soft_undefined(std::string message, Pos pos) {
    Ref r = undefined(std::move(message), pos);
    r.soft_ = true;
    return r;
  }
  bool is_soft() const { return soft_; }
  static Ref loop(const LoopState& l) {
    Ref r;
    r.loop_ = &l;
    return r;
  }
  static Ref callable(Callable c) {
    Ref r;
    r.callable_ = std::make_shared<Callable>(std::move(c));
    return r;
  }
  static Ref module(std::shared_ptr<const Module> m) {
    Ref r;
    r.module_ = std::move(m);
    return r;
  }
  // A namespace is one object however many names hold it: {% set x = ns %}{% set x.a = 5 %} changes ns.a.
  static Ref namespace_of(std::shared_ptr<Value> ns) {
    Ref r;
    r.ns_ = std::move(ns);
    return r;
  }
  static Ref new_namespace(Value v) { return namespace_of(std::make_shared<Value>(std::move(v))); }
  static Ref helper(std::shared_ptr<Helper> h) {
    Ref r;
    r.helper_ = std::move(h);
    return r;
  }
  const std::shared_ptr<Helper>& helper_ptr() const { return helper_; }
  // Jinja2's Markup: text marked safe (`safe`, `escape`, the built-in `tojson`). Without autoescaping it prints as
  // any text, but plain text added to it is escaped, and `escape` leaves it as it is. Set on a named Ref, so that
  // the return is elided: a Ref is large, and lookups are the renderer's hottest path.
  static Ref marked(Ref r) {
    r.markup_ = true;
    return r;
  }
  void set_markup(bool is) { markup_ = is; }
  bool is_markup() const { return markup_; }
  const Callable* callable_ptr() const { return callable_.get(); }
  const std::shared_ptr<const Module>& module_ptr() const { return module_; }
  bool is_namespace() const { return ns_ != nullptr; }
  const std::shared_ptr<Value>& namespace_ptr() const { return ns_; }
  bool is_special() const { return loop_ || callable_ || module_ || helper_; }

  bool is_undefined() const { return undefined_; }
  bool owned() const { return !ptr_ && !ns_ && !undefined_ && !loop_ && !callable_ && !module_ && !helper_; }
  const LoopState* loop_state() const { return loop_; }
  const Value& get() const { return ns_ ? *ns_ : ptr_ ? *ptr_ : owned_; }
  // Moves out when owned, copies when borrowed.
  Value take() { return ns_ ? *ns_ : ptr_ ? *ptr_ : std::move(owned_); }
  const std::string& message() const { return message_; }
  Pos pos() const { return pos_; }

 private:
  const Value* ptr_ = nullptr;
  Value owned_;
  bool undefined_ = false;
  std::string message_;
  Pos pos_;
  const LoopState* loop_ = nullptr;
  std::shared_ptr<Callable> callable_;
  std::shared_ptr<const Module> module_;
  std::shared_ptr<Value> ns_;  // a namespace's object, shared by every name that holds it
  std::shared_ptr<Helper> helper_;
  bool soft_ = false;
  bool markup_ = false;
};

struct Binding {
  std::string name;
  const Value* ptr = nullptr;  // borrowed (loop items) when set, else `owned`
  Value owned;
  const LoopState* loop = nullptr;
  std::optional<Callable> callable;
  std::shared_ptr<const Module> module;
  std::shared_ptr<Value> ns;  // a namespace: its object, shared with every other name holding it
  std::shared_ptr<Helper> helper;
  bool markup = false;  // the value is Jinja2's Markup
  bool undefined = false;     // a macro parameter that was not given, or a name set from an undefined value
  bool undefined_soft = false;
  std::string undefined_message;  // why, when set from an undefined value
};

// A scope. Names not found in a frame are looked up in its parent: a loop's parent is the enclosing scope, a
// macro's is the scope it was defined in, a caller's is its call site. A deque keeps bindings in place when a
// frame grows, so borrowed pointers into them stay valid.
struct Frame {
  std::deque<Binding> vars;
  int parent = -1;
};

const Value kEmptyString = "";

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}
std::string utf8_character_at(std::string_view s, size_t i) {
  if (is_ascii(s)) return std::string(1, s[i]);
  return std::string(code_points(s)[i].bytes);
}

// What one render may spend, shared by the renderers of its imported templates. Output bytes alone bound nothing
// that prints nothing: a loop or a macro recursion with an empty body would run for ever.
struct RenderBudget {
  int call_depth = 0;
  uint64_t steps = 0;
};

class Renderer {
 public:
  Renderer(const Compiled& c, const Vars& vars, std::string& out, RenderBudget* budget = nullptr)
      : c_(&c), vars_(vars), out_(out), budget_(budget ? budget : &own_budget_) {
    frames_.push_back(Frame{});
  }

  void body(const Body& b) {
    for (const auto& n : b) {
      node(*n);
      if (loop_control_ != LoopControl::None) return;  // the enclosing loop takes it from here
    }
  }

  // An expression's value, as `{% if %}` would test it; an undefined name is an error in a strict template.
  Value evaluate(const Expr& e) {
    Ref r = eval(e);
    if (!r.is_undefined()) (void)defined(r);  // throws for a loop, a macro or a module: no value
    return defined_value(r);
  }

  // Runs an imported template's top level and collects what it defines.
  std::shared_ptr<Module> export_module(const Compiled& compiled, Value context) {
    auto m = std::make_shared<Module>();
    m->compiled = &compiled;
    m->context = std::move(context);
    for (const auto& b : frames_[0].vars) {
      if (b.callable) m->macros.push_back(b.callable->def);
      else if (!b.loop && !b.module) m->values[b.name] = b.ptr ? *b.ptr : b.owned;
    }
    return m;
  }

  // Makes an imported module's macros and variables the top-level names of this renderer.
  void adopt_module(const Module& m) {
    for (const auto& [name, v] : m.values.items()) frames_[0].vars.push_back(Binding{name, &v});
    for (const MacroDef* def : m.macros) {
      Binding b{def->name};
      b.callable = Callable{def, m.compiled, 0, this, nullptr};
      frames_[0].vars.push_back(std::move(b));
    }
  }

  Ref invoke(const Callable& c, CallArgs args, Pos pos, const Callable* caller);

 private:
  // ---- errors ----
  [[noreturn]] void fail(ErrorKind kind, const std::string& msg, Pos p) const {
    throw located_error(kind, msg, c_->source, p.line, p.col);
  }
  [[noreturn]] void fail_undefined(const Ref& r) const { fail(ErrorKind::TemplateUndefined, r.message(), r.pos()); }

  // Resolves an undefined per the template's mode: strict fails, lenient reads it as the empty string.
  const Value& defined(const Ref& r) const {
    if (r.is_undefined()) {
      if (c_->options.strict_undefined && !r.is_soft()) fail_undefined(r);
      return kEmptyString;
    }
    if (r.loop_state()) fail(ErrorKind::TemplateRender, "'loop' cannot be used as a value", r.pos());
    if (r.callable_ptr() || r.module_ptr() || r.helper_ptr())
      fail(ErrorKind::TemplateRender, "a macro, module, cycler or joiner cannot be used as a value", r.pos());
    return r.get();
  }

  void check_size(Pos p) const {
    if (out_.size() > c_->options.max_output_bytes)
      fail(ErrorKind::TemplateOutputTooLarge,
           "rendered output exceeds " + std::to_string(c_->options.max_output_bytes) + " bytes", p);
  }

  // A large value (a document given as an input) is given room with a little to spare: the string's own doubling
  // would, at the next small append, hold the output twice over while it copies, and keep twice its size after.
  void make_room(size_t more) {
    constexpr size_t kLarge = 64 << 10;
    size_t need = out_.size() + more;
    if (more < kLarge || need <= out_.capacity()) return;
    out_.reserve(need + std::max(kLarge, need / 16));
  }

  void tick(Pos p) {
    if (++budget_->steps > c_->options.max_render_steps)
      fail(ErrorKind::TemplateRenderBudget,
           "the render took more than " + std::to_string(c_->options.max_render_steps) +
               " steps (a loop or a recursion that never ends?)", p);
  }

  // A value an expression built: a string is held to the output limit (a string built by ~ in a loop would
  // otherwise grow until memory runs out), a list or dict to the JSON depth bound (printing, comparing and copying
  // a value recurse, and {% set x = [x] %} in a loop nests without end).
  Ref made(Value v, Pos p) const {
    check_value(v, p);
    return Ref::own(std::move(v));
  }
  void check_value(const Value& v, Pos p) const {
    if (v.is_string()) {
      if (v.get_ref<const std::string&>().size() > c_->options.max_output_bytes)
        fail(ErrorKind::TemplateOutputTooLarge,
             "a string of more than " + std::to_string(c_->options.max_output_bytes) + " bytes (the output limit)", p);
    } else if (v.is_structured()) {
      if (json_depth(v) > limits::kJsonDepth)
        fail(ErrorKind::TemplateRender, "a value nested deeper than " + std::to_string(limits::kJsonDepth) + " levels", p);
    }
  }

  // ---- statements ----
  void node(const Node& n) {
    tick(n.pos);
    switch (n.kind) {
      case NodeKind::Text:
        out_ += static_cast<const TextNode&>(n).text;
        return check_size(n.pos);
      case NodeKind::Output: {
        const auto& o = static_cast<const OutputNode&>(n);
        Ref r = eval(*o.expr);
        if (r.is_undefined() && (!c_->options.strict_undefined || r.is_soft())) return;
        if (const Callable* c = r.callable_ptr()) {
          out_ += "<Macro '" + c->def->name + "'>";
        } else if (r.is_namespace()) {
          out_ += "<Namespace " + py_repr(r.get()) + ">";
        } else {
          const Value& v = defined(r);
          if (v.is_string()) make_room(v.get_ref<const std::string&>().size());
          append_py_str(out_, v);
        }
        return check_size(n.pos);
      }
      case NodeKind::If: {
        const auto& i = static_cast<const IfNode&>(n);
        for (const auto& [cond, b] : i.branches)
          if (test(*cond)) return body(b);
        return body(i.otherwise);
      }
      case NodeKind::For: return render_for(static_cast<const ForNode&>(n));
      case NodeKind::Set: {
        const auto& s = static_cast<const SetNode&>(n);
        Ref r = eval(*s.value);
        if (!s.attribute.empty()) return assign_attribute(s, defined_value(r));
        if (s.targets.size() == 1 && r.is_special()) return assign_special(s.targets[0], r);
        if (s.targets.size() == 1 && r.is_undefined()) {  // the name is undefined too, as in Jinja2: `is defined` says so
          Binding& b = assign(s.targets[0], Value());
          b.undefined = true;
          b.undefined_soft = r.is_soft();
          b.undefined_message = "'" + s.targets[0] + "' was set from an undefined value: " + r.message();
          return;
        }
        if (s.targets.size() == 1 && r.is_namespace()) {
          assign(s.targets[0], Value()).ns = r.namespace_ptr();
          return;
        }
        bool markup = r.is_markup();
        Value v = defined_value(r);
        if (s.targets.size() == 1) {
          assign(s.targets[0], std::move(v)).markup = markup;
          return;
        }
        v = unpackable(v, s.pos);
        unpack(s.targets, v, s.pos, [&](const std::string& name, const Value& item) { assign(name, item); });
        return;
      }
      case NodeKind::SetBlock: {
        const auto& s = static_cast<const SetBlockNode&>(n);
        std::string saved;
        saved.swap(out_);
        body(s.body);
        saved.swap(out_);
        Value v(std::move(saved));
        for (const auto& [name, a] : s.filters) v = apply_filter(name, v, eval_args(a), s.pos);
        assign(s.target, std::move(v));
        return;
      }
      case NodeKind::With: {
        const auto& w = static_cast<const WithNode&>(n);
        std::vector<Ref> values;  // computed where the block stands, before any of its names exist
        values.reserve(w.assignments.size());
        for (const auto& [name, e] : w.assignments) values.push_back(eval(*e));
        int saved = push_frame(current_);
        for (size_t i = 0; i < values.size(); ++i) {
          const std::string& name = w.assignments[i].first;
          if (values[i].is_special()) {
            assign_special(name, values[i]);
            continue;
          }
          if (values[i].is_namespace()) assign(name, Value()).ns = values[i].namespace_ptr();
          else assign(name, defined_value(values[i]));
        }
        body(w.body);
        pop_frame(saved);
        return;
      }
      case NodeKind::Break: loop_control_ = LoopControl::Break; return;
      case NodeKind::Continue: loop_control_ = LoopControl::Continue; return;
      case NodeKind::Macro: {
        const auto& m = static_cast<const MacroNode&>(n);
        Binding& b = assign(m.def.name, Value());
        b.callable = Callable{&m.def, c_, current_, this, nullptr};
        return;
      }
      case NodeKind::CallBlock: {
        const auto& cb = static_cast<const CallBlockNode&>(n);
        const auto& call_expr = static_cast<const CallExpr&>(*cb.call);
        Callable caller{&cb.caller, c_, current_, this, nullptr};
        Ref r = call(call_expr, &caller);
        append_py_str(out_, defined(r));
        return check_size(n.pos);
      }
      case NodeKind::FilterBlock: {
        const auto& f = static_cast<const FilterBlockNode&>(n);
        std::string saved;
        saved.swap(out_);
        body(f.body);
        saved.swap(out_);
        Value v(std::move(saved));
        for (const auto& [name, a] : f.filters) v = apply_filter(name, v, eval_args(a), f.pos);
        append_py_str(out_, v);
        return check_size(n.pos);
      }
      case NodeKind::Include: return include(static_cast<const IncludeNode&>(n));
      case NodeKind::Import: return import(static_cast<const ImportNode&>(n));
    }
  }

  Frame& current() { return frames_[static_cast<size_t>(current_)]; }

  // Pushes a scope whose names fall back to `parent`; returns the previous current scope.
  int push_frame(int parent) {
    frames_.push_back(Frame{{}, parent});
    int saved = current_;
    current_ = static_cast<int>(frames_.size()) - 1;
    return saved;
  }
  void pop_frame(int saved) {
    frames_.pop_back();
    current_ = saved;
  }

  void assign_special(const std::string& name, const Ref& r) {
    Binding& b = assign(name, Value());
    if (r.callable_ptr()) b.callable = *r.callable_ptr();
    b.module = r.module_ptr();
    b.helper = r.helper_ptr();
    if (r.loop_state()) b.loop = r.loop_state();
  }

  // {% set ns.attr = v %}: only namespaces take attributes, as in Jinja2.
  void assign_attribute(const SetNode& s, Value v) {
    for (int f = current_; f >= 0; f = frames_[static_cast<size_t>(f)].parent)
      for (auto& b : frames_[static_cast<size_t>(f)].vars)
        if (b.name == s.targets[0]) {
          if (!b.ns)
            fail(ErrorKind::TemplateRender, "cannot assign attribute on non-namespace object '" + s.targets[0] + "'", s.pos);
          (*b.ns)[s.attribute] = std::move(v);
          check_value(*b.ns, s.pos);  // {% set ns.x = ns %} nests the namespace in itself
          return;
        }
    fail(ErrorKind::TemplateUndefined, "undefined variable '" + s.targets[0] + "'", s.pos);
  }

  void include(const IncludeNode& inc) {
    if (!inc.target) return;  // missing, and `ignore missing`
    if (++budget_->call_depth > c_->options.max_call_depth)
      fail(ErrorKind::TemplateCallDepth, "includes and macro calls nested deeper than " +
                                      std::to_string(c_->options.max_call_depth) + " levels", inc.pos);
    if (inc.with_context) {
      const Compiled* saved_c = c_;
      c_ = inc.target.get();
      int saved = push_frame(current_);
      body(inc.target->body);
      pop_frame(saved);
      c_ = saved_c;
    } else {
      const Value nothing = Value::object();  // outlives the renderer, which borrows it
      Renderer sub(*inc.target, Vars::of(nothing), out_, budget_);
      sub.body(inc.target->body);
    }
    --budget_->call_depth;
    check_size(inc.pos);
  }

  void import(const ImportNode& imp) {
    Value context = imp.with_context ? vars_.flatten() : Value::object();
    std::string discard;
    Renderer sub(*imp.target, Vars::of(context), discard, budget_);
    sub.body(imp.target->body);
    std::shared_ptr<const Module> m = sub.export_module(*imp.target, std::move(context));
    if (!imp.alias.empty()) {
      assign(imp.alias, Value()).module = m;
      return;
    }
    for (const auto& [name, bound] : imp.names) {
      Ref member = module_member(m, name, imp.pos);
      if (member.is_undefined())
        fail(ErrorKind::TemplateImport, "the template '" + imp.name + "' does not export '" + name + "'", imp.pos);
      assign_special(bound, member);
      if (!member.is_special()) current().vars.back().owned = member.get();
    }
  }

  Ref module_member(const std::shared_ptr<const Module>& m, const std::string& name, Pos p) {
    for (const MacroDef* def : m->macros)
      if (def->name == name) return Ref::callable(Callable{def, m->compiled, 0, nullptr, m});
    auto it = m->values.find(name);
    if (it != m->values.end()) return Ref::borrow(*it);
    return Ref::undefined("the module has no attribute '" + name + "'", p);
  }

  Value defined_value(Ref& r) {
    if (r.is_undefined()) {
      if (c_->options.strict_undefined && !r.is_soft()) fail_undefined(r);
      return Value();
    }
    return r.take();
  }

  Binding& assign(const std::string& name, Value v) {
    for (auto& b : current().vars)
      if (b.name == name) {
        b = Binding{name, nullptr, std::move(v)};
        return b;
      }
    current().vars.push_back(Binding{name, nullptr, std::move(v)});
    return current().vars.back();
  }

  template <class F>
  void unpack(const std::vector<std::string>& targets, const Value& v, Pos p, F bind) {
    check_unpack(v, targets.size(), p);
    for (size_t i = 0; i < targets.size(); ++i) bind(targets[i], v[i]);
  }
  void check_unpack(const Value& v, size_t names, Pos p) const {
    if (!v.is_array() || v.size() != names)
      fail(ErrorKind::TemplateRender,
           "cannot unpack " + type_name(v) + (v.is_array() ? " of " + std::to_string(v.size()) + " items" : "") +
               " into " + std::to_string(names) + " names",
           p);
  }
  // Python unpacks any iterable: a string into its characters, a dict into its keys.
  Value unpackable(const Value& v, Pos p) {
    if (v.is_array() || !(v.is_string() || v.is_object())) return v;
    try {
      return FilterList(v);
    } catch (const BuiltinError& e) {
      fail(e.kind, e.message, p);
    }
  }
  // for a, (b, c) in ...: each group unpacks its part of the item; the names own copies.
  void bind_pattern(const std::vector<TargetPattern>& parts, const Value& item, Pos p) {
    Value v = unpackable(item, p);
    check_unpack(v, parts.size(), p);
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].parts.empty()) assign(parts[i].name, v[i]);
      else bind_pattern(parts[i].parts, v[i], p);
    }
  }

  void render_for(const ForNode& f) {
    Ref iterable = eval(*f.iterable);
    render_loop(f, defined(iterable), current_, 1);
  }

  // One level of a loop over `seq`, its scope falling back to frame `scope`; a recursive loop's loop(items) renders
  // the next level with depth + 1.
  void render_loop(const ForNode& f, const Value& seq, int scope, int depth) {
    // Dicts iterate over their keys and strings over their characters, so those need a list of their own.
    Value expanded;
    const Value* list = &seq;
    if (!seq.is_array()) {
      try {
        expanded = FilterList(seq);
      } catch (const BuiltinError& e) {
        fail(e.kind, e.message, f.iterable->pos);
      }
      list = &expanded;
    }

    int saved_frame = push_frame(scope);
    LoopState loop;
    loop.depth = depth;
    loop.node = &f;
    loop.scope = scope;
    std::vector<const Value*> items;
    items.reserve(list->size());
    if (f.filter) {
      // The filter sees the loop variables but not `loop`, as in Jinja2.
      for (const auto& item : *list) {
        bind_targets(f, item);
        if (test(*f.filter)) items.push_back(&item);
      }
    } else {
      for (const auto& item : *list) items.push_back(&item);
    }
    loop.items = &items;
    for (size_t i = 0; i < items.size(); ++i) {
      tick(f.pos);
      loop.index0 = i;
      bind_targets(f, *items[i]);
      bind_loop(loop);
      body(f.body);
      LoopControl control = loop_control_;
      loop_control_ = LoopControl::None;
      if (control == LoopControl::Break) break;
    }
    pop_frame(saved_frame);
    if (items.empty()) body(f.otherwise);
  }

  static Value FilterList(const Value& s) {
    CallArgs none;
    return find_filter("list")(s, none);
  }

  void bind_targets(const ForNode& f, const Value& item) {
    if (f.targets.size() == 1) return bind_borrowed(f.targets[0], item);
    if (!f.pattern.parts.empty()) return bind_pattern(f.pattern.parts, item, f.pos);
    if (!item.is_array()) {  // a string or a dict: its characters or keys are new values, owned by the names
      Value v = unpackable(item, f.pos);
      return unpack(f.targets, v, f.pos, [&](const std::string& name, const Value& part) { assign(name, part); });
    }
    unpack(f.targets, item, f.pos, [&](const std::string& name, const Value& v) { bind_borrowed(name, v); });
  }
  void bind_borrowed(const std::string& name, const Value& v) {
    for (auto& b : current().vars)
      if (b.name == name) {
        b.ptr = &v;
        b.loop = nullptr;
        return;
      }
    current().vars.push_back(Binding{name, &v});
  }
  void bind_loop(const LoopState& l) {
    for (auto& b : current().vars)
      if (b.name == "loop") {
        b.loop = &l;
        return;
      }
    current().vars.push_back(Binding{"loop", nullptr, Value(), &l});
  }

  bool test(const Expr& e) { return truthy_ref(eval(e)); }
  bool truthy_ref(const Ref& r) {
    if (r.is_undefined()) {
      if (c_->options.strict_undefined && !r.is_soft()) fail_undefined(r);
      return false;
    }
    if (r.loop_state()) return true;
    return truthy(r.get());
  }

  // ---- expressions ----
  Ref lookup(const std::string& name, Pos p) {
    for (int f = current_; f >= 0; f = frames_[static_cast<size_t>(f)].parent)
      for (const auto& b : frames_[static_cast<size_t>(f)].vars)
        if (b.name == name) {
          if (b.undefined) {
            Ref r = Ref::undefined(b.undefined_message.empty() ? "undefined variable '" + name + "'" : b.undefined_message, p);
            return b.undefined_soft ? Ref::soft_undefined(r.message(), p) : r;
          }
          if (b.loop) return Ref::loop(*b.loop);
          if (b.callable) return Ref::callable(*b.callable);
          if (b.module) return Ref::module(b.module);
          if (b.ns) return Ref::namespace_of(b.ns);
          if (b.helper) return Ref::helper(b.helper);
          return Ref::borrow(b.ptr ? *b.ptr : b.owned, b.markup);
        }
    if (const Value* v = vars_.find(name)) return Ref::borrow(*v);
    return Ref::undefined("undefined variable '" + name + "'", p);
  }

  static std::string describe(const Expr& e) {
    if (e.kind == ExprKind::Name) return "'" + static_cast<const NameExpr&>(e).name + "'";
    if (e.kind == ExprKind::Attr) {
      const auto& a = static_cast<const AttrExpr&>(e);
      std::string base = describe(*a.object);
      if (base.size() > 2 && base.front() == '\'') return base.substr(0, base.size() - 1) + "." + a.name + "'";
    }
    return "the value";
  }

  Ref member(Ref obj, const Value& key, const Expr& object_expr, Pos p, bool is_attr) {
    if (obj.is_undefined()) fail_undefined(obj);  // Jinja2 fails here in every mode
    if (obj.module_ptr()) return module_member(obj.module_ptr(), py_str(key), p);
    if (const LoopState* l = obj.loop_state()) {
      if (key.is_string()) return loop_attr(*l, key.get<std::string>(), p);
      fail(ErrorKind::TemplateRender, "'loop' has no item " + py_repr(key), p);
    }
    if (const auto& h = obj.helper_ptr()) {
      if (h->kind == Helper::Kind::Cycler && is_attr && key == "current") return Ref::own(h->items[h->next]);
      return Ref::undefined(describe(object_expr) + " has no attribute " + py_str(key), p);
    }
    if (const Callable* c = obj.callable_ptr()) {  // a macro's name and its parameters' names, as Jinja2's Macro
      if (is_attr && key == "name") return Ref::own(c->def->name);
      if (is_attr && key == "arguments") {
        Value names = Value::array();
        for (const auto& param : c->def->params) names.push_back(param.first);
        return Ref::own(std::move(names));
      }
      return Ref::undefined(describe(object_expr) + " has no attribute " + py_str(key), p);
    }
    const Value& v = obj.get();
    const Value* found = nullptr;
    // groupby's groups are [grouper, list] pairs that also answer to .grouper and .list, as Jinja2's tuples do.
    if (is_attr && v.is_array() && v.size() == 2 && key.is_string() &&
        (key.get_ref<const std::string&>() == "grouper" || key.get_ref<const std::string&>() == "list"))
      return member(std::move(obj), Value(key.get_ref<const std::string&>() == "grouper" ? 0 : 1), object_expr, p, false);
    if (v.is_object() && key.is_string()) {
      auto it = v.find(key.get_ref<const std::string&>());
      if (it != v.end()) found = &*it;
    } else if (v.is_object() && (key.is_number() || key.is_boolean() || key.is_null())) {  // {512: 128}[512]
      auto it = v.find(dict_key(key));
      if (it != v.end()) found = &*it;
    } else if ((v.is_array() || v.is_string()) && (key.is_number_integer() || key.is_number_unsigned())) {
      // A string is indexed by characters, as Python's str.
      long long n = static_cast<long long>(v.is_array() ? v.size() : character_count(v.get_ref<const std::string&>()));
      // an index past 2^63-1 is out of range, not a negative index from the end
      long long i = key.is_number_unsigned() && key.get<unsigned long long>() > LLONG_MAX ? n : key.get<long long>();
      if (i < 0) i += n;
      if (i >= 0 && i < n) {
        if (v.is_string()) return Ref::own(utf8_character_at(v.get_ref<const std::string&>(), static_cast<size_t>(i)));
        found = &v[static_cast<size_t>(i)];
      }
    }
    if (!found) {
      std::string what = is_attr ? "attribute " + py_str(key) : (key.is_string() ? "key " : "index ") + py_repr(key);
      return Ref::undefined(describe(object_expr) + " has no " + what, p);
    }
    // A member of a temporary must be copied out before the temporary dies; members of borrowed values are
    // borrowed too.
    if (obj.owned()) return Ref::own(*found);
    return Ref::borrow(*found);
  }

  Ref loop_attr(const LoopState& l, const std::string& name, Pos p) {
    size_t n = l.items->size(), i = l.index0;
    if (name == "index") return Ref::own(i + 1);
    if (name == "index0") return Ref::own(i);
    if (name == "revindex") return Ref::own(n - i);
    if (name == "revindex0") return Ref::own(n - i - 1);
    if (name == "first") return Ref::own(i == 0);
    if (name == "last") return Ref::own(i + 1 == n);
    if (name == "length") return Ref::own(n);
    if (name == "depth") return Ref::own(l.depth);
    if (name == "depth0") return Ref::own(l.depth - 1);
    if (name == "previtem") {
      if (i == 0) return Ref::undefined("'loop.previtem' is undefined on the first iteration", p);
      return Ref::borrow(*(*l.items)[i - 1]);
    }
    if (name == "nextitem") {
      if (i + 1 >= n) return Ref::undefined("'loop.nextitem' is undefined on the last iteration", p);
      return Ref::borrow(*(*l.items)[i + 1]);
    }
    return Ref::undefined("'loop' has no attribute '" + name + "'", p);
  }

  CallArgs eval_args(const Args& a) {
    CallArgs out;
    out.positional.reserve(a.positional.size());
    for (const auto& e : a.positional) {
      Ref r = eval(*e);
      out.positional.push_back(defined_value(r));
    }
    for (const auto& [k, e] : a.keyword) {
      Ref r = eval(*e);
      out.keyword.emplace_back(k, defined_value(r));
    }
    if (a.star) {
      Ref r = eval(*a.star);
      const Value& items = defined(r);
      if (!items.is_array() && !items.is_string() && !items.is_object())
        fail(ErrorKind::TemplateRender, "*items needs a list, got " + type_name(items), a.star->pos);
      for (Value& item : FilterList(items)) out.positional.push_back(std::move(item));
    }
    if (a.double_star) {
      Ref r = eval(*a.double_star);
      const Value& mapping = defined(r);
      if (!mapping.is_object()) fail(ErrorKind::TemplateRender, "**mapping needs a dict, got " + type_name(mapping), a.double_star->pos);
      for (const auto& [k, v] : mapping.items()) {
        if (is_typed_key(k)) fail(ErrorKind::TemplateRender, "keywords must be strings", a.double_star->pos);
        out.keyword.emplace_back(k, v);
      }
    }
    return out;
  }

  Ref call(const CallExpr& c, const Callable* caller = nullptr) {
    Ref callee_ref;
    bool evaluated = false;
    if (c.callee->kind != ExprKind::Attr || caller) {
      callee_ref = eval(*c.callee);
      evaluated = true;
    }
    if (evaluated && callee_ref.callable_ptr()) return invoke(*callee_ref.callable_ptr(), eval_args(c.args), c.pos, caller);
    if (evaluated && callee_ref.loop_state()) return recurse(*callee_ref.loop_state(), c);
    if (evaluated && callee_ref.helper_ptr() && callee_ref.helper_ptr()->kind == Helper::Kind::Joiner) {
      Helper& j = *callee_ref.helper_ptr();
      bool first = !j.called;
      j.called = true;
      return Ref::own(first ? std::string() : j.separator);
    }
    if (caller) fail(ErrorKind::TemplateRender, "{% call %} needs a macro to call", c.pos);
    if (c.callee->kind == ExprKind::Attr) {
      const auto& a = static_cast<const AttrExpr&>(*c.callee);
      Ref obj = eval(*a.object);
      if (obj.module_ptr()) {
        Ref m = module_member(obj.module_ptr(), a.name, c.pos);
        if (m.callable_ptr()) return invoke(*m.callable_ptr(), eval_args(c.args), c.pos, nullptr);
        fail(ErrorKind::TemplateRender, "'" + a.name + "' is not a macro of the module", c.pos);
      }
      if (const LoopState* l = obj.loop_state()) {
        if (a.name == "cycle") {
          CallArgs args = eval_args(c.args);
          if (args.positional.empty()) fail(ErrorKind::TemplateRender, "loop.cycle() expects at least one value", c.pos);
          return Ref::own(args.positional[l->index0 % args.positional.size()]);
        }
        if (a.name == "changed") {  // true on the first call and whenever the values differ from the last call's
          CallArgs args = eval_args(c.args);
          Value now(std::move(args.positional));
          if (l->changed_last && *l->changed_last == now) return Ref::own(false);
          l->changed_last = std::move(now);
          return Ref::own(true);
        }
        fail(ErrorKind::TemplateRender, "'loop." + a.name + "' is not callable", c.pos);
      }
      if (const auto& h = obj.helper_ptr(); h && h->kind == Helper::Kind::Cycler) {
        if (a.name == "next") {
          const Value& item = h->items[h->next];
          h->next = (h->next + 1) % h->items.size();
          return Ref::own(item);
        }
        if (a.name == "reset") {
          h->next = 0;
          return Ref::own(Value());
        }
        fail(ErrorKind::TemplateRender, "a cycler has no method '" + a.name + "' (it has next, reset and current)", c.pos);
      }
      if (obj.is_undefined()) fail_undefined(obj);  // a method of an undefined fails in every mode, as in Jinja2
      const Value& self = defined(obj);
      CallArgs args = eval_args(c.args);
      try {
        return made(call_method(self, a.name, args), c.pos);
      } catch (const BuiltinError& e) {
        fail(e.kind, e.message, c.pos);
      }
    }
    if (c.callee->kind == ExprKind::Name) {
      const std::string& name = static_cast<const NameExpr&>(*c.callee).name;
      Ref shadow = lookup(name, c.pos);
      if (shadow.is_undefined()) {
        CallArgs args = eval_args(c.args);
        if (name == "range") return Ref::own(range(args, c.pos));
        if (name == "dict" || name == "namespace") {
          Value d = Value::object();
          // dict(d, c=3) and namespace(d, c=3): the mapping's items, then the keywords over them.
          if (!args.positional.empty() && args.positional[0].is_object()) d = args.positional[0];
          for (auto& [k, v] : args.keyword) d[k] = std::move(v);
          if (name == "dict") return made(std::move(d), c.pos);
          check_value(d, c.pos);
          return Ref::new_namespace(std::move(d));
        }
        if (name == "raise_exception") {
          // Hugging Face chat templates call this to reject a conversation they cannot format.
          fail(ErrorKind::TemplateRaised, args.positional.empty() ? "raise_exception() called" : py_str(args.positional[0]),
               c.pos);
        }
        if (name == "strftime_now") return Ref::own(strftime_now(args, c.pos));
        if (name == "cycler") {
          if (args.positional.empty()) fail(ErrorKind::TemplateRender, "cycler() expects at least one value", c.pos);
          return Ref::helper(std::make_shared<Helper>(Helper{Helper::Kind::Cycler, Value(std::move(args.positional))}));
        }
        if (name == "joiner") {
          const Value* sep = args.get(0, "sep");
          return Ref::helper(std::make_shared<Helper>(
              Helper{Helper::Kind::Joiner, Value(), 0, sep ? py_str(*sep) : std::string(", ")}));
        }
        if (name == "lipsum")
          fail(ErrorKind::TemplateUnsupported,
               "'lipsum()' is not supported: it writes random text, and a prompt renders the same every time",
               c.callee->pos);
        fail(ErrorKind::TemplateUndefined, "undefined function '" + name + "'", c.callee->pos);
      }
      fail(ErrorKind::TemplateRender, "'" + name + "' is not callable", c.pos);
    }
    fail(ErrorKind::TemplateRender, "this expression is not callable", c.pos);
  }

  // loop(items) in a recursive loop: the loop's body over `items`, one level deeper, rendered to a string.
  Ref recurse(const LoopState& l, const CallExpr& c) {
    if (!l.node->recursive)
      fail(ErrorKind::TemplateRender, "loop() is for a recursive loop: write {% for ... recursive %}", c.pos);
    CallArgs args = eval_args(c.args);
    if (args.positional.size() != 1 || !args.keyword.empty())
      fail(ErrorKind::TemplateRender, "loop() takes the items of the next level", c.pos);
    if (++budget_->call_depth > c_->options.max_call_depth)
      fail(ErrorKind::TemplateCallDepth, "recursive loop calls and macro calls nested deeper than " +
                                      std::to_string(c_->options.max_call_depth) + " levels", c.pos);
    const Value items = std::move(args.positional[0]);  // the level's items outlive its bindings
    std::string saved;
    saved.swap(out_);
    render_loop(*l.node, items, l.scope, l.depth + 1);
    saved.swap(out_);
    --budget_->call_depth;
    return made(Value(std::move(saved)), c.pos);
  }

  Value strftime_now(const CallArgs& a, Pos p) {
    if (a.positional.empty() || !a.positional[0].is_string())
      fail(ErrorKind::TemplateRender, "strftime_now() expects a format string", p);
    std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buf[256];
    size_t n = std::strftime(buf, sizeof buf, a.positional[0].get_ref<const std::string&>().c_str(), &local);
    return std::string(buf, n);
  }

  Value range(const CallArgs& a, Pos p) {
    std::vector<long long> n;
    for (const auto& v : a.positional) {
      if (!v.is_number_integer() && !v.is_number_unsigned())
        fail(ErrorKind::TemplateRender, "range() expects integers, got " + type_name(v), p);
      n.push_back(as_int(v, p));
    }
    if (n.empty() || n.size() > 3) fail(ErrorKind::TemplateRender, "range() expects 1 to 3 arguments", p);
    long long start = n.size() > 1 ? n[0] : 0, stop = n.size() > 1 ? n[1] : n[0], step = n.size() > 2 ? n[2] : 1;
    if (step == 0) fail(ErrorKind::TemplateRender, "range() arg 3 must not be zero", p);
    // Refuse absurd ranges before allocating them. The span is taken in unsigned arithmetic, where stop - start
    // cannot overflow, and no element past the last is computed.
    unsigned long long span = 0, stride = step > 0 ? static_cast<unsigned long long>(step)
                                                   : 0ULL - static_cast<unsigned long long>(step);
    if (step > 0 && stop > start) span = static_cast<unsigned long long>(stop) - static_cast<unsigned long long>(start);
    if (step < 0 && start > stop) span = static_cast<unsigned long long>(start) - static_cast<unsigned long long>(stop);
    unsigned long long count = span == 0 ? 0 : (span - 1) / stride + 1;
    if (count > static_cast<unsigned long long>(limits::kTemplateRangeItems))
      fail(ErrorKind::TemplateRender, "range() of more than " + std::to_string(limits::kTemplateRangeItems) + " items", p);
    Value out = Value::array();
    for (unsigned long long k = 0; k < count; ++k)
      out.push_back(static_cast<long long>(static_cast<unsigned long long>(start) + k * static_cast<unsigned long long>(step)));
    return out;
  }

  // Not ticked: an expression's work is bounded by its size and its data; what repeats without bound (loops,
  // macro calls) is ticked where it repeats.
  Ref eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Literal: return Ref::borrow(static_cast<const LiteralExpr&>(e).value);
      case ExprKind::Name: return lookup(static_cast<const NameExpr&>(e).name, e.pos);
      case ExprKind::Attr: {
        const auto& a = static_cast<const AttrExpr&>(e);
        return member(eval(*a.object), Value(a.name), *a.object, e.pos, true);
      }
      case ExprKind::Item: {
        const auto& i = static_cast<const ItemExpr&>(e);
        Ref obj = eval(*i.object);
        Ref key = eval(*i.index);
        return member(std::move(obj), defined(key), *i.object, e.pos, false);
      }
      case ExprKind::Slice: return slice(static_cast<const SliceExpr&>(e));
      case ExprKind::Call: return call(static_cast<const CallExpr&>(e));
      case ExprKind::Filter: return filter(static_cast<const FilterExpr&>(e));
      case ExprKind::Test: {
        const auto& t = static_cast<const TestExpr&>(e);
        return Ref::own(run_test(t) != t.negated);
      }
      case ExprKind::Unary: return unary(static_cast<const UnaryExpr&>(e));
      case ExprKind::Binary: return binary(static_cast<const BinaryExpr&>(e));
      case ExprKind::Compare: return compare(static_cast<const CompareExpr&>(e));
      case ExprKind::And: {
        const auto& l = static_cast<const LogicExpr&>(e);
        Ref left = eval(*l.left);
        return truthy_ref(left) ? eval(*l.right) : left;
      }
      case ExprKind::Or: {
        const auto& l = static_cast<const LogicExpr&>(e);
        Ref left = eval(*l.left);
        return truthy_ref(left) ? std::move(left) : eval(*l.right);
      }
      case ExprKind::Cond: {
        const auto& c = static_cast<const CondExpr&>(e);
        if (test(*c.cond)) return eval(*c.then);
        if (c.otherwise) return eval(*c.otherwise);
        return Ref::soft_undefined("the inline if-expression is false and has no else branch", e.pos);
      }
      case ExprKind::List: {
        Value out = Value::array();
        for (const auto& i : static_cast<const ListExpr&>(e).items) {
          Ref r = eval(*i);
          out.push_back(defined_value(r));
        }
        return made(std::move(out), e.pos);
      }
      case ExprKind::Dict: {
        Value out = Value::object();
        for (const auto& [k, v] : static_cast<const DictExpr&>(e).items) {
          Ref kr = eval(*k);
          const Value& key = defined(kr);
          Ref vr = eval(*v);
          std::string name;
          try {
            name = dict_key(key);
          } catch (const BuiltinError& err) {
            fail(err.kind, err.message, k->pos);
          }
          out[name] = defined_value(vr);
        }
        return made(std::move(out), e.pos);
      }
    }
    fail(ErrorKind::TemplateRender, "unknown expression", e.pos);
  }

  Ref filter(const FilterExpr& f) {
    Ref input = eval(*f.input);
    if (f.name == "default" || f.name == "d") {
      // Sees undefined values, and returns a kept input borrowed rather than copied.
      CallArgs args = eval_args(f.args);
      if (input.is_undefined() || default_replaces(args, truthy_ref(input))) return Ref::own(default_of(args));
      return input;
    }
    // json.dumps cannot write an undefined value, in any mode.
    if (f.name == "tojson" && input.is_undefined()) fail(ErrorKind::TemplateUndefined, "tojson: " + input.message(), input.pos());
    const Value& v = defined(input);
    // attr() is Python's getattr: a dict's keys are not attributes, so it is undefined, as in Jinja2.
    if (f.name == "attr") return Ref::undefined("'" + type_name(v) + "' object has no attribute", f.pos);
    // Jinja2's first and last of nothing are undefined (`is defined` is false, `default` applies), not none.
    if ((f.name == "first" || f.name == "last") && (v.is_array() || v.is_object() || v.is_string()) && v.empty())
      return Ref::undefined("'" + type_name(v) + "' has no " + f.name + " item", f.pos);
    // Markup in, Markup out: safe marks text, escape escapes only what is not yet marked, forceescape always. The
    // first letter is looked at first: most filters are none of these, and this runs for every filter call.
    char first = f.name[0];
    bool escape = first == 'e' && (f.name == "escape" || f.name == "e");
    if (first == 's' && f.name == "safe") return Ref::marked(made(v.is_string() ? v : Value(py_str(v)), f.pos));
    if (escape && input.is_markup()) return Ref::marked(made(v, f.pos));
    bool markup_out = escape || (first == 'f' && f.name == "forceescape") ||
                      (first == 't' && f.name == "tojson" && !c_->options.plain_tojson);
    Ref out = made(apply_filter(f.name, v, eval_args(f.args), f.pos), f.pos);
    if (markup_out) out.set_markup(true);
    return out;
  }

  // default(value, boolean): a defined input is replaced only when `boolean` is true and the input is false.
  static bool default_replaces(const CallArgs& args, bool input_truthy) {
    const Value* boolean = args.get(1, "boolean");
    return boolean && truthy(*boolean) && !input_truthy;
  }
  static Value default_of(const CallArgs& args) {
    const Value* dflt = args.get(0, "default_value");
    return dflt ? *dflt : Value("");
  }

  Value apply_filter(const std::string& name, const Value& v, const CallArgs& args, Pos p) {
    try {
      if (name == "default" || name == "d") return default_replaces(args, truthy(v)) ? default_of(args) : v;
      if (name == "tojson" && c_->options.plain_tojson) {
        const Value* ind = args.get(0, "indent");
        if (ind && ind->is_number_integer() && (ind->get<long long>() < 0 || ind->get<long long>() > 1000))
          throw BuiltinError{"an indent of " + std::to_string(ind->get<long long>()) + " is not one from 0 to 1000"};
        return plain_json_dumps(v, ind && ind->is_number_integer() ? static_cast<int>(ind->get<long long>()) : -1);
      }
      // The compile-time check names an unknown filter first; this keeps a gap in that check from being a crash.
      auto filter = find_filter(name);
      if (!filter) fail(ErrorKind::TemplateUnknownFilter, "unknown filter '" + name + "'", p);
      return filter(v, args);
    } catch (const BuiltinError& e) {
      fail(e.kind, name + ": " + e.message, p);
    }
  }

  // The functions every template has (Jinja2's globals, and the two transformers adds): defined unless shadowed.
  static bool is_global_function(const Expr& e) {
    if (e.kind != ExprKind::Name) return false;
    const std::string& n = static_cast<const NameExpr&>(e).name;
    return n == "range" || n == "dict" || n == "namespace" || n == "cycler" || n == "joiner" || n == "lipsum" ||
           n == "raise_exception" || n == "strftime_now";
  }

  bool run_test(const TestExpr& t) {
    Ref input = eval(*t.input);
    // Chat templates ask `strftime_now is defined` before calling it (Llama 3.2 prints a fixed date otherwise).
    bool undefined = input.is_undefined() && !is_global_function(*t.input);
    if (t.name == "defined") return !undefined;
    if (t.name == "undefined") return undefined;
    // Jinja2's Undefined is callable (calling it fails), as the globals are.
    if (t.name == "callable") return input.callable_ptr() != nullptr || input.is_undefined();
    if (t.name == "escaped") return input.is_markup();
    if (input.is_undefined()) return test_undefined(t, input);
    const Value& v = defined(input);
    CallArgs args = eval_args(t.args);
    try {
      auto test = find_test(t.name);
      if (!test) fail(ErrorKind::TemplateUnknownTest, "unknown test '" + t.name + "'", t.pos);
      return test(v, args);
    } catch (const BuiltinError& e) {
      fail(e.kind, e.message, t.pos);
    }
  }

  // A test of an undefined value, as Jinja2 answers it: a type test is false in every mode; in a strict template
  // any other test fails, as StrictUndefined does; a lenient one iterates as nothing, is a sequence, equals nothing
  // defined, and fails where the test computes with it.
  bool test_undefined(const TestExpr& t, const Ref& input) {
    static const char* const kTypeTests[] = {"string", "mapping", "none", "number", "integer", "float", "boolean",
                                             "true", "false", "sameas", "escaped"};
    if (!find_test(t.name)) fail(ErrorKind::TemplateUnknownTest, "unknown test '" + t.name + "'", t.pos);
    for (const char* type_test : kTypeTests)
      if (t.name == type_test) return false;
    if (t.name == "sequence" && c_->options.strict_undefined && !input.is_soft()) return false;
    if (c_->options.strict_undefined && !input.is_soft()) fail_undefined(input);
    if (t.name == "iterable" || t.name == "sequence" || t.name == "ne" || t.name == "!=") return true;
    if (t.name == "divisibleby" || t.name == "even" || t.name == "odd" || t.name == "<" || t.name == "<=" ||
        t.name == ">" || t.name == ">=" || t.name == "lt" || t.name == "le" || t.name == "gt" || t.name == "ge" ||
        t.name == "lessthan" || t.name == "greaterthan")
      fail_undefined(input);
    return false;
  }

  Ref unary(const UnaryExpr& u) {
    Ref r = eval(*u.operand);
    if (u.op == "not") return Ref::own(!truthy_ref(r));
    if (r.is_undefined()) fail_undefined(r);
    const Value& v = defined(r);
    if (v.is_number_integer() || v.is_number_unsigned()) {
      try {
        long long x = int_of(v);
        return Ref::own(u.op == "-" ? int_negate(x) : x);
      } catch (const BuiltinError& e) {
        fail(e.kind, e.message, u.pos);
      }
    }
    if (v.is_number()) return Ref::own(u.op == "-" ? -v.get<double>() : v.get<double>());
    if (v.is_boolean()) return Ref::own(u.op == "-" ? -static_cast<long long>(v.get<bool>()) : v.get<bool>());
    fail(ErrorKind::TemplateRender, "bad operand type for unary " + u.op + ": '" + type_name(v) + "'", u.pos);
  }

  static bool is_int(const Value& v) { return v.is_number_integer() || v.is_number_unsigned() || v.is_boolean(); }
  static double as_num(const Value& v) { return v.is_boolean() ? v.get<bool>() : v.get<double>(); }
  long long as_int(const Value& v, Pos p) const {
    try {
      return int_of(v);
    } catch (const BuiltinError& e) {
      fail(e.kind, e.message, p);
    }
  }

  Ref binary(const BinaryExpr& b) {
    Ref lr = eval(*b.left);
    Ref rr = eval(*b.right);
    // Undefined is empty only when printed, iterated or tested: arithmetic on it fails in every mode, as in Jinja2.
    if (b.op.size() != 1 || b.op[0] != '~') {
      if (lr.is_undefined()) fail_undefined(lr);
      if (rr.is_undefined()) fail_undefined(rr);
    }
    const Value& l = defined(lr);
    const Value& r = defined(rr);
    const std::string& op = b.op;
    // Markup + text escapes the text, as Jinja2's Markup does (so does Markup % args, below).
    if (op == "+" && (lr.is_markup() || rr.is_markup()) && l.is_string() && r.is_string())
      return Ref::marked(made((lr.is_markup() ? l.get<std::string>() : html_escaped(l.get<std::string>())) +
                      (rr.is_markup() ? r.get<std::string>() : html_escaped(r.get<std::string>())),
                  b.pos));
    if (op == "~") {
      std::string s;
      append_py_str(s, l);
      append_py_str(s, r);
      return made(std::move(s), b.pos);
    }
    bool nums = (l.is_number() || l.is_boolean()) && (r.is_number() || r.is_boolean());
    if (op == "+") {
      if (l.is_string() && r.is_string()) return made(l.get<std::string>() + r.get<std::string>(), b.pos);
      if (l.is_array() && r.is_array()) {
        if (l.size() + r.size() > c_->options.max_output_bytes)
          fail(ErrorKind::TemplateOutputTooLarge, "a list longer than the output limit", b.pos);
        Value out = l;
        out.insert(out.end(), r.begin(), r.end());
        return Ref::own(std::move(out));
      }
    }
    if (op == "*" && (l.is_string() || l.is_array()) && is_int(r) && !r.is_boolean()) return repeat(l, as_int(r, b.pos), b.pos);
    if (op == "*" && (r.is_string() || r.is_array()) && is_int(l) && !l.is_boolean()) return repeat(r, as_int(l, b.pos), b.pos);
    if (op == "%" && l.is_string()) {  // printf-style formatting, as Python's str % args (the format filter's)
      CallArgs args;
      if (r.is_array()) args.positional.assign(r.begin(), r.end());
      else if (r.is_object()) for (const auto& [k, v] : r.items()) args.keyword.emplace_back(k, v);
      else args.positional.push_back(r);
      if (lr.is_markup()) {  // Markup % args escapes the arguments' text; numbers stay numbers for %d and %f
        auto escaped = [](Value& a) {
          if (a.is_string() || a.is_structured()) a = html_escaped(py_str(a));
        };
        for (Value& a : args.positional) escaped(a);
        for (auto& [k, a] : args.keyword) escaped(a);
      }
      try {
        Ref out = made(find_filter("format")(l, args), b.pos);
        out.set_markup(lr.is_markup());
        return out;
      } catch (const BuiltinError& e) {
        fail(e.kind, e.message, b.pos);
      }
    }
    if (!nums)
      fail(ErrorKind::TemplateRender,
           "unsupported operand types for " + op + ": '" + type_name(l) + "' and '" + type_name(r) + "'", b.pos);
    bool ints = is_int(l) && is_int(r);
    if (op == "/") {
      if (as_num(r) == 0) fail(ErrorKind::TemplateRender, "division by zero", b.pos);
      return Ref::own(as_num(l) / as_num(r));
    }
    if (ints && !(op == "**" && as_int(r, b.pos) < 0)) {
      try {
        return Ref::own(int_arith(op, as_int(l, b.pos), as_int(r, b.pos)));
      } catch (const BuiltinError& e) {
        fail(e.kind, e.message, b.pos);
      }
    }
    double x = as_num(l), y = as_num(r);
    if (op == "+") return Ref::own(x + y);
    if (op == "-") return Ref::own(x - y);
    if (op == "*") return Ref::own(x * y);
    if (op == "**") return Ref::own(std::pow(x, y));
    if (op == "//" || op == "%") {
      if (y == 0) fail(ErrorKind::TemplateRender, "float division or modulo by zero", b.pos);
      double q = std::floor(x / y);
      return Ref::own(op == "//" ? q : x - q * y);
    }
    fail(ErrorKind::TemplateRender, "unknown operator " + op, b.pos);
  }

  Ref repeat(const Value& v, long long n, Pos p) {
    size_t unit = v.is_string() ? v.get_ref<const std::string&>().size() : v.size();
    if (n > 0 && unit > 0 && static_cast<unsigned long long>(n) > c_->options.max_output_bytes / unit)
      fail(ErrorKind::TemplateOutputTooLarge, "repetition exceeds the output limit", p);
    if (v.is_string()) {
      std::string out;
      out.reserve(n > 0 ? unit * static_cast<size_t>(n) : 0);
      for (long long i = 0; i < n; ++i) out += v.get_ref<const std::string&>();
      return Ref::own(std::move(out));
    }
    Value out = Value::array();
    for (long long i = 0; i < n; ++i) out.insert(out.end(), v.begin(), v.end());
    return Ref::own(std::move(out));
  }

  Ref compare(const CompareExpr& c) {
    Ref left = eval(*c.first);
    for (const auto& [op, rhs] : c.rest) {
      Ref right = eval(*rhs);
      const Value& l = defined(left);
      const Value& r = defined(right);
      bool ok;
      try {
        if (op == "==") ok = py_equal(l, r);
        else if (op == "!=") ok = !py_equal(l, r);
        else if (op == "in") ok = value_in(l, r);
        else if (op == "notin") ok = !value_in(l, r);
        else {
          int cmp = py_compare(l, r);
          ok = op == "<" ? cmp < 0 : op == "<=" ? cmp <= 0 : op == ">" ? cmp > 0 : cmp >= 0;
        }
      } catch (const BuiltinError& e) {
        fail(e.kind, e.message, c.pos);
      }
      if (!ok) return Ref::own(false);
      left = std::move(right);
    }
    return Ref::own(true);
  }

  Ref slice(const SliceExpr& s) {
    Ref obj = eval(*s.object);
    const Value& v = defined(obj);
    auto bound = [&](const ExprPtr& e, std::optional<long long> dflt) -> std::optional<long long> {
      if (!e) return dflt;
      Ref r = eval(*e);
      const Value& x = defined(r);
      if (x.is_null()) return dflt;
      if (!is_int(x)) fail(ErrorKind::TemplateRender, "slice indices must be integers", e->pos);
      return as_int(x, e->pos);
    };
    long long step = bound(s.step, 1).value();
    if (step == 0) fail(ErrorKind::TemplateRender, "slice step cannot be zero", s.pos);
    Value chars;
    const Value* seq = &v;
    if (v.is_string()) {
      chars = FilterList(v);
      seq = &chars;
    } else if (!v.is_array()) {
      fail(ErrorKind::TemplateRender, "'" + type_name(v) + "' object is not subscriptable", s.pos);
    }
    long long n = static_cast<long long>(seq->size());
    auto norm = [&](std::optional<long long> x, long long dflt) {
      if (!x) return dflt;
      long long i = *x < 0 ? *x + n : *x;
      if (step > 0) return std::clamp(i, 0LL, n);
      return std::clamp(i, -1LL, n - 1);
    };
    long long start = norm(bound(s.start, std::nullopt), step > 0 ? 0 : n - 1);
    long long stop = norm(bound(s.stop, std::nullopt), step > 0 ? n : -1);
    Value out = Value::array();
    // start and stop lie in [-1, n]; the test before each step keeps i + step from overflowing for a huge step
    for (long long i = start; step > 0 ? i < stop : i > stop;) {
      out.push_back((*seq)[static_cast<size_t>(i)]);
      if (step > 0 ? (stop - i) - step <= 0 : (i - stop) + step <= 0) break;
      i += step;
    }
    if (v.is_string()) {
      std::string str;
      for (const auto& c : out) str += c.get_ref<const std::string&>();
      return Ref::own(std::move(str));
    }
    return Ref::own(std::move(out));
  }

  const Compiled* c_;  // the template being rendered: changes inside includes and imported macros
  Vars vars_;  // a few borrowed pointers, copied: a renderer may be built from a temporary
  std::string& out_;
  std::deque<Frame> frames_;
  int current_ = 0;
  LoopControl loop_control_ = LoopControl::None;  // set by {% break %} or {% continue %} until its loop takes it
  RenderBudget own_budget_;
  RenderBudget* budget_;  // shared with the renderers of imported templates
};

Ref Renderer::invoke(const Callable& c, CallArgs args, Pos pos, const Callable* caller) {
  if (!c.home) {  // a macro of an imported template runs in a renderer of that template
    std::string discard;
    Renderer sub(*c.module->compiled, Vars::of(c.module->context), discard, budget_);
    sub.adopt_module(*c.module);
    Callable local = c;
    local.home = &sub;
    local.module = nullptr;
    return sub.invoke(local, std::move(args), pos, caller);
  }
  if (c.home != this) return c.home->invoke(c, std::move(args), pos, caller);
  tick(pos);
  if (++budget_->call_depth > c_->options.max_call_depth)
    fail(ErrorKind::TemplateCallDepth,
         "macro calls nested deeper than " + std::to_string(c_->options.max_call_depth) + " levels", pos);
  const MacroDef& def = *c.def;
  if (!def.catch_varargs && args.positional.size() > def.params.size())
    fail(ErrorKind::TemplateRender,
         "macro '" + def.name + "' takes not more than " + std::to_string(def.params.size()) + " argument(s)", pos);
  for (const auto& keyword : args.keyword) {
    const std::string& name = keyword.first;
    bool known = std::any_of(def.params.begin() + static_cast<long>(std::min(args.positional.size(), def.params.size())),
                             def.params.end(), [&name](const auto& param) { return param.first == name; });
    if (!known && !def.catch_kwargs)
      fail(ErrorKind::TemplateRender, "macro '" + def.name + "' takes no keyword argument '" + name + "'", pos);
  }
  const Compiled* saved_c = c_;
  c_ = c.owner;
  int saved_frame = push_frame(c.scope);
  size_t next_positional = 0;
  for (const auto& [name, dflt] : def.params) {
    const Value* given = nullptr;
    if (next_positional < args.positional.size()) {
      given = &args.positional[next_positional++];
    } else {
      for (auto it = args.keyword.begin(); it != args.keyword.end(); ++it)
        if (it->first == name) {
          assign(name, std::move(it->second));
          args.keyword.erase(it);
          given = &current().vars.back().owned;
          break;
        }
      if (given) continue;
    }
    if (given) {
      assign(name, *given);
    } else if (dflt) {
      Ref r = eval(*dflt);  // defaults see the parameters before them, as in Jinja2
      assign(name, defined_value(r));
    } else {
      assign(name, Value()).undefined = true;  // not given, no default: undefined, as in Jinja2
    }
  }
  Value varargs = Value::array();
  for (size_t i = next_positional; i < args.positional.size(); ++i) varargs.push_back(std::move(args.positional[i]));
  Value kwargs = Value::object();
  for (auto& [k, v] : args.keyword) kwargs[k] = std::move(v);
  assign("varargs", std::move(varargs));
  assign("kwargs", std::move(kwargs));
  if (caller) assign("caller", Value()).callable = *caller;
  std::string result;
  result.swap(out_);
  try {
    body(def.body);
  } catch (...) {
    result.swap(out_);
    pop_frame(saved_frame);
    c_ = saved_c;
    --budget_->call_depth;
    throw;
  }
  result.swap(out_);
  pop_frame(saved_frame);
  c_ = saved_c;
  --budget_->call_depth;
  return Ref::own(std::move(result));
}


}  // namespace

Value evaluate_compiled(const Compiled& c, const Vars& vars) {
  std::string discard;
  Renderer r(c, vars, discard);
  // A dict the template made with keys that are not text leaves it with text keys, as JSON has them.
  Value v = r.evaluate(*static_cast<const OutputNode&>(*c.body.at(0)).expr);
  make_keys_text(v);
  return v;
}

void render_compiled(const Compiled& c, const Vars& vars, std::string& out) { Renderer(c, vars, out).body(c.body); }

}  // namespace engine::tmpl
