// RUN: mxc-opt %s --mx-decompose --mx-fuse-elementwise --convert-mx-to-linalg --canonicalize --cse | FileCheck %s

// A fused group whose generics read one multi-result producer through
// several operands, over several levels: BilinearSampler's composite (the
// four corners share the floored coordinates, their masks and weights).
// Fusing one operand keeps the producer for the others, so its body is
// copied into the fused op; without merging the copies as it goes, the
// lowering of mx.fused doubled them with each level and ran out of memory.
// Each coordinate is floored once.

// CHECK-LABEL: func.func @bilinear
// CHECK-COUNT-2: math.floor
// CHECK-NOT: math.floor
// CHECK: return
func.func @bilinear(%x: tensor<1x1x3x3xf32>, %g: tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %y, %t = mx.BilinearSampler %x, %g : (tensor<1x1x3x3xf32>, tensor<1x2x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x2x2x2xf32>)
  return %y : tensor<1x1x2x2xf32>
}
