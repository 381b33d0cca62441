#pragma once
// The compiled form of a template: a tree built once by the parser and walked by the renderer on every render.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/value.h"

namespace engine::tmpl {

struct Pos {
  int line = 0;
  int col = 0;
};

// ---- expressions ----

enum class ExprKind { Literal, Name, Attr, Item, Slice, Call, Filter, Test, Unary, Binary, Compare, And, Or,
                      Cond, List, Dict };

struct Expr {
  explicit Expr(ExprKind k, Pos p) : kind(k), pos(p) {}
  virtual ~Expr() = default;
  ExprKind kind;
  Pos pos;
};
using ExprPtr = std::unique_ptr<Expr>;

struct Args {
  std::vector<ExprPtr> positional;
  std::vector<std::pair<std::string, ExprPtr>> keyword;
  ExprPtr star;         // f(*items): more positional arguments
  ExprPtr double_star;  // f(**mapping): more keyword arguments
};

struct LiteralExpr : Expr {
  LiteralExpr(Value v, Pos p) : Expr(ExprKind::Literal, p), value(std::move(v)) {}
  Value value;
};
struct NameExpr : Expr {
  NameExpr(std::string n, Pos p) : Expr(ExprKind::Name, p), name(std::move(n)) {}
  std::string name;
};
struct AttrExpr : Expr {  // obj.name
  AttrExpr(ExprPtr o, std::string n, Pos p) : Expr(ExprKind::Attr, p), object(std::move(o)), name(std::move(n)) {}
  ExprPtr object;
  std::string name;
};
struct ItemExpr : Expr {  // obj[index]
  ItemExpr(ExprPtr o, ExprPtr i, Pos p) : Expr(ExprKind::Item, p), object(std::move(o)), index(std::move(i)) {}
  ExprPtr object, index;
};
struct SliceExpr : Expr {  // obj[start:stop:step], each part optional
  SliceExpr(Pos p) : Expr(ExprKind::Slice, p) {}
  ExprPtr object, start, stop, step;
};
struct CallExpr : Expr {  // callee(args): globals such as range(), or methods such as d.items()
  CallExpr(ExprPtr c, Args a, Pos p) : Expr(ExprKind::Call, p), callee(std::move(c)), args(std::move(a)) {}
  ExprPtr callee;
  Args args;
};
struct FilterExpr : Expr {  // input | name(args)
  FilterExpr(ExprPtr in, std::string n, Args a, Pos p)
      : Expr(ExprKind::Filter, p), input(std::move(in)), name(std::move(n)), args(std::move(a)) {}
  ExprPtr input;
  std::string name;
  Args args;
};
struct TestExpr : Expr {  // input is [not] name(args)
  TestExpr(ExprPtr in, std::string n, Args a, bool neg, Pos p)
      : Expr(ExprKind::Test, p), input(std::move(in)), name(std::move(n)), args(std::move(a)), negated(neg) {}
  ExprPtr input;
  std::string name;
  Args args;
  bool negated;
};
struct UnaryExpr : Expr {  // op is "not", "-", "+"
  UnaryExpr(std::string o, ExprPtr e, Pos p) : Expr(ExprKind::Unary, p), op(std::move(o)), operand(std::move(e)) {}
  std::string op;
  ExprPtr operand;
};
struct BinaryExpr : Expr {  // + - * / // % ** ~
  BinaryExpr(std::string o, ExprPtr l, ExprPtr r, Pos p)
      : Expr(ExprKind::Binary, p), op(std::move(o)), left(std::move(l)), right(std::move(r)) {}
  std::string op;
  ExprPtr left, right;
};
struct CompareExpr : Expr {  // a < b <= c: chained like Python
  CompareExpr(ExprPtr first, Pos p) : Expr(ExprKind::Compare, p), first(std::move(first)) {}
  ExprPtr first;
  std::vector<std::pair<std::string, ExprPtr>> rest;  // op is one of == != < <= > >= in notin
};
struct LogicExpr : Expr {  // and / or, short-circuit
  LogicExpr(ExprKind k, ExprPtr l, ExprPtr r, Pos p) : Expr(k, p), left(std::move(l)), right(std::move(r)) {}
  ExprPtr left, right;
};
struct CondExpr : Expr {  // then if cond else otherwise
  CondExpr(Pos p) : Expr(ExprKind::Cond, p) {}
  ExprPtr then, cond, otherwise;  // otherwise may be null: undefined, as in Jinja2
};
struct ListExpr : Expr {  // [a, b] and tuples (a, b)
  ListExpr(Pos p) : Expr(ExprKind::List, p) {}
  std::vector<ExprPtr> items;
};
struct DictExpr : Expr {
  DictExpr(Pos p) : Expr(ExprKind::Dict, p) {}
  std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

// ---- statements ----

enum class NodeKind { Text, Output, If, For, Set, SetBlock, Macro, CallBlock, FilterBlock, Include, Import, With,
                      Break, Continue };

struct Node {
  explicit Node(NodeKind k, Pos p) : kind(k), pos(p) {}
  virtual ~Node() = default;
  NodeKind kind;
  Pos pos;
};
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

struct TextNode : Node {
  TextNode(std::string t, Pos p) : Node(NodeKind::Text, p), text(std::move(t)) {}
  std::string text;
};
struct OutputNode : Node {
  OutputNode(ExprPtr e, Pos p) : Node(NodeKind::Output, p), expr(std::move(e)) {}
  ExprPtr expr;
};
struct IfNode : Node {
  IfNode(Pos p) : Node(NodeKind::If, p) {}
  std::vector<std::pair<ExprPtr, Body>> branches;  // if and each elif
  Body otherwise;
};
// A loop's targets when they nest, `for a, (b, c) in ...`: a leaf has a name, a group its parts.
struct TargetPattern {
  std::string name;
  std::vector<TargetPattern> parts;
};
struct ForNode : Node {
  ForNode(Pos p) : Node(NodeKind::For, p) {}
  std::vector<std::string> targets;  // one name, or several for tuple unpacking: every name, in order
  TargetPattern pattern;             // with parts only when the targets nest
  ExprPtr iterable;
  ExprPtr filter;  // {% for x in xs if cond %}
  Body body;
  Body otherwise;  // {% else %}: runs when nothing was iterated
  bool recursive = false;  // {% for ... recursive %}: the body may call loop(items) for a deeper level
};
struct SetNode : Node {  // {% set a = expr %}, {% set a, b = expr %} or {% set ns.attr = expr %}
  SetNode(Pos p) : Node(NodeKind::Set, p) {}
  std::vector<std::string> targets;
  std::string attribute;  // set when the target is ns.attribute (a namespace)
  ExprPtr value;
};
struct SetBlockNode : Node {  // {% set a %}...{% endset %}, or {% set a | filter %}...{% endset %}
  SetBlockNode(Pos p) : Node(NodeKind::SetBlock, p) {}
  std::string target;
  std::vector<std::pair<std::string, Args>> filters;
  Body body;
};

struct WithNode : Node {  // {% with a = 1, b = x %}...{% endwith %}: a scope of its own
  WithNode(Pos p) : Node(NodeKind::With, p) {}
  std::vector<std::pair<std::string, ExprPtr>> assignments;  // evaluated in the enclosing scope, then bound
  Body body;
};

struct LoopControlNode : Node {  // {% break %} and {% continue %}, inside a for loop's body
  LoopControlNode(NodeKind k, Pos p) : Node(k, p) {}
};

// What macros and call blocks share: parameters with optional defaults, and a body to render.
struct MacroDef {
  std::string name;
  std::vector<std::pair<std::string, ExprPtr>> params;  // default is null when the parameter has none
  Body body;
  // As Jinja2: a macro whose body reads `varargs` (`kwargs`) takes extra positional (keyword) arguments; any other
  // refuses them.
  bool catch_varargs = false;
  bool catch_kwargs = false;
};

struct MacroNode : Node {  // {% macro name(a, b=1) %}...{% endmacro %}
  MacroNode(Pos p) : Node(NodeKind::Macro, p) {}
  MacroDef def;
};

struct CallBlockNode : Node {  // {% call(args) macro(...) %}...{% endcall %}: the body is `caller`
  CallBlockNode(Pos p) : Node(NodeKind::CallBlock, p) {}
  ExprPtr call;  // a CallExpr
  MacroDef caller;
};

struct FilterBlockNode : Node {  // {% filter upper | trim %}...{% endfilter %}
  FilterBlockNode(Pos p) : Node(NodeKind::FilterBlock, p) {}
  std::vector<std::pair<std::string, Args>> filters;
  Body body;
};

struct Compiled;

struct IncludeNode : Node {  // {% include 'file' [ignore missing] [with|without context] %}
  IncludeNode(Pos p) : Node(NodeKind::Include, p) {}
  std::string name;
  bool ignore_missing = false;
  bool with_context = true;
  std::shared_ptr<const Compiled> target;  // compiled with the parent; null when missing and ignored
};

struct ImportNode : Node {  // {% import 'f' as m %} or {% from 'f' import a, b as c %}
  ImportNode(Pos p) : Node(NodeKind::Import, p) {}
  std::string name;
  std::string alias;                                      // import ... as alias
  std::vector<std::pair<std::string, std::string>> names;  // from ... import name as bound
  bool with_context = false;
  std::shared_ptr<const Compiled> target;
};

}  // namespace engine::tmpl
