#include "engine/workflow/step.h"

#include <algorithm>

namespace engine::workflow {

std::vector<size_t> find_cycle(const std::vector<Step>& steps) {
  // A depth-first walk along `reads`; a step met again while still on the path closes a cycle.
  enum class Mark { New, OnPath, Done };
  std::vector<Mark> mark(steps.size(), Mark::New);
  std::vector<size_t> path;
  std::vector<size_t> cycle;
  auto visit = [&](auto& self, size_t i) -> bool {
    mark[i] = Mark::OnPath;
    path.push_back(i);
    for (size_t next : steps[i].reads) {
      if (mark[next] == Mark::OnPath) {
        cycle.assign(std::find(path.begin(), path.end(), next), path.end());
        cycle.push_back(next);
        return true;
      }
      if (mark[next] == Mark::New && self(self, next)) return true;
    }
    path.pop_back();
    mark[i] = Mark::Done;
    return false;
  };
  for (size_t i = 0; i < steps.size(); ++i)
    if (mark[i] == Mark::New && visit(visit, i)) {
      // The path was walked along reads (a reads b); a cycle reads better in the order data flows: b -> a.
      std::reverse(cycle.begin(), cycle.end());
      return cycle;
    }
  return {};
}

}  // namespace engine::workflow
