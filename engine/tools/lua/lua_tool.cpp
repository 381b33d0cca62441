#include "engine/tools/lua/lua_tool.h"

#include <lua.hpp>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/tools/lua/lua_chunk.h"
#include "engine/tools/lua/lua_json.h"
#include "engine/tools/lua/lua_state_pool.h"

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

// A state for one run of the script: its chunk run, its run function found. May throw Error (a state that cannot
// be made within the memory limit).
std::unique_ptr<PreparedState> prepare(const LuaToolConfig& config, const std::string& bytecode,
                                       const LuaSandbox::LogFn& log) {
  auto state = std::make_unique<PreparedState>();
  state->sandbox = std::make_unique<LuaSandbox>(config.limits, config.file.parent_path(), log);
  auto outcome = run_chunk(*state->sandbox, bytecode, config.display_path);
  Declared declared;
  if (outcome.ok) outcome = state->sandbox->protect(1, [&](lua_State* L) { read_tool(L, declared, false); });
  if (!outcome.ok) state->failure = outcome;
  else if (declared.run_ref == LUA_NOREF) state->failure = {false, ErrorKind::LuaError, "the script no longer returns a tool"};
  state->entry_ref = declared.run_ref;
  LuaStatePool::seal(*state);
  return state;
}

class LuaToolInstance : public ToolInstance {
 public:
  LuaToolInstance(std::string name, std::shared_ptr<LuaStatePool> pool, std::shared_ptr<const Capabilities> capabilities,
                  const ToolContext& context)
      : name_(std::move(name)), pool_(std::move(pool)), capabilities_(std::move(capabilities)),
        events_(context.events), cancel_(context.cancel) {
    pool_->join();
  }
  ~LuaToolInstance() override {
    if (own_ && !changed_) pool_->give_back(own_);
    pool_->leave();
  }
  LuaToolInstance(const LuaToolInstance&) = delete;
  LuaToolInstance& operator=(const LuaToolInstance&) = delete;

  ToolResult invoke(const Value& input) override { return invoke(input, CallContext{}); }
  ToolResult invoke(const Value& input, const CallContext& call) override {
    std::string prefix = "tool '" + name_ + "' failed: ";
    std::unique_ptr<PreparedState> state = std::move(own_);
    if (!state) {
      try {
        state = pool_->take([this](const std::string& line) { log(line); });
      } catch (const Error& e) {
        return ToolResult::failure(kind_for(e.kind()), prefix + e.message());
      }
    }
    ToolResult result = run(*state, input, prefix, call.idempotency_key);
    if (result.ok() && !changed_ && pool_->in_demand()) {
      if (pool_->give_back(state)) return result;
      changed_ = true;  // what the script keeps, it keeps for the rest of the run: no need to check again
    }
    own_ = std::move(state);
    return result;
  }

 private:
  ToolResult run(PreparedState& state, const Value& input, const std::string& prefix, std::string_view call_id) {
    if (state.entry_ref == LUA_NOREF)
      return ToolResult::failure(kind_for(state.failure.error_kind), prefix + state.failure.message);
    LuaSandbox& sandbox = *state.sandbox;
    sandbox.set_log([this](const std::string& line) { log(line); });
    lua_rawgeti(sandbox.state(), LUA_REGISTRYINDEX, state.entry_ref);
    LuaSandbox::Outcome outcome;
    {
      ScopedCallContext context(sandbox, {capabilities_->empty() ? nullptr : capabilities_.get(), cancel_, call_id});
      outcome = sandbox.call_with(input, 1);
    }
    if (!outcome.ok) return ToolResult::failure(kind_for(outcome.error_kind), prefix + outcome.message);
    Value output;
    try {
      outcome = sandbox.protect(1, [&](lua_State* L) { output = output_of(L); });
    } catch (const Error& e) {
      return ToolResult::failure(ErrorKind::ToolError, prefix + "bad return value: " + e.message());
    }
    if (!outcome.ok)
      return ToolResult::failure(kind_for(outcome.error_kind), prefix + outcome.message + " reading its result");
    return ToolResult::success(std::move(output));
  }

  static ErrorKind kind_for(ErrorKind lua_kind) {
    switch (lua_kind) {
      case ErrorKind::LuaTimeout: return ErrorKind::ToolTimeout;
      case ErrorKind::LuaInstructionLimit: return ErrorKind::ToolInstructionLimit;
      case ErrorKind::LuaMemoryLimit: return ErrorKind::ToolMemoryLimit;
      case ErrorKind::RunCancelled:
      case ErrorKind::RunTimeout: return lua_kind;  // the run's, not the tool's
      default: return ErrorKind::ToolError;
    }
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
    if (events_) events_->emit(Event{events::ToolLog{name_, line}});
  }

  std::string name_;  // a copy: an instance may outlive the Tool it came from
  std::shared_ptr<LuaStatePool> pool_;
  std::shared_ptr<const Capabilities> capabilities_;
  EventSink* events_;
  const Cancel* cancel_;
  std::unique_ptr<PreparedState> own_;  // the state this run keeps for its later calls
  bool changed_ = false;                // own_ is not as it was made
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
      throw Error(ErrorKind::LuaLoad, "the tool's parameters are not JSON: " + e.message(), SourceLoc{config.display_path});
    }
  }
  if (!outcome.ok)
    throw Error(ErrorKind::LuaLoad, "loading the tool script failed: " + outcome.message, SourceLoc{config.display_path});
  if (declared.run_ref == LUA_NOREF)
    throw Error(ErrorKind::LuaLoad, "the tool script must return a function or a table with a 'run' function, got " + declared.got,
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

LuaTool::LuaTool(std::string name, std::string description, Value parameters, LuaToolConfig config,
                 std::string bytecode)
    : Tool(std::move(name), std::move(description), std::move(parameters), config.schema_options),
      capabilities_(std::make_shared<const Capabilities>(config.capabilities)),
      states_(std::make_shared<LuaStatePool>([config, bytecode = std::move(bytecode)](const LuaSandbox::LogFn& log) {
        return prepare(config, bytecode, log);
      })) {}

std::unique_ptr<ToolInstance> LuaTool::instantiate(const ToolContext& context) const {
  // The cancel ends what a script waits for (an HTTP request); its own time limit bounds everything else.
  return std::make_unique<LuaToolInstance>(name(), states_, capabilities_, context);
}

}  // namespace engine::tools::lua
