// exit_drain_helper.cc - returns from main with convolution steps still in
// flight on the default engine, the first oneDNN backward primitives among
// them (their lazily built statics come after the engine's). Prints "done"
// from the last step; kernels_forward_test.cc runs it and wants exit status
// 0 with "done" (the steps ran to the end before the process was torn down).
#include "../src/kernels/kernels.h"
#include "kernels_test_util.h"
#include "mxc/runtime/engine.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

int main() {
  using namespace mxc::runtime;
  struct Bufs {
    std::vector<float> x = std::vector<float>(8 * 16 * 16 * 16, 0.5f),
                       w = std::vector<float>(32 * 16 * 3 * 3, 0.25f),
                       b = std::vector<float>(32, 0.f),
                       y = std::vector<float>(8 * 32 * 16 * 16),
                       dw = std::vector<float>(32 * 16 * 3 * 3),
                       dx = std::vector<float>(8 * 16 * 16 * 16),
                       ws = std::vector<float>(16 * 9 * 16 * 16);
  };
  // Shared by the steps and never freed: the steps outlive main's locals.
  static Bufs *bufs = new Bufs;
  Engine &engine = defaultEngine();
  // Runs after the destructors of statics built later (oneDNN's, at the
  // first convolution) and before those built earlier (the engine's): like
  // a process whose teardown reuses the memory of destroyed objects (Python
  // frees its heap at exit), it fills freed memory with garbage, so a step
  // still running on oneDNN after its statics are gone fails loudly.
  std::atexit([] {
    // Never freed (freed again, the memory would be reused cleanly), and
    // reachable from a static, so LeakSanitizer sees no leak.
    static void *kept[13 * 64];
    int n = 0;
    for (size_t size = 16; size <= (size_t(1) << 16); size *= 2)
      for (int i = 0; i < 64; ++i)
        std::memset(kept[n++] = std::malloc(size), 0xA5, size);
  });
  VarHandle v = engine.newVar();
  engine.pushSync(
      [](RunContext) {
        Bufs &b = *bufs;
        mxc_kernel_conv_f32(BUF(b.x), BUF(b.w), BUF(b.b), BUF(b.y), 8, 16, 32, 1, 0, 1,
                            16, 16, 1, 3, 3, 1, 16, 16, 1, 1, 1, 0, 1, 1, 1, 1, 1);
      },
      Device::cpu(), {}, {v}, FnProperty::Normal, 0, "forward");
  engine.pushSync(
      [](RunContext) {
        // Long enough for main to be in exit() before the backward kernels
        // are first used.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        Bufs &b = *bufs;
        mxc_kernel_conv_backward_data_f32(BUF(b.w), BUF(b.y), BUF(b.dx), BUF(b.ws), 8,
                                          16, 32, 1, 1, 16, 16, 1, 3, 3, 1, 16, 16, 1,
                                          1, 1, 0, 1, 1, 1, 1, 1);
        mxc_kernel_conv_backward_weight_f32(BUF(b.x), BUF(b.y), BUF(b.dw), BUF(b.ws), 8,
                                            16, 32, 1, 1, 16, 16, 1, 3, 3, 1, 16, 16, 1,
                                            1, 1, 0, 1, 1, 1, 1, 1);
        std::printf("done\n");
        std::fflush(stdout);
      },
      Device::cpu(), {}, {v}, FnProperty::Normal, 0, "backward");
  engine.deleteVar(v);
  return 0; // no wait
}
