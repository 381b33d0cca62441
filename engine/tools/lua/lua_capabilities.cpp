#include "engine/tools/lua/lua_capabilities.h"

#include <lua.hpp>

#include <strings.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/tools/capabilities.h"
#include "engine/tools/lua/lua_json.h"
#include "engine/tools/lua/lua_sandbox.h"

namespace engine::tools::lua {
namespace {

// An Error from a capability, kept until its catch block is left: a Lua error raised inside one would unwind
// through it (Lua built as C++ throws).
struct Failure {
  std::string message;
  bool timed_out = false;
};

// Raises the failure as the script's error, or the time limit's when the call's time ran out while it waited (a
// shorter timeout the script gave is its own error, which it may catch), or the run's stop when the run stopped
// meanwhile (Ctrl-C, its deadline): neither of those two can be caught.
[[noreturn]] void raise(lua_State* L, const char* function, const Failure& f) {
  LuaSandbox& sandbox = sandbox_of(L);
  if (const Cancel* cancel = sandbox.context().cancel; cancel && cancel->stopped()) sandbox.fail_stopped(L);
  if (f.timed_out && std::chrono::steady_clock::now() + std::chrono::milliseconds(50) >= sandbox.deadline())
    sandbox.fail_timeout(L);
  luaL_error(L, "%s: %s", function, f.message.c_str());
  std::abort();  // luaL_error does not return
}

const Capabilities* granted(lua_State* L) { return sandbox_of(L).context().capabilities; }

std::string string_field(lua_State* L, int table, const char* key, const char* function) {
  int t = lua_getfield(L, table, key);
  std::string out;
  if (t == LUA_TSTRING) {
    size_t n = 0;
    const char* s = lua_tolstring(L, -1, &n);
    out.assign(s, n);
  } else if (t != LUA_TNIL) {
    luaL_error(L, "%s: '%s' must be a string, not a %s", function, key, lua_typename(L, t));
  }
  lua_pop(L, 1);
  return out;
}

// engine.http.request{method=, url=, headers=, body=, json=, timeout=} -> {status=, headers=, body=, json=}
int http_request(lua_State* L) {
  const char* fn = "engine.http.request";
  luaL_checktype(L, 1, LUA_TTABLE);
  HttpCall call;
  call.url = string_field(L, 1, "url", fn);
  if (call.url.empty()) return luaL_error(L, "%s: 'url' is required", fn);
  call.method = string_field(L, 1, "method", fn);
  call.body = string_field(L, 1, "body", fn);
  bool json_body = false;
  if (lua_getfield(L, 1, "json") != LUA_TNIL) {
    if (!call.body.empty()) return luaL_error(L, "%s: give 'body' or 'json', not both", fn);
    std::optional<std::string> bad;
    try {
      call.body = to_json_text(to_value(L, -1));
    } catch (const Error& e) {
      bad = e.message();
    }
    if (bad) return luaL_error(L, "%s: 'json' is not JSON: %s", fn, bad->c_str());
    json_body = true;
  }
  lua_pop(L, 1);
  if (call.method.empty()) call.method = call.body.empty() && !json_body ? "GET" : "POST";
  if (lua_getfield(L, 1, "headers") != LUA_TNIL) {
    if (!lua_istable(L, -1)) return luaL_error(L, "%s: 'headers' must be a table of names to strings", fn);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
        return luaL_error(L, "%s: 'headers' must be a table of names to strings", fn);
      call.headers.emplace_back(lua_tostring(L, -2), std::string(lua_tostring(L, -1), lua_rawlen(L, -1)));
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  if (json_body) {
    bool typed = false;
    for (const auto& [name, value] : call.headers) typed = typed || strcasecmp(name.c_str(), "content-type") == 0;
    if (!typed) call.headers.emplace_back("Content-Type", "application/json");
  }
  if (lua_getfield(L, 1, "timeout") != LUA_TNIL) {
    lua_Number seconds = lua_tonumber(L, -1);
    if (!lua_isnumber(L, -1) || !(seconds > 0) || !std::isfinite(seconds))
      return luaL_error(L, "%s: 'timeout' must be a positive number of seconds", fn);
    call.timeout = std::chrono::milliseconds(static_cast<int64_t>(std::min<lua_Number>(seconds, 86400) * 1000 + 0.5));
  }
  lua_pop(L, 1);

  const Capabilities* caps = granted(L);
  if (!caps || !caps->http)
    return luaL_error(L, "%s: this tool has no http grant (give it one with allow: http: in the workflow)", fn);
  LuaSandbox& sandbox = sandbox_of(L);
  add_idempotency_key(call, sandbox.context().call_id);
  std::optional<Failure> failure;
  HttpReply reply;
  try {
    reply = caps->http->request(std::move(call), sandbox.deadline(), sandbox.context().cancel);
  } catch (const Error& e) {
    failure = Failure{e.message(), e.kind() == ErrorKind::ToolTimeout};
  }
  if (failure) raise(L, fn, *failure);

  lua_createtable(L, 0, 4);
  lua_pushinteger(L, static_cast<lua_Integer>(reply.status));
  lua_setfield(L, -2, "status");
  lua_newtable(L);
  for (const auto& [name, value] : reply.headers) {
    if (lua_getfield(L, -1, name.c_str()) == LUA_TSTRING) {  // a repeated header: its values joined, as HTTP allows
      lua_pushliteral(L, ", ");
      lua_pushlstring(L, value.data(), value.size());
      lua_concat(L, 3);
    } else {
      lua_pop(L, 1);
      lua_pushlstring(L, value.data(), value.size());
    }
    lua_setfield(L, -2, name.c_str());
  }
  lua_setfield(L, -2, "headers");
  lua_pushlstring(L, reply.body.data(), reply.body.size());
  lua_setfield(L, -2, "body");
  const std::string* type = nullptr;
  for (const auto& [name, value] : reply.headers)
    if (name == "content-type") type = &value;
  if (type && type->find("json") != std::string::npos) {
    Value v = parse_json(reply.body);
    if (!v.is_discarded()) {
      push_value(L, v);
      lua_setfield(L, -2, "json");
    }
  }
  return 1;
}

const FileAccess& files_of(lua_State* L, const char* fn) {
  const Capabilities* caps = granted(L);
  if (!caps || !caps->files)
    luaL_error(L, "%s: this tool has no files grant (give it one with allow: files: in the workflow)", fn);
  return *caps->files;
}

std::string path_arg(lua_State* L, int index) {
  size_t n = 0;
  const char* s = luaL_checklstring(L, index, &n);
  return std::string(s, n);
}

void push_entry(lua_State* L, const FileEntry& e) {
  lua_createtable(L, 0, 4);
  lua_pushlstring(L, e.name.data(), e.name.size());
  lua_setfield(L, -2, "name");
  lua_pushstring(L, e.type.c_str());
  lua_setfield(L, -2, "type");
  lua_pushinteger(L, static_cast<lua_Integer>(e.size));
  lua_setfield(L, -2, "size");
  lua_pushinteger(L, static_cast<lua_Integer>(e.modified));
  lua_setfield(L, -2, "modified");
}

int fs_read(lua_State* L) {
  const char* fn = "engine.fs.read";
  std::string path = path_arg(L, 1);
  const FileAccess& files = files_of(L, fn);
  std::optional<Failure> failure;
  std::string text;
  try {
    text = files.read(path);
  } catch (const Error& e) {
    failure = Failure{e.message()};
  }
  if (failure) raise(L, fn, *failure);
  lua_pushlstring(L, text.data(), text.size());
  return 1;
}

int fs_write(lua_State* L) {
  const char* fn = "engine.fs.write";
  std::string path = path_arg(L, 1);
  size_t n = 0;
  const char* text = luaL_checklstring(L, 2, &n);
  const FileAccess& files = files_of(L, fn);
  std::optional<Failure> failure;
  try {
    files.write(path, std::string_view(text, n));
  } catch (const Error& e) {
    failure = Failure{e.message()};
  }
  if (failure) raise(L, fn, *failure);
  lua_pushboolean(L, 1);
  return 1;
}

int fs_list(lua_State* L) {
  const char* fn = "engine.fs.list";
  std::string path = lua_isnoneornil(L, 1) ? "" : path_arg(L, 1);
  const FileAccess& files = files_of(L, fn);
  std::optional<Failure> failure;
  std::vector<FileEntry> entries;
  bool truncated = false;
  try {
    entries = files.list(path, &truncated);
  } catch (const Error& e) {
    failure = Failure{e.message()};
  }
  if (failure) raise(L, fn, *failure);
  lua_createtable(L, static_cast<int>(entries.size()), 0);
  for (size_t i = 0; i < entries.size(); ++i) {
    push_entry(L, entries[i]);
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
  lua_pushboolean(L, truncated);
  return 2;
}

int fs_stat(lua_State* L) {
  const char* fn = "engine.fs.stat";
  std::string path = path_arg(L, 1);
  const FileAccess& files = files_of(L, fn);
  std::optional<Failure> failure;
  std::optional<FileEntry> entry;
  try {
    entry = files.stat(path);
  } catch (const Error& e) {
    failure = Failure{e.message()};
  }
  if (failure) raise(L, fn, *failure);
  if (!entry) lua_pushnil(L);
  else push_entry(L, *entry);
  return 1;
}

// engine.call_id() -> the call's idempotency key in a journaled run (the same on every pass of a resumed run), or
// nil: what a script passes to a service that dedupes by a key of its own choosing.
int call_id(lua_State* L) {
  std::string_view id = sandbox_of(L).context().call_id;
  if (id.empty()) lua_pushnil(L);
  else lua_pushlstring(L, id.data(), id.size());
  return 1;
}

}  // namespace

void install_capabilities(lua_State* L, int engine_table) {
  lua_pushcfunction(L, call_id);
  lua_setfield(L, engine_table, "call_id");
  static const luaL_Reg http[] = {{"request", http_request}, {nullptr, nullptr}};
  static const luaL_Reg fs[] = {{"read", fs_read}, {"write", fs_write}, {"list", fs_list}, {"stat", fs_stat}, {nullptr, nullptr}};
  luaL_newlib(L, http);
  lua_setfield(L, engine_table, "http");
  luaL_newlib(L, fs);
  lua_setfield(L, engine_table, "fs");
}

}  // namespace engine::tools::lua
