#pragma once
// Where a sandbox's small Lua objects live. Opening the libraries makes hundreds of small allocations, and every
// run builds its own states: from one block per state they cost a single malloc, and closing the state returns
// them at once, instead of a malloc and a free each on heaps the other fibers' threads share.
#include <cstddef>
#include <memory>

namespace engine::tools::lua {

class LuaArena {
 public:
  static constexpr size_t kBlockBytes = 32 << 10;  // a fresh state with its libraries takes 16 KB
  static constexpr size_t kGrain = 16;             // what malloc aligns to
  static constexpr size_t kLargest = 512;          // bigger objects (and the rest once the block is used) go to malloc

  LuaArena();

  // Null when the arena cannot serve `bytes`; the caller falls back to malloc.
  void* allocate(size_t bytes);
  // `bytes` is the size the object was allocated with (Lua always knows it).
  void release(void* p, size_t bytes);
  bool owns(const void* p) const {
    auto* b = static_cast<const std::byte*>(p);
    return b >= block_.get() && b < block_.get() + kBlockBytes;
  }
  // Whether an object of `from` bytes may stay where it is at `to` bytes.
  static bool same_slot(size_t from, size_t to) { return to <= kLargest && slot_of(from) == slot_of(to); }

 private:
  static size_t slot_of(size_t bytes) { return (bytes + kGrain - 1) / kGrain; }
  struct FreeSlot {
    FreeSlot* next;
  };
  struct FreeBlock {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte[], FreeBlock> block_;
  size_t top_ = 0;
  FreeSlot* free_[kLargest / kGrain + 1] = {};  // freed slots by size, reused before the block's untouched end
};

}  // namespace engine::tools::lua
