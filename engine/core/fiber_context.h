#pragma once
// The switch between fibers' stacks, apart from the scheduling (fiber.cpp). On x86-64 a dozen instructions save the
// callee-saved registers and swap the stack pointer: swapcontext would also save and restore the signal mask, a
// system call each way on every switch. Elsewhere it is ucontext's. Internal to core/fiber.
#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace engine::fiber_detail {

struct Context {
#if defined(__x86_64__)
  void* sp = nullptr;  // where the suspended stack's saved registers are
#else
  ucontext_t uc{};
#endif
};

// Prepares `c` so that switching to it runs `entry` (which must never return) on the stack [bottom, bottom + size).
void make_context(Context& c, void* bottom, size_t size, void (*entry)());
// Saves the running stack into `from` and resumes `to`; returns when something switches back to `from`.
void switch_context(Context& from, Context& to);

}  // namespace engine::fiber_detail
