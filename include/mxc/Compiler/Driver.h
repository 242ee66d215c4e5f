//===- Driver.h - the mxc command line --------------------------*- C++ -*-===//
#ifndef MXC_COMPILER_DRIVER_H
#define MXC_COMPILER_DRIVER_H

namespace mxc {
/// Runs `mxc <command> ...`; returns the process exit status (0 ok, 1 bad
/// input, 2 bad usage).
int driverMain(int argc, char **argv);
} // namespace mxc

#endif // MXC_COMPILER_DRIVER_H
