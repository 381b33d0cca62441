#pragma once
// Making memory present in one call instead of one fault per page. A page's first touch traps into the kernel; in
// a VM that costs 12 to 14 µs a page on the machines measured (docs/architecture.md, "Runs in flight"), while one
// madvise(MADV_POPULATE_WRITE) over 32 KB costs 8 to 9 µs, but about 3 when the pages are there already. Worth it
// only where the engine knows the memory is fresh and about to be touched: a new fiber's stack. (Not a Lua state's
// arena: malloc mostly hands back memory that is there, and the call made every state 3.4 µs dearer.)
#include <cstddef>

namespace engine {

// Makes the whole pages inside [p, p + bytes) present and writable, keeping their contents. Does nothing on a
// kernel older than Linux 5.14, which does not know the call: the pages then come as they are touched.
void prefault(void* p, size_t bytes);

}  // namespace engine
