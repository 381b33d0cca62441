#pragma once
// A process that mostly waits for a server can still take the CPU that server needs: a batch's thousand runs start
// together on the cores a local model server (Ollama, llama.cpp) also runs on. Lowering the batch's priority lets
// the server have the CPU first when both want it, and costs nothing when only one does.
namespace engine {

// Lowers the calling thread's priority to `niceness` (Linux nice, 0 to 19); threads it starts afterwards inherit
// it. Never raises a priority already lower. False when the system refused.
bool lower_priority(int niceness);

// The calling thread's niceness.
int current_niceness();

}  // namespace engine
