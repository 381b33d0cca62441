#include "engine/tools/lua/lua_tool.h"

#include <lua.hpp>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/tools/lua/lua_chunk.h"
#include "engine/tools/lua/lua_json.h"

namespace engine::tools::lua {
namespace {

// What the script's chunk gave: its run function, kept in the registry, and what its table says of its tool.
struct Declared {
  std::string name, description;
  Value parameters;
  int run_ref = LUA_NOREF;
  std::string got;  // the type found where the run function should be, when there is none
};

// Reads what the chunk returned (at index 1, inside LuaSandbox::protect: the reading allocates). With
// `read_parameters`, `parameters` becomes a Value (lua.convert errors propagate); a run's instance skips it.
void read_tool(lua_State* L, Declared& declared, bool read_parameters) {
  if (lua_istable(L, 1)) {
    if (lua_getfield(L, 1, "name") == LUA_TSTRING) declared.name = lua_tostring(L, -1);
    if (lua_getfield(L, 1, "description") == LUA_TSTRING) declared.description = lua_tostring(L, -1);
    if (lua_getfield(L, 1, "parameters") != LUA_TNIL && read_parameters) declared.parameters = to_value(L, -1);
    lua_getfield(L, 1, "run");
  } else {
    lua_pushvalue(L, 1);
  }
  if (lua_isfunction(L, -1)) declared.run_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  else declared.got = luaL_typename(L, -1);
}

class LuaToolInstance : public ToolInstance {
 public:
  LuaToolInstance(const LuaTool& tool, const LuaToolConfig& config, const std::string& bytecode, EventSink* events)
      : name_(tool.name()),
        sandbox_(config.limits, config.file.parent_path(), [this](const std::string& line) { log(line); }),
        events_(events) {
    auto outcome = run_chunk(sandbox_, bytecode, config.display_path);
    Declared declared;
    if (outcome.ok) outcome = sandbox_.protect(1, [&](lua_State* L) { read_tool(L, declared, false); });
    if (!outcome.ok) load_error_ = outcome.message, load_kind_ = outcome.error_kind;
    else if (declared.run_ref == LUA_NOREF) load_error_ = "the script no longer returns a tool";
    run_ref_ = declared.run_ref;
  }

  ToolResult invoke(const Value& input) override {
    std::string prefix = "tool '" + name_ + "' failed: ";
    if (run_ref_ == LUA_NOREF) return ToolResult::failure(kind_for(load_kind_), prefix + load_error_);
    lua_rawgeti(sandbox_.state(), LUA_REGISTRYINDEX, run_ref_);
    auto outcome = sandbox_.call_with(input, 1);
    if (!outcome.ok) return ToolResult::failure(kind_for(outcome.error_kind), prefix + outcome.message);
    Value output;
    try {
      outcome = sandbox_.protect(1, [&](lua_State* L) { output = output_of(L); });
    } catch (const Error& e) {
      return ToolResult::failure("tool.error", prefix + "bad return value: " + e.message());
    }
    if (!outcome.ok)
      return ToolResult::failure(kind_for(outcome.error_kind), prefix + outcome.message + " reading its result");
    return ToolResult::success(std::move(output));
  }

 private:
  static std::string kind_for(const std::string& lua_kind) {
    if (lua_kind == "lua.timeout") return "tool.timeout";
    if (lua_kind == "lua.instruction_limit") return "tool.instruction_limit";
    if (lua_kind == "lua.memory_limit") return "tool.memory_limit";
    return "tool.error";
  }

  // Strings are text as they are, tables, numbers and booleans JSON, nil empty text; anything else (a function)
  // its tostring.
  static Value output_of(lua_State* L) {
    switch (lua_type(L, -1)) {
      case LUA_TNIL: return "";
      case LUA_TSTRING:
      case LUA_TTABLE:
      case LUA_TNUMBER:
      case LUA_TBOOLEAN: return to_value(L, -1);
      default: {
        size_t n = 0;
        const char* s = luaL_tolstring(L, -1, &n);
        std::string out(s, n);
        lua_pop(L, 1);
        return out;
      }
    }
  }

  void log(const std::string& line) {
    if (events_) events_->emit(Event{EventType::ToolLog, Value{{"tool", name_}, {"message", line}}});
  }

  std::string name_;  // a copy: an instance may outlive the Tool it came from
  LuaSandbox sandbox_;
  EventSink* events_;
  int run_ref_ = LUA_NOREF;
  std::string load_error_;
  std::string load_kind_;
};

}  // namespace

std::shared_ptr<const LuaTool> LuaTool::load(const LuaToolConfig& config) {
  std::string bytecode = compile_chunk(read_file(config.file), config.display_path);
  LuaSandbox sandbox(config.limits, config.file.parent_path(), nullptr);
  auto outcome = run_chunk(sandbox, bytecode, config.display_path);
  Declared declared;
  if (outcome.ok) {
    try {
      outcome = sandbox.protect(1, [&](lua_State* L) { read_tool(L, declared, true); });
    } catch (const Error& e) {
      throw Error("lua.load", "the tool's parameters are not JSON: " + e.message(), SourceLoc{config.display_path});
    }
  }
  if (!outcome.ok)
    throw Error("lua.load", "loading the tool script failed: " + outcome.message, SourceLoc{config.display_path});
  if (declared.run_ref == LUA_NOREF)
    throw Error("lua.load", "the tool script must return a function or a table with a 'run' function, got " + declared.got,
                SourceLoc{config.display_path});
  if (!config.name.empty()) declared.name = config.name;
  if (!config.description.empty()) declared.description = config.description;
  if (!config.parameters.is_null()) declared.parameters = config.parameters;
  if (declared.name.empty()) declared.name = config.file.stem().string();
  try {
    return std::make_shared<LuaTool>(declared.name, declared.description, std::move(declared.parameters), config,
                                     std::move(bytecode));
  } catch (const Error& e) {
    throw Error(e.kind(), "the tool's parameters: " + e.message(), SourceLoc{config.display_path});
  }
}

std::unique_ptr<ToolInstance> LuaTool::instantiate(const ToolContext& context) const {
  // Not given the cancel: a script's own time limit (a few seconds) already bounds how long it can hold a run.
  return std::make_unique<LuaToolInstance>(*this, config_, bytecode_, context.events);
}

}  // namespace engine::tools::lua
