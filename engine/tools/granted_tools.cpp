#include "engine/tools/granted_tools.h"

#include <algorithm>
#include <cctype>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"
#include "engine/tools/document_search.h"
#include "engine/tools/html_text.h"

namespace engine::tools {
namespace {

// What a call of one of these tools needs, shared by the tool and its instances (which may outlive it).
struct Setup {
  std::string name;
  Capabilities capabilities;
  std::chrono::milliseconds timeout;
  schema::PatternCompiler patterns;
  std::shared_ptr<const DocumentSearch> documents;  // search_docs
};

// `key`: the call's idempotency key in a journaled run, else empty.
using Run = Value (*)(const Setup&, const Value& args, const Cancel* cancel, std::string_view key);

class GrantedInstance : public ToolInstance {
 public:
  GrantedInstance(std::shared_ptr<const Setup> setup, Run run, const Cancel* cancel)
      : setup_(std::move(setup)), run_(run), cancel_(cancel) {}
  ToolResult invoke(const Value& input) override { return invoke(input, CallContext{}); }
  ToolResult invoke(const Value& input, const CallContext& call) override {
    try {
      return ToolResult::success(run_(*setup_, input, cancel_, call.idempotency_key));
    } catch (const Error& e) {
      ErrorKind kind = family_of(e.kind()) == "tool" ? e.kind() : ErrorKind::ToolError;
      return ToolResult::failure(kind, "tool '" + setup_->name + "' failed: " + e.message());
    }
  }

 private:
  std::shared_ptr<const Setup> setup_;
  Run run_;
  const Cancel* cancel_;
};

class GrantedTool : public Tool {
 public:
  GrantedTool(std::string builtin, std::string name, std::string description, Value parameters,
              const schema::SchemaOptions& options, Run run, std::shared_ptr<const Setup> setup)
      : Tool(std::move(name), std::move(description), std::move(parameters), options),
        builtin_(std::move(builtin)), run_(run), setup_(std::move(setup)) {}
  std::string kind() const override { return "builtin:" + builtin_; }
  // Reading tools change nothing; write_file does; http_request does when its grants allow a method that writes.
  Effect effect() const override {
    if (builtin_ == "write_file") return Effect::Once;
    if (builtin_ == "http_request") return setup_->capabilities.can_write() ? Effect::Once : Effect::Read;
    return Effect::Read;
  }
  std::unique_ptr<ToolInstance> instantiate(const ToolContext& context) const override {
    return std::make_unique<GrantedInstance>(setup_, run_, context.cancel);
  }

 private:
  std::string builtin_;
  Run run_;
  std::shared_ptr<const Setup> setup_;
};

SteadyTime deadline_of(const Setup& s) { return std::chrono::steady_clock::now() + s.timeout; }

const std::string& string_arg(const Value& args, const char* key) {
  static const std::string empty;
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get_ref<const std::string&>() : empty;
}

int64_t integer_arg(const Value& args, const char* key, int64_t fallback) {
  auto it = args.find(key);
  return it != args.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

bool utf8_valid(std::string_view s) { return utf8::find_invalid(s) == std::string_view::npos; }

// Text a model can read: invalid UTF-8 replaced; a NUL byte early on marks a file that is not text.
std::string readable(std::string text, const std::string& what) {
  if (text.find('\0') < 8192) throw Error(ErrorKind::ToolError, what + " is not a text file");
  return utf8_valid(text) ? std::move(text) : utf8::replace_invalid(text);
}

// The body for the model: JSON as a value when it is JSON, else text.
Value body_value(const HttpReply& reply) {
  for (const auto& [name, value] : reply.headers)
    if (name == "content-type" && value.find("json") != std::string::npos) {
      Value v = parse_json(reply.body);
      if (!v.is_discarded()) return v;
    }
  return readable(reply.body, "the response");
}

std::string percent_encoded(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

Value http_request(const Setup& s, const Value& args, const Cancel* cancel, std::string_view key) {
  HttpCall call;
  call.method = string_arg(args, "method").empty() ? "GET" : string_arg(args, "method");
  call.url = s.capabilities.http->resolve(string_arg(args, "path"));
  if (auto q = args.find("query"); q != args.end() && q->is_object() && !q->empty()) {
    std::string query;
    for (const auto& [key, value] : q->items())
      query += (query.empty() ? "" : "&") + percent_encoded(key) + "=" +
               percent_encoded(value.is_string() ? value.get<std::string>() : to_json_text(value));
    call.url += (call.url.find('?') == std::string::npos ? "?" : "&") + query;
  }
  if (auto h = args.find("headers"); h != args.end() && h->is_object())
    for (const auto& [name, value] : h->items())
      call.headers.emplace_back(name, value.is_string() ? value.get<std::string>() : to_json_text(value));
  if (auto b = args.find("body"); b != args.end() && !b->is_null()) {
    if (b->is_string()) {
      call.body = b->get<std::string>();
    } else {
      call.body = to_json_text(*b);
      call.headers.emplace_back("Content-Type", "application/json");
    }
  }
  add_idempotency_key(call, key);
  HttpReply reply = s.capabilities.http->request(std::move(call), deadline_of(s), cancel);
  return Value{{"status", reply.status}, {"body", body_value(reply)}};
}

// `text` from byte `start`, at most `max` bytes, both moved back to a character's start.
std::string slice(const std::string& text, size_t start, size_t max, size_t& next) {
  auto back_to_char = [&](size_t i) { return utf8::cut(text, i); };
  start = back_to_char(std::min(start, text.size()));
  size_t end = back_to_char(std::min(text.size(), start + max));
  next = end;
  return text.substr(start, end - start);
}

Value fetch(const Setup& s, const Value& args, const Cancel* cancel, std::string_view) {
  std::string url = s.capabilities.http->resolve(string_arg(args, "url"));
  HttpReply reply = s.capabilities.http->request(HttpCall{"GET", url, {{"Accept", "text/html, text/plain, */*"}}},
                                                 deadline_of(s), cancel);
  if (reply.status < 200 || reply.status > 299)
    throw Error(ErrorKind::ToolError, "GET " + reply.url + " answered HTTP " + std::to_string(reply.status));
  std::string type;
  for (const auto& [name, value] : reply.headers)
    if (name == "content-type") type = value;
  std::string text = looks_like_html(type, reply.body) ? html_to_text(reply.body) : readable(reply.body, "the page");
  if (!utf8_valid(text)) text = utf8::replace_invalid(text);
  size_t start = static_cast<size_t>(std::max<int64_t>(0, integer_arg(args, "start_index", 0)));
  size_t max = static_cast<size_t>(std::max<int64_t>(1, integer_arg(args, "max_length", 20'000)));
  size_t next = 0;
  std::string out = slice(text, start, max, next);
  if (next < text.size())
    out += "\n\n[" + std::to_string(text.size() - next) + " more bytes: call again with start_index " +
           std::to_string(next) + "]";
  return out;
}

Value read_text_file(const Setup& s, const Value& args, const Cancel*, std::string_view) {
  const std::string& path = string_arg(args, "path");
  return readable(s.capabilities.files->read(path), quote_excerpt(path, 120));
}

Value write_text_file(const Setup& s, const Value& args, const Cancel*, std::string_view) {
  const std::string& path = string_arg(args, "path");
  const std::string& content = string_arg(args, "content");
  s.capabilities.files->write(path, content);
  return "wrote " + std::to_string(content.size()) + " bytes to " + path;
}

Value list_files(const Setup& s, const Value& args, const Cancel*, std::string_view) {
  bool truncated = false;
  auto entries = s.capabilities.files->list(string_arg(args, "path"), &truncated);
  Value out = Value::array();
  for (const auto& e : entries) {
    Value entry{{"name", e.name}, {"type", e.type}};
    if (e.type == "file") entry["size"] = e.size;
    out.push_back(std::move(entry));
  }
  if (truncated) out.push_back("... more entries than " + std::to_string(limits::kListEntries) + " not shown");
  return out;
}


Value search_files(const Setup& s, const Value& args, const Cancel* cancel, std::string_view) {
  const std::string& pattern = string_arg(args, "pattern");
  schema::Matcher matches;
  try {
    matches = s.patterns(pattern);
  } catch (const Error& e) {
    throw Error(ErrorKind::ToolError, "the pattern is not a regex the engine takes: " + e.message());
  }
  size_t max_results = static_cast<size_t>(std::clamp<int64_t>(integer_arg(args, "max_results", 50), 1, 500));
  SteadyTime deadline = deadline_of(s);
  std::string out;
  size_t found = 0, bytes = 0;
  bool stopped = false;
  std::string text;
  s.capabilities.files->walk(string_arg(args, "path"), limits::kSearchFiles, [&](const FileEntry& file, int fd) {
    if ((cancel && cancel->stopped()) || std::chrono::steady_clock::now() > deadline)
      throw Error(ErrorKind::ToolTimeout, "the search took longer than the tool's time");
    size_t max = s.capabilities.files->grants().front().max_file_bytes;
    FileAccess::read_open(fd, max, text);
    bytes += text.size();
    if (text.find('\0') < 8192) return bytes < limits::kSearchBytes;
    size_t line_no = 0;
    for (size_t start = 0; start < text.size();) {
      size_t end = std::min(text.find('\n', start), text.size());
      std::string_view line(text.data() + start, end - start);
      ++line_no;
      bool hit = false;
      try {
        hit = matches(line);
      } catch (const Error& e) {
        throw Error(ErrorKind::ToolError, "the pattern is too costly to match (" + file.name + ":" + std::to_string(line_no) +
                                      "): " + e.message());
      }
      if (hit) {
        std::string shown(line.substr(0, limits::kMatchLineBytes));
        if (!utf8_valid(shown)) shown = utf8::replace_invalid(shown);
        out += file.name + ":" + std::to_string(line_no) + ": " + shown + (line.size() > limits::kMatchLineBytes ? "..." : "") + "\n";
        if (++found == max_results) {
          stopped = true;
          return false;
        }
      }
      start = end + 1;
    }
    return bytes < limits::kSearchBytes;
  });
  if (found == 0) return "no line matches " + quote_excerpt(pattern, 100);
  if (stopped) out += "[stopped at " + std::to_string(max_results) + " matches]";
  else if (!out.empty()) out.pop_back();
  return out;
}

Value search_docs(const Setup& s, const Value& args, const Cancel*, std::string_view) {
  const std::string& query = string_arg(args, "query");
  size_t limit = static_cast<size_t>(std::clamp<int64_t>(integer_arg(args, "limit", 5), 1, 20));
  std::vector<store::DocumentHit> hits;
  try {
    hits = s.documents->search(query.substr(0, 4096), limit);
  } catch (const Error& e) {
    throw Error(ErrorKind::ToolError, e.message());
  }
  if (hits.empty()) return "no document matches " + quote_excerpt(query, 100);
  std::string out;
  for (const auto& hit : hits) {
    std::string snippet = hit.snippet;
    if (utf8::find_invalid(snippet) != std::string::npos) snippet = utf8::replace_invalid(snippet);
    out += (out.empty() ? "" : "\n") + hit.path + ":" + std::to_string(hit.line) + ": " + snippet;
  }
  return out;
}

std::string granted_list(const Capabilities& c) {
  std::vector<std::string> parts;
  if (c.http)
    for (const auto& g : c.http->grants()) parts.push_back(join(g.methods, ", ") + " " + g.written);
  if (c.files)
    for (const auto& g : c.files->grants()) parts.push_back(g.written + (g.write ? " (read and write)" : ""));
  return join(parts, "; ");
}

Value http_parameters(const Capabilities& c) {
  std::vector<std::string> methods;
  for (const auto& g : c.http->grants())
    for (const auto& m : g.methods)
      if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
  return Value{{"type", "object"},
               {"properties",
                {{"method", {{"type", "string"}, {"enum", methods}, {"description", "The HTTP method (default GET)."}}},
                 {"path", {{"type", "string"}, {"description", "A path under " + c.http->grants().front().written +
                                                                   " (tickets/42), or a full URL under a granted prefix."}}},
                 {"query", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}, {"description", "Query parameters."}}},
                 {"headers", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}},
                 {"body", {{"description", "The request's body: JSON (sent as application/json) or text."}}}}},
               {"required", {"path"}},
               {"additionalProperties", false}};
}

Value path_parameters(const char* what, bool required, Value more = Value::object()) {
  Value props{{"path", {{"type", "string"}, {"description", what}}}};
  for (auto& [k, v] : more.items()) props[k] = v;
  Value out{{"type", "object"}, {"properties", std::move(props)}, {"additionalProperties", false}};
  Value req = Value::array();
  if (required) req.push_back("path");
  for (const auto& [k, v] : more.items())
    if (k != "max_results") req.push_back(k);
  if (!req.empty()) out["required"] = std::move(req);
  return out;
}

struct GrantedBuiltin {
  const char* name;
  const char* needs;  // "http" or "files"
  const char* description;
  Run run;
};

const GrantedBuiltin kGranted[] = {
    {"http_request", "http", "Sends an HTTP request to an API and returns its status and body.", http_request},
    {"fetch", "http", "Fetches a web page and returns it as readable text.", fetch},
    {"read_file", "files", "Reads a text file.", read_text_file},
    {"write_file", "files", "Writes a text file, replacing it whole (folders are made as needed).", write_text_file},
    {"list_files", "files", "Lists a folder's files and folders.", list_files},
    {"search_files", "files", "Searches files for lines matching a regular expression, as grep does.", search_files},
    {"search_docs", "files",
     "Searches the documents for passages about a question or some words, best first, each with its file and line.",
     search_docs},
};

Value parameters_of(const std::string& builtin, const Capabilities& c) {
  if (builtin == "http_request") return http_parameters(c);
  if (builtin == "fetch")
    return Value{{"type", "object"},
                 {"properties",
                  {{"url", {{"type", "string"}, {"description", "The page's URL."}}},
                   {"max_length", {{"type", "integer"}, {"minimum", 100}, {"maximum", 1000000}, {"description", "At most this many bytes of text (default 20000)."}}},
                   {"start_index", {{"type", "integer"}, {"minimum", 0}, {"description", "Start here, to read on where an earlier call stopped (default 0)."}}}}},
                 {"required", {"url"}},
                 {"additionalProperties", false}};
  if (builtin == "search_docs")
    return Value{{"type", "object"},
                 {"properties",
                  {{"query", {{"type", "string"}, {"description", "Words to look for; \"a phrase\" in quotes is kept together."}}},
                   {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 20}, {"description", "At most this many passages (default 5)."}}}}},
                 {"required", {"query"}},
                 {"additionalProperties", false}};
  if (builtin == "read_file") return path_parameters("The file's path, relative to the granted folder.", true);
  if (builtin == "write_file")
    return path_parameters("The file's path, relative to the granted folder.", true,
                           Value{{"content", {{"type", "string"}, {"description", "The file's new text."}}}});
  if (builtin == "list_files") return path_parameters("The folder's path, relative to the granted folder (default: the folder itself).", false);
  return path_parameters("The folder to search, relative to the granted folder (default: all of it).", false,
                         Value{{"pattern", {{"type", "string"}, {"description", "A regular expression (PCRE, Python's syntax too)."}}},
                               {"max_results", {{"type", "integer"}, {"minimum", 1}, {"maximum", 500}, {"description", "At most this many matching lines (default 50)."}}}});
}

}  // namespace

std::shared_ptr<const Tool> make_granted_tool(const std::string& builtin, GrantedToolOptions o) {
  const GrantedBuiltin* b = nullptr;
  for (const auto& each : kGranted)
    if (builtin == each.name) b = &each;
  if (!b) return nullptr;
  bool http = std::string(b->needs) == "http";
  if ((http && !o.capabilities.http) || (!http && !o.capabilities.files))
    throw Error(ErrorKind::SpecMissingGrant, "builtin '" + builtin + "' needs allow: " + b->needs + ": beside it (" +
                                          (http ? "the URL prefixes it may reach" : "the folders it may read") + ")");
  std::string name = o.name.empty() ? builtin : o.name;
  std::string description =
      o.description.empty() ? std::string(b->description) + " Granted: " + granted_list(o.capabilities) + "." : o.description;
  std::shared_ptr<const DocumentSearch> documents;
  if (builtin == "search_docs") {
    if (o.capabilities.files->grants().size() != 1)
      throw Error(ErrorKind::SpecConflict, "builtin 'search_docs' indexes one folder: give its allow: files: one root");
    documents = std::make_shared<const KeywordSearch>(o.capabilities.files,
                                                      o.index_file.empty() ? ":memory:" : o.index_file, o.capabilities.io);
  }
  auto setup = std::make_shared<const Setup>(Setup{name, o.capabilities, o.timeout, o.schema_options.patterns, std::move(documents)});
  return std::make_shared<GrantedTool>(builtin, std::move(name), std::move(description), parameters_of(builtin, o.capabilities),
                                       o.schema_options, b->run, std::move(setup));
}

const std::vector<std::string>& granted_tool_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& b : kGranted) v.push_back(b.name);
    return v;
  }();
  return names;
}

}  // namespace engine::tools
