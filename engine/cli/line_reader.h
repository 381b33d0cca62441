#pragma once
// The lines `engine chat` reads: from a terminal through libedit (line editing, and the session's lines on the up
// arrow), else from stdin as they come, one message per line, so a chat can be piped and tested.
#include <string>

namespace engine::cli {

class LineReader {
 public:
  LineReader();  // a terminal when stdin is one
  // The next line without its newline; false at the end of input (Ctrl-D on a terminal).
  bool next(std::string& line);
  bool interactive() const { return interactive_; }

 private:
  bool interactive_;
};

}  // namespace engine::cli
