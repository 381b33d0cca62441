#include "engine/tools/lua/lua_arena.h"

#include <cstdlib>
#include <new>

namespace engine::tools::lua {

void LuaArena::FreeBlock::operator()(std::byte* p) const { std::free(p); }

LuaArena::LuaArena() : block_(static_cast<std::byte*>(std::malloc(kBlockBytes))) {
  if (!block_) throw std::bad_alloc();
}

void* LuaArena::allocate(size_t bytes) {
  if (bytes == 0 || bytes > kLargest) return nullptr;
  size_t slot = slot_of(bytes);
  if (FreeSlot* reused = free_[slot]) {
    free_[slot] = reused->next;
    return reused;
  }
  size_t size = slot * kGrain;
  if (kBlockBytes - top_ < size) return nullptr;
  void* p = block_.get() + top_;
  top_ += size;
  return p;
}

void LuaArena::release(void* p, size_t bytes) {
  size_t slot = slot_of(bytes);
  free_[slot] = new (p) FreeSlot{free_[slot]};
}

}  // namespace engine::tools::lua
