//===- MXBase.td - mx dialect base definitions -------------*- tablegen -*-===//
//
// The `mx` dialect: one op per MXNet operator, on ranked tensors.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_DIALECT_MX_IR_MXBASE_TD
#define MXC_DIALECT_MX_IR_MXBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MX_Dialect : Dialect {
  let name = "mx";
  let cppNamespace = "::mxc::mx";
  let summary = "MXNet operators as MLIR operations";
  let description = [{
    The `mx` dialect holds one operation per MXNet operator (wave 1: the
    image-classification zoo plus the elementwise, broadcast and reduction
    core). Operations work on ranked tensors; attributes are typed and carry
    MXNet's defaults. An imported op's location is the MXNet node name, so
    every diagnostic names the node.
  }];
  let useDefaultAttributePrinterParser = 0;
}

class MX_Op<string mnemonic, list<Trait> traits = []>
    : Op<MX_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Attribute constraints shared by the generated op definitions.
//===----------------------------------------------------------------------===//

// A string attribute restricted to one of MXNet's enum spellings.
class MX_StrEnumAttr<list<string> cases>
    : ConfinedAttr<StrAttr, [AttrConstraint<
        Or<!foreach(c, cases,
             CPred<"::llvm::cast<::mlir::StringAttr>($_self).getValue() == \"" # c # "\"">)>,
        "one of " # !interleave(cases, ", ")>]>;

// An MXNet data type name (float32, float64, float16, bfloat16, uint8, int8,
// int32, int64, bool).
def MX_DTypeAttr : MX_StrEnumAttr<["float32", "float64", "float16", "bfloat16",
                                   "uint8", "int8", "int32", "int64", "bool"]>;

def MX_Tensor : RankedTensorOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger]>;

#endif // MXC_DIALECT_MX_IR_MXBASE_TD
