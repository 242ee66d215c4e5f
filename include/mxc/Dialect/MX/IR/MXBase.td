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

// Element types are MXNet's data types: float32 f32, float64 f64, float16
// f16, bfloat16 bf16, uint8 ui8, int8 i8, int32 i32, int64 i64, bool i1.
def MX_Tensor : RankedTensorOf<[F16, BF16, F32, F64, UI8, I8, I32, I64, I1]>;

// The floating-point subset, for layers and transcendental functions.
def MX_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;

#endif // MXC_DIALECT_MX_IR_MXBASE_TD
