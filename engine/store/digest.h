#pragma once
// SHA-256 of a text, in lowercase hex: what the journal names a recorded request and a stored value by. A short hash
// would let a value crafted by whoever controls a tool's output collide with another and be replayed in its place.
#include <string>
#include <string_view>

namespace engine::store {

std::string sha256_hex(std::string_view text);

}  // namespace engine::store
