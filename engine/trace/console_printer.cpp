#include "engine/trace/console_printer.h"

namespace engine::trace {
namespace {

const char* const kBlue = "\033[36;1m";
const char* const kGreen = "\033[32;1m";
const char* const kRed = "\033[31;1m";
const char* const kBold = "\033[1m";
const char* const kReset = "\033[0m";

std::string str(const Value& data, const char* key) {
  auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

void ConsolePrinter::write(const std::string& text, const char* color) {
  if (color_ && color) out_ << color << text << kReset;
  else out_ << text;
}

void ConsolePrinter::emit(const Event& e) {
  const Value& d = e.data;
  if (e.type == "chain_start") {
    write("\n> Entering new " + str(d, "name") + " chain...", kBold);
    out_ << "\n";
  } else if (e.type == "llm_start") {
    streamed_ = d.value("stream", false);
  } else if (e.type == "llm_token") {
    write(str(d, "text"), kBlue);
  } else if (e.type == "llm_retry") {
    out_ << "\n";
    std::string note = "Retrying (attempt " + std::to_string(d.value("attempt", 0) + 1) + ") after " +
                       str(d, "error");
    if (d.value("discarded_partial", false)) note += "; the text above is discarded";
    write(note, kRed);
    out_ << "\n";
  } else if (e.type == "agent_action") {
    if (!streamed_) write(str(d, "log"), kBlue);
  } else if (e.type == "tool_end") {
    out_ << "\n" << str(d, "observation_prefix");
    write(str(d, "observation"), d.contains("error") ? kRed : nullptr);
    out_ << "\n" << str(d, "llm_prefix");
  } else if (e.type == "parse_error") {
    if (!streamed_) write(str(d, "text"), kBlue);
    out_ << "\n";
    write("Parse error: " + str(d, "message"), kRed);
    out_ << "\n";
  } else if (e.type == "tool_log") {
    out_ << "\n[" << str(d, "tool") << "] " << str(d, "message");
  } else if (e.type == "agent_finish") {
    if (!streamed_) write(str(d, "log"), kGreen);
  } else if (e.type == "early_stop") {
    out_ << "\n";
    write("Stopped: " + str(d, "reason"), kRed);
  } else if (e.type == "error") {
    out_ << "\n";
    write("Error: " + str(d, "message"), kRed);
  } else if (e.type == "chain_end") {
    out_ << "\n\n";
    write("> Finished chain.", kBold);
    out_ << "\n";
  }
  out_.flush();
}

}  // namespace engine::trace
