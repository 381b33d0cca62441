#include "engine/core/priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace engine {
namespace {

// On Linux a thread's niceness is its own: PRIO_PROCESS with the thread's id names it alone.
id_t this_thread() { return static_cast<id_t>(syscall(SYS_gettid)); }

}  // namespace

int current_niceness() {
  errno = 0;
  int n = getpriority(PRIO_PROCESS, this_thread());
  return errno ? 0 : n;
}

bool lower_priority(int niceness) {
  if (niceness <= current_niceness()) return true;
  return setpriority(PRIO_PROCESS, this_thread(), niceness) == 0;
}

}  // namespace engine
