// profiler_env_helper.cc - pushes four operations named "helper-op" on the
// default engine and exits without touching the profiler: with MXC_PROFILE
// or MXNET_PROFILER_AUTOSTART=1 in its environment, the runtime writes the
// trace at exit (profiler_test.cc reads it).
#include "mxc/runtime/engine.h"

int main() {
  using namespace mxc::runtime;
  Engine &engine = defaultEngine();
  VarHandle v = engine.newVar();
  for (int i = 0; i < 4; ++i)
    engine.pushSync([](RunContext) {}, Device::cpu(), {}, {v}, FnProperty::Normal, 0,
                    "helper-op");
  // No wait: the default engine finishes them at exit, before the trace is
  // written (and deletes the variable after them).
  engine.deleteVar(v);
  return 0;
}
