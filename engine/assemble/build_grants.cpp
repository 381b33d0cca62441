#include "engine/assemble/build_grants.h"

#include "engine/assemble/spec_errors.h"
#include "engine/core/error.h"
#include "engine/tools/document_search.h"

namespace engine::assemble {

namespace {

// The grants' header values the load took for secrets (read through ${VAR}, or of a credential-named header): a
// response that quotes one back has it masked before the tool reads it.
std::vector<std::string> grant_secrets(const spec::AllowSpec& allow, const SecretSet* secrets) {
  std::vector<std::string> out;
  for (const auto& h : allow.http)
    for (const auto& [name, value] : h.headers)
      if (secrets && secrets->holds(value)) out.push_back(value);
  return out;
}

}  // namespace

tools::Capabilities build_capabilities(const spec::AllowSpec& allow, const spec::WorkflowSpec& s, const std::string& path,
                                       const std::shared_ptr<net::IoThreads>& io) {
  tools::Grants grants;
  for (size_t i = 0; i < allow.http.size(); ++i) {
    const auto& h = allow.http[i];
    std::string why;
    auto url = net::parse_url(h.url.value, &why);
    if (!url)
      throw Error(ErrorKind::SpecBadValue, path + ".allow.http[" + std::to_string(i) + "].url: the URL " + why, h.url.loc,
                  quoted_line(s, h.url.loc));
    grants.http.push_back(tools::HttpGrant{h.url.value, std::move(*url), h.methods, h.headers,
                                           static_cast<size_t>(h.max_bytes)});
  }
  for (const auto& f : allow.files)
    grants.files.push_back(tools::FileGrant{f.root_dir, f.root.value, f.write, static_cast<size_t>(f.max_bytes)});
  SourceLoc at = !allow.files.empty() ? allow.files.front().root.loc : SourceLoc{};
  try {
    return tools::Capabilities::granted(std::move(grants), grant_secrets(allow, s.secrets.get()), io);
  } catch (const Error& e) {
    throw Error(e.kind(), path + ".allow: " + e.message(), at, quoted_line(s, at));
  }
}

std::filesystem::path search_docs_index_file(const spec::ToolSpec& t, const spec::WorkflowSpec& s) {
  if (!t.index_file.empty()) return t.index_file;
  return tools::default_index_file(s.dir, t.allow.files.empty() ? s.dir : t.allow.files.front().root_dir);
}

tools::lua::LuaLimits granted_limits(tools::lua::LuaLimits limits, const spec::LuaLimitsSpec& given,
                                     const spec::AllowSpec& allow) {
  if (!allow.http.empty() && !given.timeout_given) limits.timeout = std::chrono::milliseconds(30'000);
  return limits;
}

}  // namespace engine::assemble
