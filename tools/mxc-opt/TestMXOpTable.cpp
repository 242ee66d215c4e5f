//===- TestMXOpTable.cpp - test pass for the MXNet op table ---------------===//
//
// `--test-mx-create-ops`: builds `mx` ops the way the importer does, from an
// MXNet operator name and attribute strings, so that lit tests cover
// lookupMXNetOp, parseMXNetAttr, printMXNetAttr and createMXOp.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mxc {
#define GEN_PASS_DEF_TESTMXCREATEOPSPASS
#include "TestPasses.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// Builds the mx op for one `mx_test.create` op; emits errors at its
/// location and returns failure when the importer would reject it.
static LogicalResult createFromTestOp(Operation *testOp) {
  auto opName = testOp->getAttrOfType<StringAttr>("op");
  auto strings = testOp->getAttrOfType<DictionaryAttr>("attrs");
  if (!opName || !strings)
    return testOp->emitError("expects 'op' (string) and 'attrs' (dictionary)");
  const mxc::mx::OpSpec *spec = mxc::mx::lookupMXNetOp(opName.getValue());
  if (!spec)
    return testOp->emitError("unknown MXNet operator '")
           << opName.getValue() << "'";

  OpBuilder b(testOp);
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute a : strings) {
    auto text = dyn_cast<StringAttr>(a.getValue());
    const mxc::mx::AttrSpec *as = spec->findAttr(a.getName());
    if (!text || !as)
      return testOp->emitError("no string attribute '")
             << a.getName().getValue() << "' in " << spec->mxnetName;
    std::string error;
    Attribute typed = mxc::mx::parseMXNetAttr(b, *as, text.getValue(), error);
    if (!typed)
      return testOp->emitError(error);
    attrs.push_back(b.getNamedAttr(a.getName(), typed));
  }

  FailureOr<Operation *> created = mxc::mx::createMXOp(
      b, testOp->getLoc(), *spec, testOp->getOperands(), attrs);
  if (failed(created))
    return failure();
  Operation *op = *created;
  if (testOp->getNumResults() &&
      testOp->getResultTypes() != op->getResultTypes()) {
    op->erase();
    return testOp->emitError(
        "inferred result types differ from the declared ones");
  }

  // Print the given attributes back in MXNet's spelling; each must parse
  // back to the same attribute.
  SmallVector<NamedAttribute> printed;
  for (const mxc::mx::AttrSpec &as : spec->attrs) {
    Attribute attr = op->getAttr(as.name);
    if (!attr || !strings.get(as.name))
      continue;
    std::string text = mxc::mx::printMXNetAttr(as, attr);
    std::string error;
    if (mxc::mx::parseMXNetAttr(b, as, text, error) != attr) {
      op->erase();
      return testOp->emitError("attribute '")
             << as.name << "' printed as '" << text
             << "' does not parse back: " << error;
    }
    printed.push_back(b.getNamedAttr(as.name, b.getStringAttr(text)));
  }
  op->setAttr("mx_test.printed", b.getDictionaryAttr(printed));
  testOp->replaceAllUsesWith(
      op->getResults().take_front(testOp->getNumResults()));
  testOp->erase();
  return success();
}

struct TestMXCreateOpsPass
    : public mxc::impl::TestMXCreateOpsPassBase<TestMXCreateOpsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> testOps;
    getOperation().walk([&](Operation *op) {
      if (op->getName().getStringRef() == "mx_test.create")
        testOps.push_back(op);
    });
    // A test op that fails stays in place (with its error reported), so that
    // tests can check that no mx op was left behind.
    for (Operation *op : testOps)
      (void)createFromTestOp(op);
  }
};

} // namespace

namespace mxc {
#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

/// Registers the test-only passes of mxc-opt.
void registerTestPasses() { registerMXCTestPasses(); }
} // namespace mxc
