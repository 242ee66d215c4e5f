// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg | FileCheck %s

// Tests that a float unary op becomes one parallel linalg.generic over the
// result with the math op in its body.
// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @exp
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.exp %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[R]]
func.func @exp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mx.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that relu keeps NaN as MXNet does (x > 0 unordered-or-greater).
// CHECK-LABEL: func.func @relu
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[C:.+]] = arith.cmpf ugt, %[[IN]], %[[Z]] : f32
// CHECK: %[[S:.+]] = arith.select %[[C]], %[[IN]], %[[Z]] : f32
// CHECK: linalg.yield %[[S]]
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mx.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that integer unary ops use integer arithmetic: abs is math.absi,
// negative is 0 - x.
// CHECK-LABEL: func.func @int_unary
// CHECK: math.absi %{{.+}} : i32
// CHECK: %[[Z:.+]] = arith.constant 0 : i32
// CHECK: arith.subi %[[Z]], %{{.+}} : i32
func.func @int_unary(%x: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>) {
  %0 = mx.abs %x : (tensor<5xi32>) -> tensor<5xi32>
  %1 = mx.negative %x : (tensor<5xi32>) -> tensor<5xi32>
  return %0, %1 : tensor<5xi32>, tensor<5xi32>
}

// -----

// Tests that sigmoid is 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sigmoid
// CHECK: %[[N:.+]] = arith.negf %{{.+}} : f64
// CHECK: %[[E:.+]] = math.exp %[[N]] : f64
// CHECK: %[[D:.+]] = arith.addf %{{.+}}, %[[E]] : f64
// CHECK: arith.divf %{{.+}}, %[[D]] : f64
func.func @sigmoid(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = mx.sigmoid %x : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// Tests that elemwise_add reads both operands with the identity map.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @elemwise_add
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK: arith.addf
func.func @elemwise_add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mx.elemwise_add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests numpy broadcasting: a lower-rank operand is right-aligned (rank
// padding) and an extent-1 axis reads index 0 on both sides.
// CHECK-DAG: #[[L:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[R:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[O:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_both
// CHECK: linalg.generic {indexing_maps = [#[[L]], #[[R]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x1x4xf32>, tensor<3x1xf32>) outs(%{{.+}} : tensor<2x3x4xf32>)
// CHECK: arith.subf
func.func @broadcast_both(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = mx.broadcast_sub %a, %b : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Tests that a broadcast comparison gives 1 / 0 in the input's type.
// CHECK-LABEL: func.func @broadcast_greater
// CHECK: %[[C:.+]] = arith.cmpf ogt, %{{.+}}, %{{.+}} : f32
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.select %[[C]], %[[ONE]], %[[ZERO]] : f32
func.func @broadcast_greater(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = mx.broadcast_greater %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that not_equal on floats is unordered (NaN != NaN is true).
// CHECK-LABEL: func.func @broadcast_not_equal
// CHECK: arith.cmpf une
func.func @broadcast_not_equal(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = mx.broadcast_not_equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that integer division guards against a zero divisor (0, as NumPy)
// and that maximum / minimum on floats propagate NaN.
// CHECK-LABEL: func.func @int_div
// CHECK: %[[Z:.+]] = arith.constant 0 : i32
// CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[B:.+]], %[[Z]] : i32
// CHECK: %[[SAFE:.+]] = arith.select %[[IS0]], %{{.+}}, %[[B]] : i32
// CHECK: %[[Q:.+]] = arith.divsi %{{.+}}, %[[SAFE]] : i32
// CHECK: arith.select %[[IS0]], %[[Z]], %[[Q]] : i32
// CHECK: arith.maximumf
func.func @int_div(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  %0 = mx.broadcast_div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = mx.broadcast_maximum %c, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xi32>, tensor<4xf32>
}

// -----

// Tests that integer power goes through powf on f32 as MXNet's math::pow.
// CHECK-LABEL: func.func @int_power
// CHECK: %[[X:.+]] = arith.sitofp %{{.+}} : i32 to f32
// CHECK: %[[Y:.+]] = arith.sitofp %{{.+}} : i32 to f32
// CHECK: %[[P:.+]] = math.powf %[[X]], %[[Y]] : f32
// CHECK: arith.fptosi %[[P]] : f32 to i32
func.func @int_power(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = mx.broadcast_power %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Tests that a scalar op converts its scalar to the element type and that
// the reversed forms put the scalar first.
// CHECK-LABEL: func.func @scalars
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[S:.+]] = arith.constant 2.500000e+00 : f32
// CHECK: arith.subf %[[S]], %[[IN]] : f32
// CHECK: ^bb0(%[[IN2:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[S2:.+]] = arith.constant 3.000000e+00 : f32
// CHECK: math.powf %[[S2]], %[[IN2]] : f32
// CHECK: ^bb0(%[[IN3:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[S3:.+]] = arith.constant 4.000000e+00 : f32
// CHECK: arith.divf %[[IN3]], %[[S3]] : f32
func.func @scalars(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = mx._rminus_scalar %x {is_int = false, scalar = 2.500000e+00 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = mx._rpower_scalar %x {scalar = 3.000000e+00 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  %2 = mx._div_scalar %x {scalar = 4.000000e+00 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Tests that an integer tensor with a non-integer scalar computes in f64
// (MXNet casts the input to the f64 result type first).
// CHECK-LABEL: func.func @int_scalar_promotes
// CHECK: ^bb0(%[[IN:.+]]: i32, %{{.+}}: f64):
// CHECK: %[[X:.+]] = arith.sitofp %[[IN]] : i32 to f64
// CHECK: %[[S:.+]] = arith.constant 5.000000e-01 : f64
// CHECK: arith.mulf %[[X]], %[[S]] : f64
func.func @int_scalar_promotes(%x: tensor<3xi32>) -> tensor<3xf64> {
  %0 = mx._mul_scalar %x {is_int = false, scalar = 5.000000e-01 : f64} : (tensor<3xi32>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// Tests that Activation softrelu is x beyond 20 and log1p(exp(x)) below.
// CHECK-LABEL: func.func @softrelu
// CHECK: %[[T:.+]] = arith.constant 2.000000e+01 : f32
// CHECK: %[[BIG:.+]] = arith.cmpf ogt, %[[IN:.+]], %[[T]] : f32
// CHECK: %[[E:.+]] = math.exp %[[IN]] : f32
// CHECK: %[[L:.+]] = math.log1p %[[E]] : f32
// CHECK: arith.select %[[BIG]], %[[IN]], %[[L]] : f32
func.func @softrelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mx.Activation %x {act_type = "softrelu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that Activation softsign is x / (1 + |x|).
// CHECK-LABEL: func.func @softsign
// CHECK: %[[A:.+]] = math.absf %[[IN:.+]] : f32
// CHECK: %[[D:.+]] = arith.addf %{{.+}}, %[[A]] : f32
// CHECK: arith.divf %[[IN]], %[[D]] : f32
func.func @softsign(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mx.Activation %x {act_type = "softsign"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that prelu reads gamma along axis 1 of the data.
// CHECK-DAG: #[[D:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[G:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @prelu
// CHECK: linalg.generic {indexing_maps = [#[[D]], #[[G]], #[[D]]], {{.*}} ins(%arg0, %arg1 : tensor<2x4x3x3xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[GM:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[POS:.+]] = arith.cmpf ogt, %[[X]], %{{.+}} : f32
// CHECK: %[[M:.+]] = arith.mulf %[[X]], %[[GM]] : f32
// CHECK: arith.select %[[POS]], %[[X]], %[[M]] : f32
func.func @prelu(%x: tensor<2x4x3x3xf32>, %g: tensor<4xf32>) -> tensor<2x4x3x3xf32> {
  %0 = mx.LeakyReLU %x, %g {act_type = "prelu"} : (tensor<2x4x3x3xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}

// -----

// Tests that a single-element gamma is read at index 0 for every element.
// CHECK-DAG: #[[G:.+]] = affine_map<(d0, d1) -> (0)>
// CHECK-LABEL: func.func @prelu_scalar_gamma
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[G]], #{{.+}}]
func.func @prelu_scalar_gamma(%x: tensor<2x4xf32>, %g: tensor<1xf32>) -> tensor<2x4xf32> {
  %0 = mx.LeakyReLU %x, %g {act_type = "prelu"} : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that rrelu in inference is leaky with the mean slope
// (0.125 + 0.334) / 2 and that its mask holds that slope.
// CHECK-LABEL: func.func @rrelu
// CHECK: %[[SLOPE:.+]] = arith.constant 2.295000e-01 : f32
// CHECK: %[[MASK:.+]] = linalg.fill ins(%[[SLOPE]] : f32)
// CHECK: %[[OUT:.+]] = linalg.generic
// CHECK: arith.constant 2.295000e-01 : f32
// CHECK: arith.mulf
// CHECK: return %[[OUT]], %[[MASK]]
func.func @rrelu(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0, %1 = mx.LeakyReLU %x {act_type = "rrelu"} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Tests elu (slope * expm1(x) below 0), selu (scaled elu with MXNet's
// float constants) and gelu (erf form).
// CHECK-LABEL: func.func @elu_selu_gelu
// CHECK: %[[A:.+]] = arith.constant 3.000000e-01 : f32
// CHECK: %[[E:.+]] = math.expm1 %{{.+}} : f32
// CHECK: arith.mulf %[[A]], %[[E]] : f32
// CHECK: arith.constant 1.67326319 : f32
// CHECK: math.expm1
// CHECK: arith.constant 1.05070102 : f32
// CHECK: %[[R2:.+]] = arith.constant 1.41421354 : f32
// CHECK: %[[S:.+]] = arith.divf %{{.+}}, %[[R2]] : f32
// CHECK: math.erf %[[S]] : f32
func.func @elu_selu_gelu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = mx.LeakyReLU %x {act_type = "elu", slope = 3.000000e-01 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = mx.LeakyReLU %x {act_type = "selu"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = mx.LeakyReLU %x {act_type = "gelu"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that clip is x > hi ? hi : (x < lo ? lo : x), bounds in the
// element type.
// CHECK-LABEL: func.func @clip
// CHECK: ^bb0(%[[X:.+]]: i32, %{{.+}}: i32):
// CHECK: %[[LO:.+]] = arith.constant 0 : i32
// CHECK: %[[HI:.+]] = arith.constant 6 : i32
// CHECK: %[[GT:.+]] = arith.cmpi sgt, %[[X]], %[[HI]] : i32
// CHECK: %[[LT:.+]] = arith.cmpi slt, %[[X]], %[[LO]] : i32
// CHECK: %[[L:.+]] = arith.select %[[LT]], %[[LO]], %[[X]] : i32
// CHECK: arith.select %[[GT]], %[[HI]], %[[L]] : i32
func.func @clip(%x: tensor<5xi32>) -> tensor<5xi32> {
  %0 = mx.clip %x {a_max = 6.500000e+00 : f64, a_min = 0.000000e+00 : f64} : (tensor<5xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

// Tests that where with a 1-D condition picks rows, a non-zero float
// condition meaning true.
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @where_rows
// CHECK: linalg.generic {indexing_maps = [#[[C]], #[[ID]], #[[ID]], #[[ID]]]
// CHECK: ^bb0(%[[CV:.+]]: f32, %[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[NZ:.+]] = arith.cmpf une, %[[CV]], %{{.+}} : f32
// CHECK: arith.select %[[NZ]], %[[X]], %[[Y]] : f32
func.func @where_rows(%c: tensor<2xf32>, %x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mx.where %c, %x, %y : (tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that zeros_like and ones_like are fills of the input's shape.
// CHECK-LABEL: func.func @fills
// CHECK: %[[Z:.+]] = arith.constant 0 : i64
// CHECK: linalg.fill ins(%[[Z]] : i64) outs(%{{.+}} : tensor<2x3xi64>)
// CHECK: %[[O:.+]] = arith.constant 1 : i64
// CHECK: linalg.fill ins(%[[O]] : i64) outs(%{{.+}} : tensor<2x3xi64>)
func.func @fills(%x: tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>) {
  %0 = mx.zeros_like %x : (tensor<2x3xi64>) -> tensor<2x3xi64>
  %1 = mx.ones_like %x : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %0, %1 : tensor<2x3xi64>, tensor<2x3xi64>
}

// -----

// Tests Cast: ui8 is read as signless i8 and zero-extended to float; a
// float to bool cast is x != 0; f16 to bf16 goes through f32.
// CHECK-LABEL: func.func @casts
// CHECK: ^bb0(%[[U:.+]]: ui8, %{{.+}}: f32):
// CHECK: %[[S:.+]] = builtin.unrealized_conversion_cast %[[U]] : ui8 to i8
// CHECK: arith.uitofp %[[S]] : i8 to f32
// CHECK: arith.cmpf une, %{{.+}}, %{{.+}} : f32
// CHECK: %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: arith.truncf %[[W]] : f32 to bf16
func.func @casts(%u: tensor<4xui8>, %f: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xbf16>) {
  %0 = mx.Cast %u {dtype = "float32"} : (tensor<4xui8>) -> tensor<4xf32>
  %1 = mx.Cast %f {dtype = "bool"} : (tensor<4xf32>) -> tensor<4xi1>
  %2 = mx.Cast %h {dtype = "bfloat16"} : (tensor<4xf16>) -> tensor<4xbf16>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi1>, tensor<4xbf16>
}

// -----

// Tests that a float to ui8 cast converts unsigned and casts back to ui8.
// CHECK-LABEL: func.func @cast_to_ui8
// CHECK: %[[I:.+]] = arith.fptoui %{{.+}} : f32 to i8
// CHECK: %[[U:.+]] = builtin.unrealized_conversion_cast %[[I]] : i8 to ui8
// CHECK: linalg.yield %[[U]] : ui8
func.func @cast_to_ui8(%f: tensor<4xf32>) -> tensor<4xui8> {
  %0 = mx.Cast %f {dtype = "uint8"} : (tensor<4xf32>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Tests that identity and BlockGrad forward their input and that Dropout in
// inference is the identity with a mask of ones.
// CHECK-LABEL: func.func @pass_through
// CHECK-NOT: linalg.generic
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[MASK:.+]] = linalg.fill ins(%[[ONE]] : f32)
// CHECK: return %arg0, %arg0, %arg0, %[[MASK]]
func.func @pass_through(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = mx.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mx.BlockGrad %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2, %3 = mx.Dropout %x {p = 5.000000e-01 : f64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
