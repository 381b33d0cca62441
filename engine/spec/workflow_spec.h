#pragma once
// The workflow file as plain data: every field the user wrote, with where they wrote it. Knows nothing of running.
#include <filesystem>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/approval.h"
#include "engine/core/diagnostics.h"
#include "engine/core/file_scope.h"
#include "engine/core/journal.h"
#include "engine/core/limits.h"
#include "engine/core/secret_set.h"
#include "engine/core/source.h"
#include "engine/core/step_kind.h"
#include "engine/core/value.h"

namespace engine::spec {

template <class T>
struct Located {
  T value{};
  SourceLoc loc;
};

struct InputSpec {
  std::string name;
  std::string description;
  std::optional<Value> default_value;  // absent: the input is required
  std::string type;  // declared, one of schema::kValueTypes; empty: any value
  SourceLoc loc;
};

struct OutputSpec {
  std::string name;
  std::string description;
  Located<std::string> value;  // a template over the run's result; "{{ output }}" when not given
  SourceLoc loc;
};

struct TemplateFlags {
  bool strict_undefined = true;
  bool trim_blocks = false;
  bool lstrip_blocks = false;
};

// Options one template sets for itself, over the agent's template_options.
struct TemplateOverrides {
  std::optional<bool> strict_undefined;
  std::optional<bool> trim_blocks;
  std::optional<bool> lstrip_blocks;

  TemplateFlags over(TemplateFlags f) const {
    if (strict_undefined) f.strict_undefined = *strict_undefined;
    if (trim_blocks) f.trim_blocks = *trim_blocks;
    if (lstrip_blocks) f.lstrip_blocks = *lstrip_blocks;
    return f;
  }
};

// A template given inline or as a file; `origin` names it in error messages.
struct TemplateSource {
  std::string text;
  std::string origin;  // "templates/react.j2" or "workflows/x.yaml (agent.prompt)"
  std::filesystem::path dir;  // where its {% include %} names resolve: its own folder, or the workflow's
  SourceLoc loc;       // where the YAML gives it
  bool given = false;
  TemplateOverrides overrides;
  std::string key_path;  // for a template written in the YAML itself: its key ("steps.reply.template"); else empty
};

// One message of a chat-style prompt: a role and a template for its content.
struct MessageSpec {
  Located<std::string> role;  // system, user or assistant
  TemplateSource content;
  Located<std::string> placeholder;  // {placeholder: NAME}: the messages in that variable (history, or an input)
};

// agent.memory: what the prompt sees of a chat session's past exchanges.
struct MemorySpec {
  Located<std::string> kind{"none", {}};  // none | full | window | token_limit
  int k = 5;
  long max_tokens = 2000;
  std::string human_prefix = "Human";
  std::string ai_prefix = "AI";
  Located<std::string> input_key;  // the input holding the human's message; default: `input`, or the only input
  std::string output_key;          // the field of a structured answer the memory keeps; default: the whole answer
  SourceLoc loc;
};

// A tool call a scripted reply makes. In a rule, `arguments` is a template that renders JSON text.
struct ScriptedToolCallSpec {
  Located<std::string> name;
  Located<std::string> arguments;  // JSON text
};

struct ScriptedReplySpec {
  Located<std::string> text;
  std::vector<ScriptedToolCallSpec> tool_calls;
};

struct ScriptedRuleSpec {
  Located<std::string> match;  // a regex on what `reads` names
  std::string reads = "match";  // match: the rendered prompt; user: the user's last message; tool: a tool's result
  Located<std::string> reply;  // template over the regex's named groups and `groups` (all, by number)
  std::vector<ScriptedToolCallSpec> tool_calls;
};

// USD per million tokens, as providers publish their prices.
struct ModelPrice {
  double prompt = 0;
  double completion = 0;
};

struct LlmSpec {
  Located<std::string> provider{"scripted", {}};
  std::string model;
  // The cap on model calls in flight at once for everything the workflow runs (its steps, agents, sub-workflows);
  // read from the workflow that is run, not from those it includes. None: the engine's default (8).
  std::optional<int> max_concurrent_calls;
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::vector<ScriptedReplySpec> replies;
  std::vector<ScriptedRuleSpec> rules;
  int latency_ms = 0;
  // scripted.fail: the first `fail_times` calls of a run are answered with the HTTP status `fail_status`.
  int fail_status = 0;
  int fail_times = 0;
  // HTTP providers (openai, ollama, llamacpp, anthropic)
  std::string base_url;       // default: the preset's (OPENAI_BASE_URL for openai, ANTHROPIC_BASE_URL for anthropic)
  std::string api_key_env;    // default: OPENAI_API_KEY, ANTHROPIC_API_KEY, none for local servers
  int max_retries = 2;
  double timeout_s = 600;
  double connect_timeout_s = 10;
  double read_timeout_s = 120;  // the longest silence of a server mid-answer
  std::string max_tokens_field = "max_tokens";
  Located<std::string> endpoint{"chat", {}};  // chat or completions (OpenAI-compatible only)
  std::optional<long long> seed;
  Value response_format;  // null, or the object sent as response_format
  SourceLoc response_format_loc;
  Located<std::string> tool_choice;  // auto, none, required, any, or a tool's name (checked when built)
  std::optional<bool> parallel_tool_calls;
  std::string anthropic_version = "2023-06-01";
  Value extra = Value::object();
  // replay
  Located<std::string> recording;  // the path as written
  std::filesystem::path recording_file;  // resolved against the workflow's folder
  // cost
  std::vector<std::pair<std::string, ModelPrice>> prices;  // by model name
  TemplateSource chat_template;  // a model's chat template: renders chat prompts into one text prompt
  std::string bos_token;
  std::string eos_token;
  // What transformers' apply_chat_template is given beside the messages: the agent's tools the template lists
  // (`all`, or by name; checked when built), add_generation_prompt, and the template's own variables.
  bool chat_template_all_tools = false;
  std::vector<Located<std::string>> chat_template_tools;
  SourceLoc chat_template_tools_loc;
  bool add_generation_prompt = true;
  Value chat_template_kwargs = Value::object();
  SourceLoc loc;
};

// The sandbox limits of a Lua script (a tool, a parser).
struct LuaLimitsSpec {
  long long instructions = 10'000'000;
  long long memory_mb = 32;
  long long timeout_ms = 2000;
  bool timeout_given = false;  // a tool that may send HTTP requests waits 30 s unless told
};

// `allow: http:` (docs/lua-tools.md, "Reaching the world"): URLs under a prefix, with these methods and headers.
struct HttpGrantSpec {
  Located<std::string> url;
  std::vector<std::string> methods{"GET"};
  std::vector<std::pair<std::string, std::string>> headers;
  long long max_bytes = static_cast<long long>(limits::kGrantBytes);
};

// `allow: files:`: files under a folder, relative to the workflow's.
struct FilesGrantSpec {
  Located<std::string> root;       // as written
  std::filesystem::path root_dir;  // resolved
  bool write = false;
  long long max_bytes = static_cast<long long>(limits::kGrantBytes);
};

// What a tool, a lua step or a Lua parser may reach; nothing unless given.
struct AllowSpec {
  std::vector<HttpGrantSpec> http;
  std::vector<FilesGrantSpec> files;
  bool empty() const { return http.empty() && files.empty(); }
};

struct WorkflowSpec;

// An MCP server whose tools a workflow uses (a tools entry with `mcp:`). Values read through ${VAR} (env, headers)
// and credential-named headers are secrets: the loader adds them to the load's SecretSet.
struct McpSpec {
  Located<std::string> command;  // stdio: the program and its arguments...
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::filesystem::path cwd;     // ...started in this folder (the workflow's own unless given)
  Located<std::string> url;      // or Streamable HTTP
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::filesystem::path> roots;  // folders offered to the server as its roots
  std::vector<Located<std::string>> allow;   // the entry's `tools:`; empty: every tool it lists
  std::string prefix;
  double timeout_s = 60;
  SourceLoc loc;
};

struct ToolSpec {
  Located<std::string> name;
  Located<std::string> workflow;  // a workflow file as a tool: the path as written...
  std::shared_ptr<const WorkflowSpec> workflow_spec;  // ...and the workflow, loaded
  std::string description;
  Located<std::string> lua;      // the path as written
  std::filesystem::path lua_file;  // resolved against the workflow's folder
  Located<std::string> builtin;
  std::optional<McpSpec> mcp;  // a server's tools: `name` names the server
  Value parameters;  // a JSON Schema of the tool's arguments, or null (checked, not yet compiled)
  SourceLoc parameters_loc;
  LuaLimitsSpec limits;
  AllowSpec allow;  // lua and builtin tools
  Located<std::string> index;        // search_docs: where its index is kept, as written...
  std::filesystem::path index_file;  // ...and resolved against the workflow's folder
  Located<std::string> on_error{"observation", {}};  // "observation" or "fail"
  // read, idempotent or once: what a resumed run may do with a call of it that may have happened
  // (docs/durability.md); empty: inferred from what the tool can reach.
  Located<std::string> effect;
  // Which of its tools' calls a person approves first (docs/people.md); allow by default.
  ApprovalPolicy approve;
  SourceLoc loc;
};

struct KeywordRuleSpec {
  Located<std::string> match;  // a regex searched in the model's text
  Located<std::string> tool;
  Located<std::string> input;  // a template over the match's groups and the text; default: the whole match
};

// One parser of agent.parser (a map, or each map of a list tried in order).
struct ParserSpec {
  std::string path = "agent.parser";  // for messages: agent.parser, or agent.parser[1]
  Located<std::string> kind{"regex", {}};  // regex | json_blob | keyword | lua
  // regex
  Located<std::string> final_answer;
  Located<std::string> action;
  bool dotall = true;
  bool strip_quotes = true;
  bool decode_xml_entities = false;
  std::string both = "error";  // a text with both verdicts: error | final_answer | action
  // json_blob
  std::string action_key = "action";
  std::string input_key = "action_input";
  std::string final_action = "Final Answer";
  // keyword
  std::vector<KeywordRuleSpec> keyword_rules;
  // lua
  Located<std::string> script;          // the path as written
  std::filesystem::path script_file;    // resolved against the workflow's folder
  AllowSpec allow;
  std::string function = "parse";      // the function's name when the script returns a table
  LuaLimitsSpec limits;
};

struct AgentSpec {
  std::string path = "agent";  // its key path, for messages: agent, or steps.NAME.agent
  Located<std::string> kind{"react", {}};
  TemplateSource prompt;
  std::vector<MessageSpec> messages;  // when the prompt is a list of messages
  MemorySpec memory;
  Value output_schema;  // a JSON Schema the answer must match, or null (checked, not yet compiled)
  SourceLoc output_schema_loc;
  TemplateSource scratchpad;
  std::vector<std::string> stop;
  bool stop_given = false;
  std::vector<ParserSpec> parsers;  // at least one
  int max_iterations = 15;
  std::optional<double> max_execution_time;  // seconds
  std::optional<long> max_tokens_total;       // a run's budget of prompt + completion tokens
  std::optional<double> max_cost;             // a run's budget in USD, priced by llm.prices
  SourceLoc max_cost_loc;
  Located<std::string> early_stopping{"force", {}};
  Located<std::string> on_parse_error{"fail", {}};
  std::vector<Located<std::string>> tools;  // allowed tools; empty means all declared tools
  bool tools_given = false;
  std::vector<Located<std::string>> return_direct;
  std::string observation_prefix = "Observation: ";
  std::string llm_prefix = "Thought: ";
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  TemplateFlags template_flags;
  SourceLoc loc;
};

// One step of a workflow's graph (docs/workflows.md). Its templates read `inputs` (the workflow's, also each by
// name) and `steps` (each finished step's `output`); those references are the graph's edges.
struct StepSpec {
  std::string name;
  std::string path;  // its key path, for messages: steps.NAME, or steps.LOOP.steps.NAME
  Located<StepKind> kind{StepKind::Template, {}};
  TemplateSource text;        // template: the text; llm: the prompt; tool: the input (text, or JSON for parameters)
  Located<std::string> tool;  // tool: the tool's name
  Located<std::string> workflow;  // workflow: the file as written...
  std::shared_ptr<const WorkflowSpec> workflow_spec;  // ...and the workflow, loaded; `inputs` are its inputs
  std::vector<StepSpec> body;  // loop: the steps repeated
  Located<std::string> until;  // loop: an expression over an iteration's steps; the loop ends once it holds
  int max_iterations = 0;      // loop: the bound, required
  std::optional<AgentSpec> agent;  // agent: the agent block
  std::optional<LlmSpec> llm;      // llm, agent: the step's own model instead of the workflow's
  Value output_schema;             // llm: the answer is JSON matching this schema (null: the answer is text)
  SourceLoc output_schema_loc;
  Located<std::string> lua;        // lua: the script as written...
  std::filesystem::path lua_file;  // ...and resolved within the workflow's reach
  LuaLimitsSpec lua_limits;        // lua: its limits, as a tool's
  AllowSpec allow;                 // lua: its grants, as a tool's
  // agent, workflow, lua: the step's own inputs, each a template over the workflow's inputs and steps
  std::vector<std::pair<std::string, TemplateSource>> inputs;
  Located<std::string> when;  // an expression; the step runs only when it holds (empty: always)
  Located<std::string> for_each;  // an expression giving the list the step is mapped over (empty: run once)
  int concurrency = 4;            // for_each: items run at once
  int attempts = 1;           // retry.attempts
  double backoff = 1.0;       // retry.backoff: seconds before the second attempt, doubled after each failure
  bool continue_on_error = false;  // on_error: continue
  std::optional<double> timeout;   // seconds for the whole step, its retries and their waits included
  SourceLoc loc;
};

struct WorkflowSpec {
  int version = 1;
  std::string name;
  std::string description;
  std::vector<InputSpec> inputs;
  std::vector<OutputSpec> outputs;
  LlmSpec llm;
  std::vector<ToolSpec> tools;
  AgentSpec agent;            // the one agent of a workflow without steps
  std::vector<StepSpec> steps;  // a workflow of steps; empty: the agent above is the whole workflow
  std::optional<Durability> durability;  // when its journal reaches the disk (docs/durability.md); none: the default
  // The files it was built from: its own (when loaded from a file) and every file its load named, sub-workflows'
  // included (LoadedWorkflows::files).
  std::vector<std::filesystem::path> files;
  std::string display_path;     // the path as given on the command line
  std::filesystem::path dir;    // the folder relative paths are resolved against
  std::shared_ptr<const FileScope> scope;  // the files it may read: its folder and the search path
  std::shared_ptr<const SourceText> source;
  // The secrets its load read (core/secret_set.h), shared with every workflow it reaches: what its runs' outputs mask.
  std::shared_ptr<SecretSet> secrets;
};

// The workflow files one load has read as steps or tools, by their canonical path, each with how deep its own
// sub-workflows nest below it: a file named by many steps and tools is loaded once (files that each name the next
// as ten tools would otherwise be loaded 10^depth times).
struct LoadedWorkflows {
  struct Entry {
    std::shared_ptr<const WorkflowSpec> spec;
    size_t height = 1;  // the file itself, and the deepest chain of files under it
  };
  std::map<std::filesystem::path, Entry> by_path;
  // Every file the load named and found (templates, Lua scripts, parsers' scripts, workflows), as resolved: what a
  // journaled run's resume checks for changes (docs/durability.md).
  std::set<std::filesystem::path> files;
};

struct LoadOptions {
  // Folders besides the workflow's own whose files it may name (search_path.h has the usual list).
  std::vector<std::filesystem::path> search_path;
  // The files whose loading led here, outermost first: a workflow that names one of them (as a step or a tool)
  // would include itself.
  std::vector<std::filesystem::path> including;
  // Shared by every file of one load; load_workflow makes it when none is given.
  std::shared_ptr<LoadedWorkflows> loaded;
  // Where the load puts each secret it reads (a front end's own set, so that what it prints, a load error
  // included, is masked); load_workflow makes one holding the standard key variables when none is given.
  std::shared_ptr<SecretSet> secrets;
  // Where a validation collects problems (core/diagnostics.h): each is noted and the rest of the file still read,
  // what holds one left out of the result. None (a run): the first problem is thrown.
  Diagnostics* found = nullptr;
};

// The providers `--llm PROVIDER:MODEL` may name: every one but `scripted`, which needs a script.
const std::vector<std::string>& override_providers();

// Calls `f` on every step, a loop's body after the loop.
template <class F>
void for_each_step(const std::vector<StepSpec>& steps, F&& f) {
  for (const auto& st : steps) {
    f(st);
    for_each_step(st.body, f);
  }
}

template <class F>
void for_each_step(std::vector<StepSpec>& steps, F&& f) {
  for (auto& st : steps) {
    f(st);
    for_each_step(st.body, f);
  }
}

// Reads and validates a workflow file. Throws a located Error ("spec.*", "io.*") for anything wrong in it.
WorkflowSpec load_workflow(const std::filesystem::path& file, const LoadOptions& options = {});
// The same from text; `display_path` names it in errors and `dir` resolves its relative paths.
WorkflowSpec parse_workflow(std::string text, std::string display_path, std::filesystem::path dir,
                            const LoadOptions& options = {});

}  // namespace engine::spec
