#pragma once
// Compiling a workflow's templates with their options, and checking that each reads only what it will be given.
#include <string>
#include <vector>

#include "engine/spec/workflow_spec.h"
#include "engine/template/template.h"

namespace engine::assemble {

tmpl::TemplateOptions template_options(const spec::TemplateFlags& flags);

// The names of the workflow's declared inputs, in declaration order.
std::vector<std::string> input_names(const spec::WorkflowSpec& spec);

// A template may only read declared inputs and what the engine provides; anything else is a typo that would
// otherwise surface mid-run. Throws "spec.undeclared_variable" naming `what` (the key path), located at `loc`, or,
// for a template read from its own file (`source` says), where that file reads the name.
void check_free_names(const tmpl::Template& t, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& provided, const std::string& what, const SourceLoc& loc,
                      const spec::WorkflowSpec& spec, const spec::TemplateSource* source = nullptr);

// A template of the workflow, compiled with its flags, its folder for includes and the workflow's file scope.
// Where a template written in the workflow file at `loc` (under `key_path`) sits in it, so its errors point there.
std::optional<Embedding> embedding_in(const spec::WorkflowSpec& s, const SourceLoc& loc, const std::string& key_path);

tmpl::Template compile_template(const spec::TemplateSource& src, const spec::TemplateFlags& flags,
                                const spec::WorkflowSpec& spec);

}  // namespace engine::assemble
