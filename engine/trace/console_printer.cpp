#include "engine/trace/console_printer.h"

#include <iterator>

#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::trace {
namespace {

const char* const kGreen = "\033[32;1m";
const char* const kRed = "\033[31;1m";
// LangChain's colours for tools, green and red left out (they are the model's and the errors').
const char* const kToolColors[] = {"\033[36;1m", "\033[33;1m", "\033[38;5;200m"};
const char* const kBold = "\033[1m";
const char* const kReset = "\033[0m";

std::string str(const Value& data, const char* key) {
  auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A tool's output as the model read it: text as it is, structured output as JSON.
std::string text_or_json(const Value& data, const char* key) {
  auto it = data.find(key);
  if (it == data.end()) return "";
  return it->is_string() ? it->get<std::string>() : to_json_text(*it);
}

}  // namespace

const char* ConsolePrinter::tool_color(const std::string& tool) const {
  for (size_t i = 0; i < tool_names_.size(); ++i)
    if (tool_names_[i] == tool) return kToolColors[i % std::size(kToolColors)];
  return nullptr;
}

// Everything shown passes here: text from the model, tools and servers may hold escape sequences.
void ConsolePrinter::write(const std::string& text, const char* color) {
  if (color_ && color) out_ << color << terminal_safe(text) << kReset;
  else out_ << terminal_safe(text);
}

// A log that begins with the text already streamed shows only the rest (a tool call's "Invoking: ..." line after
// the model's words); a log the stream did not show is shown whole.
void ConsolePrinter::write_log(const std::string& log, const char* color) {
  if (!streamed_) return write(log, color);
  if (log.compare(0, streamed_text_.size(), streamed_text_) != 0) return write(log, color);
  if (log.size() > streamed_text_.size()) write(log.substr(streamed_text_.size()), color);
}

void ConsolePrinter::emit(const Event& e) {
  const Value& d = e.data;
  if (e.type == "chain_start") {
    write("\n> Entering new " + str(d, "name") + " chain...", kBold);
    out_ << "\n";
  } else if (e.type == "llm_start") {
    streamed_ = d.value("stream", false);
    streamed_text_.clear();
  } else if (e.type == "llm_token") {
    std::string text = str(d, "text");
    write(text, kGreen);
    streamed_text_ += text;
  } else if (e.type == "llm_retry") {
    out_ << "\n";
    std::string note = "Retrying (attempt " + std::to_string(d.value("attempt", 0) + 1) + ") after " +
                       str(d, "error");
    if (d.value("discarded_partial", false)) note += "; the text above is discarded";
    streamed_text_.clear();  // the next attempt streams its answer from the start
    write(note, kRed);
    out_ << "\n";
  } else if (e.type == "agent_action") {
    write_log(str(d, "log"), kGreen);
  } else if (e.type == "tool_end") {
    out_ << "\n";
    write(str(d, "observation_prefix"), nullptr);
    write(text_or_json(d, "observation"), d.contains("error") ? kRed : tool_color(str(d, "tool")));
    out_ << "\n";
    write(str(d, "llm_prefix"), nullptr);
  } else if (e.type == "parse_error") {
    write_log(str(d, "text"), kGreen);
    out_ << "\n";
    write("Parse error: " + str(d, "message"), kRed);
    out_ << "\n";
  } else if (e.type == "tool_log") {
    out_ << "\n";
    write("[" + str(d, "tool") + "] " + str(d, "message"), nullptr);
  } else if (e.type == "agent_finish") {
    write_log(str(d, "log"), kGreen);
  } else if (e.type == "early_stop") {
    out_ << "\n";
    write("Stopped: " + str(d, "reason"), kRed);
  } else if (e.type == "step_start") {
    out_ << "\n";
    write("[" + str(d, "step") + "] started (" + str(d, "kind") + ")", kBold);
  } else if (e.type == "step_retry") {
    out_ << "\n";
    write("[" + str(d, "step") + "] attempt " + std::to_string(d.value("attempt", 0)) + " failed (" +
              (d.contains("error") ? str(d["error"], "message") : std::string()) + "); retrying in " +
              std::to_string(d.value("wait_ms", 0L)) + " ms",
          kRed);
  } else if (e.type == "step_end") {
    out_ << "\n";
    std::string status = str(d, "status");
    std::string line = "[" + str(d, "step") + "] ";
    if (status == "skipped") line += "skipped: its when: does not hold";
    else line += status + " in " + std::to_string(d.value("elapsed_ms", 0L)) + " ms";
    write(line, status == "failed" ? kRed : kBold);
  } else if (e.type == "chain_end") {
    out_ << "\n";
    if (!d.contains("error")) {
      out_ << "\n";
      write("> Finished chain.", kBold);
      out_ << "\n";
    }
  }
  out_.flush();
}

}  // namespace engine::trace
