#include "engine/core/fiber_context.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)

// engine_fiber_switch(void** save_sp, void* load_sp): pushes the callee-saved registers and the SSE and x87 control
// words, stores the stack pointer, loads the other, and pops its registers in the reverse order. `ret` then goes
// where that stack was switched away, or, for a new one, to its entry function.
asm(R"(
  .pushsection .text
  .globl engine_fiber_switch
  .hidden engine_fiber_switch
  .type engine_fiber_switch, @function
engine_fiber_switch:
  .cfi_startproc
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $16, %rsp
  stmxcsr 8(%rsp)
  fnstcw 12(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr 8(%rsp)
  fldcw 12(%rsp)
  addq $16, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .cfi_endproc
  .size engine_fiber_switch, .-engine_fiber_switch
  .popsection
)");

extern "C" void engine_fiber_switch(void** save_sp, void* load_sp);

namespace engine::fiber_detail {

void make_context(Context& c, void* bottom, size_t size, void (*entry)()) {
  // From the top down: a null return address, which ends a backtrace at the entry function; the entry function,
  // where the first switch's `ret` goes (leaving the stack aligned as after a call); six registers, all zero; the
  // control words at their defaults.
  auto top = (reinterpret_cast<uintptr_t>(bottom) + size) & ~uintptr_t{15};
  auto* slot = reinterpret_cast<uint64_t*>(top);
  *--slot = 0;
  *--slot = reinterpret_cast<uint64_t>(entry);
  for (int i = 0; i < 6; ++i) *--slot = 0;
  slot -= 2;
  uint32_t mxcsr = 0x1F80;
  uint16_t fpu_control = 0x037F;
  std::memcpy(reinterpret_cast<char*>(slot) + 8, &mxcsr, sizeof mxcsr);
  std::memcpy(reinterpret_cast<char*>(slot) + 12, &fpu_control, sizeof fpu_control);
  c.sp = slot;
}

void switch_context(Context& from, Context& to) { engine_fiber_switch(&from.sp, to.sp); }

}  // namespace engine::fiber_detail

#else

namespace engine::fiber_detail {

void make_context(Context& c, void* bottom, size_t size, void (*entry)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = bottom;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}

void switch_context(Context& from, Context& to) { swapcontext(&from.uc, &to.uc); }

}  // namespace engine::fiber_detail

#endif
