#pragma once
// Which values no output of a run may show: the secrets of the workflow that is run and of every workflow it
// reaches (its workflow steps, its workflows used as tools, theirs in turn). A sub-workflow's events, answers and
// errors leave the process through the root's outputs, so the root masks them all (docs/security.md, "Secrets").
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/redact.h"
#include "engine/spec/workflow_spec.h"

namespace engine::assemble {

// The values the workflow and every workflow it reaches read as secrets: the models' keys, MCP servers' env and
// headers and grants' headers read through ${VAR}, credential-named headers.
std::vector<std::string> workflow_secrets(const spec::WorkflowSpec& spec);

// `e` with `redactor`'s secrets masked in its message: for what failed while a workflow was being built (an MCP
// server's last words on stderr may quote the key it was given).
Error masked_error(const Error& e, const Redactor& redactor);

}  // namespace engine::assemble
