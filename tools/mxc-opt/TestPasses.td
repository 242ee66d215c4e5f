//===- TestPasses.td - test-only passes of mxc-opt ---------*- tablegen -*-===//
//
// Passes that exercise library entry points from lit tests; not part of any
// pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_TOOLS_MXC_OPT_TESTPASSES_TD
#define MXC_TOOLS_MXC_OPT_TESTPASSES_TD

include "mlir/Pass/PassBase.td"

def TestMXCreateOpsPass : Pass<"test-mx-create-ops", "mlir::ModuleOp"> {
  let summary = "Builds mx ops from MXNet operator names and attribute strings";
  let description = [{
    Replaces every unregistered `mx_test.create` op by the `mx` op that the
    importer would build for it: the MXNet operator `op` (any alias) with the
    MXNet attribute strings of `attrs`, through lookupMXNetOp,
    parseMXNetAttr and createMXOp (result types inferred). Declared result
    types of the test op must match the inferred ones. The created op gets
    `mx_test.printed`, every given attribute printed back in MXNet's
    spelling by printMXNetAttr (which must parse back to the same
    attribute). A test op that fails stays, with its error reported.

    ```mlir
    %0 = "mx_test.create"(%x) {op = "_copy", attrs = {}} : (tensor<2xf32>) -> tensor<2xf32>
    // becomes
    %0 = mx.identity %x {mx_test.printed = {}} : (tensor<2xf32>) -> tensor<2xf32>
    ```
  }];
}

#endif // MXC_TOOLS_MXC_OPT_TESTPASSES_TD
