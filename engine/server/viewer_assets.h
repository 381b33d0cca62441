#pragma once
// The run viewer's page, script, style sheet and icon (engine/server/viewer/), compiled into the binary so `engine serve`
// needs no files beside it and no build step fetches anything.
#include <string_view>

namespace engine::server {

struct ViewerAsset {
  std::string_view name;          // "index.html", "viewer.js", "viewer.css"
  std::string_view content_type;
  std::string_view body;
};

// The asset of that name, or null.
const ViewerAsset* viewer_asset(std::string_view name);

}  // namespace engine::server
