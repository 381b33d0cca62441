#include "engine/cli/command_scripts.h"

#include <algorithm>

#include "engine/app/loading.h"

#include <sstream>
#include <vector>

namespace engine::cli {
namespace {

struct Flag {
  std::string name;  // "--input", or "-q" for a flag with no long name
  bool takes_value = false;
  std::string value_name;  // what the value is, for the manual: "TEXT", "FILE", ...
  std::string description;
  std::string words;  // the values it takes, when they are a fixed set: "react tool_calling chat workflow"
};

// What a command's arguments are, for completing them.
enum class Arguments { None, Workflows, AnyFiles, Words };

struct Command {
  std::string path;  // "run", "batch merge"
  std::string description;
  std::string usage;  // "WORKFLOW", "FILE...", ...
  std::vector<std::string> subcommands;
  std::vector<Flag> flags;
  Arguments arguments = Arguments::None;
  std::string words;  // Arguments::Words: the words, space-separated
};

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

// CLI11's type string in plain words for the manual: "UINT:INT in [1 to 100000]" is N, with "(1 to 100000)" said
// after the flag's description; "FLOAT:NUMBER in [0 to 1]" is NUMBER.
std::pair<std::string, std::string> plain_value(const std::string& type) {
  if (type.empty()) return {"VALUE", ""};
  std::string kind = type.substr(0, type.find_first_of(": "));
  std::string name = kind == "UINT" || kind == "INT" ? "N" : kind == "FLOAT" ? "NUMBER" : kind;
  std::string range;
  size_t open = type.find('['), close = type.rfind(']');
  if (open != std::string::npos && close != std::string::npos && close > open)
    range = " (" + type.substr(open + 1, close - open - 1) + ")";
  return {name, range};
}

// The values a CLI11 type string lists ("TEXT:{react,tool_calling}"), space-separated; "" when it lists none.
std::string member_words(const std::string& type) {
  size_t open = type.find('{'), close = type.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  std::string words = type.substr(open + 1, close - open - 1);
  for (char& c : words)
    if (c == ',') c = ' ';
  return words;
}

// What --llm completes to: each provider and its colon, the model left to type.
std::string provider_prefixes() {
  std::string out;
  for (const std::string& p : app::llm_providers()) out += (out.empty() ? "" : " ") + p + ":";
  return out;
}

std::string upper(std::string s) {
  for (char& c : s) c = c == '_' ? '-' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

Command describe(const CLI::App& cmd, const std::string& path) {
  Command c;
  c.path = path;
  c.description = cmd.get_description();
  for (const CLI::App* sub : subcommands_of(cmd)) c.subcommands.push_back(sub->get_name());
  for (const CLI::Option* opt : cmd.get_options()) {
    std::string words = member_words(opt->get_type_name());
    if (!opt->nonpositional()) {
      if (!words.empty()) c.arguments = Arguments::Words, c.words = words;
      std::string name = opt->get_name();
      bool many = opt->get_items_expected_max() > 1;
      std::string shown = upper(name == "eval_file" ? "eval" : name) + (many ? "..." : "");
      c.usage += (c.usage.empty() ? "" : " ") + (opt->get_required() ? shown : "[" + shown + "]");
      if (c.arguments == Arguments::None) c.arguments = Arguments::Workflows;
      continue;
    }
    Flag f;
    f.name = opt->get_lnames().empty() ? "-" + opt->get_snames().front() : "--" + opt->get_lnames().front();
    f.takes_value = opt->get_expected_max() != 0;
    auto [value, range] = plain_value(opt->get_type_name());
    f.words = words;
    f.value_name = words.empty() ? value : words;
    if (!words.empty()) std::replace(f.value_name.begin(), f.value_name.end(), ' ', '|');
    f.description = opt->get_description() + (words.empty() ? range : "");
    c.flags.push_back(std::move(f));
    for (const std::string& s : opt->get_snames())
      if (!opt->get_lnames().empty()) {
        Flag short_name = c.flags.back();
        short_name.name = "-" + s;
        c.flags.push_back(std::move(short_name));
      }
  }
  if (path == "batch merge" || path == "init") c.arguments = Arguments::AnyFiles;  // not workflows: files, a folder
  return c;
}

void collect(const CLI::App& app, const std::string& prefix, std::vector<Command>& out) {
  for (const CLI::App* sub : subcommands_of(app)) {
    std::string path = prefix.empty() ? sub->get_name() : prefix + " " + sub->get_name();
    out.push_back(describe(*sub, path));
    collect(*sub, path, out);
  }
}

// The root (path "") and every command under it, parents before their own commands.
std::vector<Command> commands_of(const CLI::App& app) {
  std::vector<Command> out;
  Command root;
  root.description = app.get_description();
  for (const CLI::App* sub : subcommands_of(app)) root.subcommands.push_back(sub->get_name());
  root.flags = {{"--help", false, "", "Print help and exit"}, {"--version", false, "", "Print the version and exit"}};
  out.push_back(root);
  collect(app, "", out);
  return out;
}

std::string joined(const std::vector<std::string>& words, const std::string& sep = " ") {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

std::string flag_names(const Command& c, bool valued_only) {
  std::vector<std::string> names;
  for (const Flag& f : c.flags)
    if (!valued_only || f.takes_value) names.push_back(f.name);
  return joined(names);
}

// A pattern for `case` matching exactly the known command paths ("batch\ merge").
std::string path_pattern(const std::vector<Command>& commands) {
  std::vector<std::string> paths;
  for (const Command& c : commands) {
    if (c.path.empty()) continue;
    std::string p;
    for (char ch : c.path) p += ch == ' ' ? std::string("\\ ") : std::string(1, ch);
    paths.push_back(p);
  }
  return joined(paths, "|");
}

std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A `case` arm per flag that takes one of a fixed set of values, matching "COMMAND-PATH FLAG": `open` begins the
// pattern (bash writes it bare, zsh in parentheses), then `before` WORDS `after` completes them.
std::string flag_word_cases(const std::vector<Command>& commands, const std::string& open, const std::string& indent,
                            const std::string& before, const std::string& after) {
  std::string out;
  for (const Command& c : commands)
    for (const Flag& f : c.flags)
      if (!f.words.empty())
        out += open + single_quoted(c.path + " " + f.name) + ")\n" + indent + "  " + before + f.words + after + "\n";
  return out;
}

std::string bash_script(const std::vector<Command>& commands) {
  std::ostringstream out;
  out << "# bash completion for engine, made by `engine completion bash` from the engine's own commands.\n"
         "# Install: save as ~/.local/share/bash-completion/completions/engine (make install puts it where bash looks).\n"
         "_engine_complete() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\" cmdpath=\"\" word i\n"
         "  (( COMP_CWORD > 0 )) && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
         "  for (( i = 1; i < COMP_CWORD; i++ )); do\n"
         "    word=\"${COMP_WORDS[i]}\"\n"
         "    [[ \"$word\" == -* ]] && continue\n"
         "    case \"${cmdpath:+$cmdpath }$word\" in\n"
         "      "
      << path_pattern(commands)
      << ") cmdpath=\"${cmdpath:+$cmdpath }$word\" ;;\n"
         "    esac\n"
         "  done\n"
         "  local commands=\"\" flags=\"\" valued=\"\" args=\"\"\n"
         "  case \"$cmdpath\" in\n";
  for (const Command& c : commands) {
    out << "    " << (c.path.empty() ? "\"\"" : single_quoted(c.path)) << ")";
    out << " commands=" << single_quoted(joined(c.subcommands)) << " flags=" << single_quoted(flag_names(c, false))
        << " valued=" << single_quoted(flag_names(c, true));
    switch (c.arguments) {
      case Arguments::Workflows: out << " args=yaml"; break;
      case Arguments::AnyFiles: out << " args=files"; break;
      case Arguments::Words: out << " args=" << single_quoted(c.words); break;
      case Arguments::None: break;
    }
    out << " ;;\n";
  }
  out << "  esac\n"
         "  case \"$cmdpath $prev\" in\n"
      << flag_word_cases(commands, "    ", "    ", "COMPREPLY=( $(compgen -W '", "' -- \"$cur\") ); return ;;")
      << "  esac\n"
         "  if [[ \"$prev\" == --llm ]]; then\n"
         "    COMPREPLY=( $(compgen -W " << single_quoted(provider_prefixes()) << " -- \"$cur\") )\n"
         "    compopt -o nospace 2>/dev/null\n"
         "    return\n"
         "  fi\n"
         "  if [[ -n \"$prev\" && \" $valued \" == *\" $prev \"* ]]; then\n"
         "    COMPREPLY=( $(compgen -f -- \"$cur\") )\n"
         "    return\n"
         "  fi\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=( $(compgen -W \"$flags\" -- \"$cur\") )\n"
         "    return\n"
         "  fi\n"
         "  case \"$args\" in\n"
         "    yaml) COMPREPLY=( $(compgen -W \"$commands\" -- \"$cur\") $(compgen -f -X '!*.y*ml' -- \"$cur\") "
         "$(compgen -d -- \"$cur\") $(compgen -W \"$(\"${COMP_WORDS[0]}\" completion workflows 2>/dev/null)\" "
         "-- \"$cur\") ) ;;\n"
         "    files) COMPREPLY=( $(compgen -W \"$commands\" -- \"$cur\") $(compgen -f -- \"$cur\") ) ;;\n"
         "    *) COMPREPLY=( $(compgen -W \"$commands $args\" -- \"$cur\") ) ;;\n"
         "  esac\n"
         "}\n"
         "complete -o filenames -F _engine_complete engine\n";
  return out.str();
}

// "name:description" for zsh's _describe, whose separator is the first unescaped colon.
std::string zsh_item(const std::string& name, const std::string& description) {
  std::string d;
  for (char c : description) d += c == ':' ? std::string("\\:") : std::string(1, c);
  return single_quoted(name + ":" + d);
}

std::string zsh_script(const std::vector<Command>& commands) {
  std::ostringstream out;
  out << "#compdef engine\n"
         "# zsh completion for engine, made by `engine completion zsh` from the engine's own commands.\n"
         "# Install: save as _engine in a folder of $fpath (make install puts it in share/zsh/site-functions).\n"
         "_engine() {\n"
         "  local cmdpath=\"\" word i\n"
         "  for (( i = 2; i < CURRENT; i++ )); do\n"
         "    word=${words[i]}\n"
         "    [[ $word == -* ]] && continue\n"
         "    case \"${cmdpath:+$cmdpath }$word\" in\n"
         "      ("
      << path_pattern(commands)
      << ") cmdpath=\"${cmdpath:+$cmdpath }$word\" ;;\n"
         "    esac\n"
         "  done\n"
         "  local -a commands flags valued\n"
         "  local args=\"\"\n"
         "  case \"$cmdpath\" in\n";
  for (const Command& c : commands) {
    out << "    (" << (c.path.empty() ? "\"\"" : single_quoted(c.path)) << ")\n      commands=(";
    std::string sep;
    for (const std::string& sub : c.subcommands) {
      std::string description;
      for (const Command& d : commands)
        if (d.path == (c.path.empty() ? sub : c.path + " " + sub)) description = d.description;
      out << sep << zsh_item(sub, description);
      sep = " ";
    }
    out << ")\n      flags=(";
    sep = "";
    for (const Flag& f : c.flags) {
      out << sep << zsh_item(f.name, f.description);
      sep = " ";
    }
    out << ")\n      valued=(" << flag_names(c, true) << ")\n";
    switch (c.arguments) {
      case Arguments::Workflows: out << "      args=yaml\n"; break;
      case Arguments::AnyFiles: out << "      args=files\n"; break;
      case Arguments::Words: out << "      args=" << single_quoted(c.words) << "\n"; break;
      case Arguments::None: break;
    }
    out << "      ;;\n";
  }
  out << "  esac\n"
         "  case \"$cmdpath ${words[CURRENT-1]}\" in\n"
      << flag_word_cases(commands, "    (", "    ", "compadd -- ", "; return ;;")
      << "  esac\n"
         "  if [[ ${words[CURRENT-1]} == --llm ]]; then\n"
         "    compadd -S '' -- " << provider_prefixes() << "\n"
         "    return\n"
         "  fi\n"
         "  if (( ${valued[(Ie)${words[CURRENT-1]}]} )); then\n"
         "    _files\n"
         "    return\n"
         "  fi\n"
         "  if [[ ${words[CURRENT]} == -* ]]; then\n"
         "    _describe -t flags flag flags\n"
         "    return\n"
         "  fi\n"
         "  (( ${#commands} )) && _describe -t commands command commands\n"
         "  case $args in\n"
         "    (yaml) _files -g '*.(yaml|yml)'; compadd -- ${(f)\"$(${words[1]} completion workflows 2>/dev/null)\"} ;;\n"
         "    (files) _files ;;\n"
         "    (\"\") ;;\n"
         "    (*) compadd -- ${=args} ;;\n"
         "  esac\n"
         "}\n"
         "_engine \"$@\"\n";
  return out.str();
}

std::string fish_script(const std::vector<Command>& commands) {
  std::ostringstream out;
  std::vector<std::string> paths;
  for (const Command& c : commands)
    if (!c.path.empty()) paths.push_back(single_quoted(c.path));
  out << "# fish completion for engine, made by `engine completion fish` from the engine's own commands.\n"
         "# Install: save as ~/.config/fish/completions/engine.fish (make install puts it in "
         "share/fish/vendor_completions.d).\n"
         "function __engine_command_path\n"
         "    set -l path\n"
         "    for word in (commandline -opc)[2..-1]\n"
         "        string match -q -- '-*' $word; and continue\n"
         "        set -l candidate (string join ' ' $path $word)\n"
         "        if contains -- \"$candidate\" "
      << joined(paths)
      << "\n"
         "            set path $path $word\n"
         "        end\n"
         "    end\n"
         "    string join ' ' $path\n"
         "end\n"
         "function __engine_workflow_files\n"
         "    for path in (commandline -ct)*\n"
         "        if test -d $path\n"
         "            echo $path/\n"
         "        else if string match -qr -- '\\.ya?ml$' $path\n"
         "            echo $path\n"
         "        end\n"
         "    end\n"
         "    set -l engine (commandline -opc)[1]\n"
         "    command -q $engine; and $engine completion workflows 2>/dev/null\n"
         "end\n"
         "function __engine_at\n"
         "    test \"$(__engine_command_path)\" = \"$argv[1]\"\n"
         "end\n"
         "complete -c engine -f\n";
  for (const Command& c : commands) {
    std::string at = "-n " + single_quoted("__engine_at " + single_quoted(c.path));
    for (const std::string& sub : c.subcommands) {
      std::string description;
      for (const Command& d : commands)
        if (d.path == (c.path.empty() ? sub : c.path + " " + sub)) description = d.description;
      out << "complete -c engine " << at << " -a " << single_quoted(sub) << " -d " << single_quoted(description)
          << "\n";
    }
    for (const Flag& f : c.flags) {
      bool is_long = f.name.rfind("--", 0) == 0;
      std::string value = !f.takes_value          ? ""
                          : f.name == "--llm"      ? " -x -a " + single_quoted(provider_prefixes())
                          : !f.words.empty()       ? " -x -a " + single_quoted(f.words)
                                                   : " -r -F";
      out << "complete -c engine " << at << (is_long ? " -l " + f.name.substr(2) : " -s " + f.name.substr(1)) << value
          << " -d " << single_quoted(f.description) << "\n";
    }
    switch (c.arguments) {
      case Arguments::Workflows:
        out << "complete -c engine " << at << " -a '(__engine_workflow_files)'\n";
        break;
      case Arguments::AnyFiles: out << "complete -c engine " << at << " -F\n"; break;
      case Arguments::Words: out << "complete -c engine " << at << " -a " << single_quoted(c.words) << "\n"; break;
      case Arguments::None: break;
    }
  }
  return out.str();
}

// Text for roff: a backslash is \e, and a line may not start with a control character.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\\' ? std::string("\\e") : c == '-' ? std::string("\\-") : std::string(1, c);
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

}  // namespace

std::string completion_script(const CLI::App& app, const std::string& shell) {
  std::vector<Command> commands = commands_of(app);
  if (shell == "bash") return bash_script(commands);
  if (shell == "zsh") return zsh_script(commands);
  if (shell == "fish") return fish_script(commands);
  throw std::invalid_argument("no completion for the shell '" + shell + "': bash, zsh or fish");
}

std::string manual_page(const CLI::App& app) {
  std::vector<Command> commands = commands_of(app);
  std::ostringstream out;
  out << ".TH ENGINE 1 \"\" \"" << roff(app.version()) << "\" \"User Commands\"\n"
      << ".SH NAME\nengine \\- " << roff(app.get_description().substr(app.get_description().find(": ") + 2)) << "\n"
      << ".SH SYNOPSIS\n.B engine\n\\fICOMMAND\\fR [\\fIARGS\\fR]...\n"
      << ".SH DESCRIPTION\n"
         "engine builds an agent or a workflow of steps from a YAML file (its LLM settings, prompt templates, stop "
         "sequences, output parsers and tools, some of them Lua scripts) and runs it. The answer goes to stdout; "
         "the steps go to stderr. Run\n.B engine\nalone for the list of commands, and\n.B engine COMMAND \\-\\-help\n"
         "for a command's arguments and flags.\n"
      << ".SH COMMANDS\n";
  for (const Command& c : commands) {
    if (c.path.empty()) continue;
    out << ".SS \"engine " << roff(c.path) << (c.usage.empty() ? "" : " " + roff(c.usage)) << "\"\n"
        << roff(c.description) << "\n";
    for (const Flag& f : c.flags) {
      if (f.name == "--help" || f.name.rfind("--", 0) != 0) continue;
      out << ".TP\n"
          << (f.takes_value ? ".BI \"" + roff(f.name) + " \" " + roff(f.value_name) : ".B " + roff(f.name)) << "\n"
          << roff(f.description) << "\n";
    }
  }
  out << ".SH EXIT STATUS\n"
         ".TP\n.B 0\nok\n"
         ".TP\n.B 1\nthe run failed (a tool or the model failed, an evaluation or a test did not pass)\n"
         ".TP\n.B 2\nbad input or usage (a malformed workflow, an unknown input or flag, a missing file)\n"
         ".SH ENVIRONMENT\n"
         ".TP\n.B OPENAI_API_KEY\\fR, \\fBANTHROPIC_API_KEY\n"
         "the providers' keys (or the variable a workflow's api_key_env names); never shown in any output\n"
         ".TP\n.B OPENAI_BASE_URL\nthe OpenAI-compatible server\n"
         ".TP\n.B ENGINE_PATH\ncolon-separated folders whose plugins and templates workflows may use\n"
         ".TP\n.B NO_COLOR\nno colours on the console\n"
         ".SH FILES\n"
         ".TP\n.I share/engine/schema/workflow.schema.json\n"
         "the JSON Schema of the workflow format, for editors (also printed by \\fBengine schema\\fR)\n"
         ".TP\n.I share/engine/schema/test.schema.json\\fR, \\fIshare/engine/schema/eval.schema.json\n"
         "the JSON Schemas of test files and evaluation files (\\fBengine schema test\\fR, \\fBengine schema eval\\fR)\n"
         ".TP\n.I share/engine/plugins\\fR, \\fIshare/engine/templates\n"
         "the shipped Lua tools and templates, on every workflow's search path\n"
         ".TP\n.I share/engine/docs\n"
         "the documentation, in Markdown (\\fI/usr/share/engine/docs\\fR from the Debian package): tutorial.md "
         "first, then cli.md, workflow-format.md, templates.md, lua-tools.md, serve.md, errors.md\n"
         ".SH SEE ALSO\n"
         "The documentation in share/engine/docs beside the engine (\\fBengine\\fR alone names the folder), or "
         "docs/ in its source.\n";
  return out.str();
}

}  // namespace engine::cli
