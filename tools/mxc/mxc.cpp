//===- mxc.cpp - the mxc command-line driver -----------------------------===//
#include "mxc/Compiler/Driver.h"

int main(int argc, char **argv) { return mxc::driverMain(argc, argv); }
