#include "engine/trace/console_printer.h"

#include <algorithm>
#include <iterator>

#include "engine/core/elapsed.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"

namespace engine::trace {
namespace {

// LangChain's get_colored_text: the colour, then bold italic ("\033[1;3m"), around each coloured text (here each
// line of it, so that an indent stays uncoloured).
const char* const kGreen = "\033[32;1m\033[1;3m";
const char* const kRed = "\033[31;1m\033[1;3m";
// LangChain's colours for tools, green and red left out (they are the model's and the errors').
const char* const kToolColors[] = {"\033[36;1m\033[1;3m", "\033[33;1m\033[1;3m", "\033[38;5;200m\033[1;3m"};
const char* const kBold = "\033[1m";
const char* const kReset = "\033[0m";

// A tool's output as the model read it: text as it is, structured output as JSON.
std::string text_or_json(const Value& v) { return v.is_string() ? v.get<std::string>() : to_json_text(v); }

// A value as one short line: what a report shows of an input that may be a whole prompt.
std::string excerpt(const Value& v) {
  constexpr size_t kMax = 200;
  std::string text = v.is_string() ? v.get<std::string>() : to_json_text(v);
  for (char& c : text)
    if (c == '\n') c = ' ';
  if (text.size() <= kMax) return text;
  return text.substr(0, utf8::cut(text, kMax)) + "... (" + std::to_string(text.size()) + " bytes)";
}

// How deep an event shows: a level per step in its path; a step's own start and end show at its parent's level.
size_t depth(EventType type, std::string_view step) {
  if (step.empty()) return 0;
  size_t d = 1 + static_cast<size_t>(std::count(step.begin(), step.end(), '/'));
  bool own = type == EventType::StepStart || type == EventType::StepRetry || type == EventType::StepEnd;
  return own ? d - 1 : d;
}

}  // namespace

const char* ConsolePrinter::tool_color(const std::string& tool) const {
  for (size_t i = 0; i < tool_names_.size(); ++i)
    if (tool_names_[i] == tool) return kToolColors[i % std::size(kToolColors)];
  return nullptr;
}

// Everything shown passes here: text from the model, tools and servers may hold escape sequences. Each line
// begins with the event's indent.
void ConsolePrinter::write(std::string_view text, const char* color) {
  std::string safe = terminal_safe(std::string(text));
  std::string_view rest = safe;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    if (!line.empty()) {
      if (!at_line_start_ && line_owner_ != showing_) newline();
      if (at_line_start_) out_ << indent_;
      line_owner_ = showing_;
      if (color_ && color) out_ << color << line << kReset;
      else out_ << line;
      at_line_start_ = false;
    }
    if (end == std::string_view::npos) break;
    newline();
    rest.remove_prefix(end + 1);
  }
}

void ConsolePrinter::newline() {
  out_ << '\n';
  at_line_start_ = true;
}

// A log that begins with the text already streamed shows only the rest (a tool call's "Invoking: ..." line after
// the model's words); a log the stream did not show is shown whole.
void ConsolePrinter::write_log(Chain& chain, const std::string& log, const char* color) {
  if (!chain.streamed) return write(log, color);
  if (log.compare(0, chain.streamed_text.size(), chain.streamed_text) != 0) return write(log, color);
  if (log.size() > chain.streamed_text.size()) write(std::string_view(log).substr(chain.streamed_text.size()), color);
}

void ConsolePrinter::receive(const Event& e, const EventPlace& place) {
  std::lock_guard lock(mutex_);
  auto it = chains_.find(place.step);
  if (it == chains_.end()) it = chains_.emplace(std::string(place.step), Chain{}).first;
  indent_.assign(2 * depth(e.type(), place.step), ' ');
  showing_.assign(place.step);
  show(e, it->second);
  out_.flush();
}

void ConsolePrinter::show(const Event& e, Chain& chain) {
  switch (e.type()) {
    case EventType::ChainStart: {
      const auto& d = *e.as<events::ChainStart>();
      chain.observation_prefix = d.observation_prefix;
      chain.llm_prefix = d.llm_prefix;
      newline();  // LangChain prints two line breaks before the chain's name
      newline();
      // As LangChain's verbose mode: an agent is the AgentExecutor chain; a workflow of steps goes by its name.
      write("> Entering new " + (d.chain == ChainKind::Agent ? std::string(name_of(d.chain)) : d.name) + " chain...", kBold);
      newline();
      break;
    }
    case EventType::LlmStart:
      chain.streamed = e.as<events::LlmStart>()->stream;
      chain.streamed_text.clear();
      break;
    case EventType::LlmToken: {
      const std::string& text = e.as<events::LlmToken>()->text;
      write(text, kGreen);
      chain.streamed_text += text;
      break;
    }
    case EventType::AnswerToken: break;  // the answer's pieces are in the llm_token text already shown
    case EventType::LlmRetry: {
      const auto& d = *e.as<events::LlmRetry>();
      newline();
      std::string note = "Retrying (attempt " + std::to_string(d.attempt + 1) + ") after " + d.error;
      if (d.discarded_partial) note += "; the text above is discarded";
      chain.streamed_text.clear();  // the next attempt streams its answer from the start
      write(note, kRed);
      newline();
      break;
    }
    case EventType::AgentAction: write_log(chain, e.as<events::AgentAction>()->log, kGreen); break;
    case EventType::AgentFinish: write_log(chain, e.as<events::AgentFinish>()->log, kGreen); break;
    case EventType::ToolEnd: {
      const auto& d = *e.as<events::ToolEnd>();
      newline();
      write(chain.observation_prefix, nullptr);
      write(text_or_json(d.observation), d.failed() ? kRed : tool_color(d.tool));
      newline();
      // After a return_direct tool the model is not asked again, so LangChain's console shows no "Thought:".
      if (!d.return_direct) write(chain.llm_prefix, nullptr);
      break;
    }
    case EventType::ParseError: {
      const auto& d = *e.as<events::ParseError>();
      write_log(chain, d.text, kGreen);
      newline();
      write("Parse error: " + d.message, kRed);
      newline();
      break;
    }
    case EventType::ToolLog: {
      const auto& d = *e.as<events::ToolLog>();
      newline();
      write("[" + d.tool + "] " + d.message, nullptr);
      break;
    }
    case EventType::ToolProgress: {
      const auto& d = *e.as<events::ToolProgress>();
      newline();
      std::string done = text_or_json(d.progress);
      if (d.total) done += "/" + text_or_json(*d.total);
      write("[" + d.tool + "] " + done + (d.message ? " " + *d.message : ""), nullptr);
      break;
    }
    case EventType::ParserLog: {  // on a line of its own: the model's text for the same step follows
      const auto& d = *e.as<events::ParserLog>();
      if (!at_line_start_) newline();
      write("[" + d.parser + "] " + d.message, nullptr);
      newline();
      break;
    }
    case EventType::EarlyStop:
      newline();
      write("Stopped: " + std::string(name_of(e.as<events::EarlyStop>()->reason)), kRed);
      break;
    case EventType::StepStart: {
      const auto& d = *e.as<events::StepStart>();
      newline();
      write("[" + d.step + "] started (" + std::string(name_of(d.kind)) + ")", kBold);
      break;
    }
    case EventType::StepRetry: {
      const auto& d = *e.as<events::StepRetry>();
      newline();
      write("[" + d.step + "] attempt " + std::to_string(d.attempt) + " failed (" + d.error.message + "); retrying in " +
                std::to_string(d.wait_ms) + " ms",
            kRed);
      break;
    }
    case EventType::StepEnd: {
      const auto& d = *e.as<events::StepEnd>();
      newline();
      std::string line = "[" + d.step + "] ";
      if (d.status == StepStatus::Skipped) line += "skipped: its when: does not hold";
      else line += std::string(name_of(d.status)) + " in " + milliseconds_text(d.elapsed_ms);
      if (d.error) line += " (" + d.error->kind + ")";
      write(line, d.status == StepStatus::Failed ? kRed : kBold);
      // A failed step's report: what it was given (the error itself is the caller's to print, once).
      if (d.inputs && d.inputs->is_object())
        for (const auto& [name, value] : d.inputs->items()) {
          newline();
          write("  " + name + ": " + excerpt(value), nullptr);
        }
      break;
    }
    case EventType::ChainEnd:
      newline();
      if (!e.as<events::ChainEnd>()->error) {
        newline();
        write("> Finished chain.", kBold);
        newline();
      }
      break;
    default: break;
  }
}

}  // namespace engine::trace
