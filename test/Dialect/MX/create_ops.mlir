// RUN: mxc-opt %s --allow-unregistered-dialect --split-input-file --test-mx-create-ops --verify-diagnostics | FileCheck %s

// The importer's path: MXNet operator name (or alias) + attribute strings ->
// lookupMXNetOp, parseMXNetAttr, createMXOp (inferred result types); every
// attribute is printed back with printMXNetAttr into `mx_test.printed`.

// Tests that MXNet's spellings of shapes and bools parse, defaults stay
// absent, and attributes print back as MXNet writes them.
// CHECK-LABEL: func.func @convolution
// CHECK: mx.Convolution %{{.*}}, %{{.*}}, %{{.*}} {kernel = array<i64: 3, 3>, layout = "NCHW", mx_test.printed = {kernel = "(3, 3)", layout = "NCHW", no_bias = "False", num_filter = "8", pad = "(1, 1)", stride = "(1, 1)"}, num_filter = 8 : i64, pad = array<i64: 1, 1>, stride = array<i64: 1, 1>}
// CHECK-SAME: -> tensor<1x8x8x8xf32>
func.func @convolution(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = "mx_test.create"(%x, %w, %b) {op = "Convolution", attrs = {kernel = "(3,3)", num_filter = "8", pad = "[1, 1]", no_bias = "false", layout = "NCHW", stride = "(1, 1)"}} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// Tests that aliases resolve to the canonical op and that results are
// inferred when the test op declares none.
// CHECK-LABEL: func.func @aliases
// CHECK: mx.elemwise_add %{{.*}}, %{{.*}} {mx_test.printed = {}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: mx.identity %{{.*}} {mx_test.printed = {}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: mx.identity %{{.*}} {mx_test.printed = {}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: mx.BlockGrad
// CHECK: mx.Reshape %{{.*}} {mx_test.printed = {reverse = "False", shape = "(0, -1)"}, shape = array<i64: 0, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: mx._plus_scalar %{{.*}} {is_int = false, mx_test.printed = {is_int = "False", scalar = "0.001"}, scalar = 1.000000e-03 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @aliases(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  %0 = "mx_test.create"(%a, %b) {op = "_Plus", attrs = {}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "mx_test.create"(%0) {op = "_copy", attrs = {}} : (tensor<2x3xf32>) -> ()
  "mx_test.create"(%0) {op = "identity", attrs = {}} : (tensor<2x3xf32>) -> ()
  "mx_test.create"(%0) {op = "stop_gradient", attrs = {}} : (tensor<2x3xf32>) -> ()
  "mx_test.create"(%0) {op = "reshape", attrs = {shape = "(0, -1)", reverse = "0"}} : (tensor<2x3xf32>) -> ()
  "mx_test.create"(%0) {op = "_PlusScalar", attrs = {scalar = "0.001", is_int = "False"}} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// Tests float spellings (Python repr: "1e-05", "0.9", "-inf"), "1" for True
// and multi-result ops.
// CHECK-LABEL: func.func @batch_norm
// CHECK: mx.BatchNorm {{.*}}mx_test.printed = {eps = "1e-05", fix_gamma = "True", momentum = "0.9"}
// CHECK-SAME: -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: mx.clip {{.*}}mx_test.printed = {a_max = "inf", a_min = "-inf"}
// CHECK: mx.one_hot {{.*}}mx_test.printed = {depth = "3", dtype = "int64", off_value = "-1.5", on_value = "1e+16"}
// CHECK-SAME: -> tensor<4x3xi64>
func.func @batch_norm(%x: tensor<2x4x3x3xf32>, %g: tensor<4xf32>, %i: tensor<4xf32>) {
  %0:3 = "mx_test.create"(%x, %g, %g, %g, %g) {op = "BatchNorm", attrs = {eps = "1e-05", momentum = "0.9", fix_gamma = "1"}} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  "mx_test.create"(%x) {op = "clip", attrs = {a_min = "-inf", a_max = "inf"}} : (tensor<2x4x3x3xf32>) -> ()
  "mx_test.create"(%i) {op = "one_hot", attrs = {depth = "3", dtype = "int64", on_value = "1e16", off_value = "-1.5"}} : (tensor<4xf32>) -> ()
  return
}

// -----

// Tests that "None" leaves an optional attribute absent and that the
// number of results follows the attributes (rrelu has a mask).
// CHECK-LABEL: func.func @optional
// CHECK: mx.slice_axis %{{.*}} {axis = 1 : i64, begin = 1 : i64, mx_test.printed = {axis = "1", begin = "1"}} : (tensor<2x5xf32>) -> tensor<2x4xf32>
// CHECK: mx.sum %{{.*}} {mx_test.printed = {}} : (tensor<2x5xf32>) -> tensor<1xf32>
// CHECK: mx.LeakyReLU %{{.*}} {act_type = "rrelu", mx_test.printed = {act_type = "rrelu"}} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>)
func.func @optional(%x: tensor<2x5xf32>) {
  "mx_test.create"(%x) {op = "slice_axis", attrs = {axis = "1", begin = "1", end = "None"}} : (tensor<2x5xf32>) -> ()
  "mx_test.create"(%x) {op = "sum", attrs = {axis = "None"}} : (tensor<2x5xf32>) -> ()
  "mx_test.create"(%x) {op = "LeakyReLU", attrs = {act_type = "rrelu"}} : (tensor<2x5xf32>) -> ()
  return
}

// -----

func.func @unknown_op(%x: tensor<2xf32>) {
  // expected-error @+1 {{unknown MXNet operator '_contrib_DeformablePSROIPooling'}}
  "mx_test.create"(%x) {op = "_contrib_DeformablePSROIPooling", attrs = {}} : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @bad_shape_string(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'kernel': expected a shape like (3, 3), got '(3, x)'}}
  "mx_test.create"(%x) {op = "Pooling", attrs = {kernel = "(3, x)"}} : (tensor<1x3x8x8xf32>) -> ()
  return
}

// -----

func.func @bad_enum_string(%x: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'act_type': expected one of relu, sigmoid, tanh, softrelu, softsign, got 'swish'}}
  "mx_test.create"(%x) {op = "Activation", attrs = {act_type = "swish"}} : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @none_for_required(%x: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'a_min': None is not allowed}}
  "mx_test.create"(%x) {op = "clip", attrs = {a_min = "None", a_max = "1"}} : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @bad_bool_and_int(%x: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'keepdims': expected True or False, got 'yes'}}
  "mx_test.create"(%x) {op = "sum", attrs = {keepdims = "yes"}} : (tensor<2xf32>) -> ()
  // expected-error @+1 {{attribute 'axis': expected an integer, got '1.5'}}
  "mx_test.create"(%x) {op = "argmax", attrs = {axis = "1.5"}} : (tensor<2xf32>) -> ()
  // expected-error @+1 {{attribute 'scalar': expected a number, got '1e'}}
  "mx_test.create"(%x) {op = "_mul_scalar", attrs = {scalar = "1e"}} : (tensor<2xf32>) -> ()
  return
}

// -----

// Tests that createMXOp checks required attributes and the operand count.
func.func @missing(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{'mx.Convolution' op requires attribute 'num_filter'}}
  "mx_test.create"(%x, %w) {op = "Convolution", attrs = {kernel = "(3, 3)", no_bias = "True"}} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> ()
  // expected-error @+1 {{'mx.Convolution' op expects 2 to 3 inputs, got 1}}
  "mx_test.create"(%x) {op = "Convolution", attrs = {kernel = "(3, 3)", num_filter = "8"}} : (tensor<1x3x8x8xf32>) -> ()
  return
}

// -----

// Tests that an inference failure is reported at the node and leaves no op.
// CHECK-LABEL: func.func @inference_failure
// CHECK-NOT: mx.Convolution
// CHECK: "mx_test.create"
// CHECK-NOT: mx.Convolution
func.func @inference_failure(%x: tensor<1x3x8x8xf32>, %w: tensor<8x2x3x3xf32>) {
  // expected-error @+1 {{'mx.Convolution' op weight shape (8, 2, 3, 3) does not match expected (8, 3, 3, 3)}}
  "mx_test.create"(%x, %w) {op = "Convolution", attrs = {kernel = "(3, 3)", num_filter = "8", no_bias = "True"}} : (tensor<1x3x8x8xf32>, tensor<8x2x3x3xf32>) -> ()
  return
}

// -----

// Tests that a verifier failure is reported and leaves no op.
// CHECK-LABEL: func.func @verifier_failure
// CHECK-NOT: mx.Dropout
// CHECK: "mx_test.create"
// CHECK-NOT: mx.Dropout
func.func @verifier_failure(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mx.Dropout' op p must be in [0, 1], got 1.5}}
  "mx_test.create"(%x) {op = "Dropout", attrs = {p = "1.5"}} : (tensor<4xf32>) -> ()
  return
}

// -----

// Tests that element types are checked by the op's constraints.
func.func @int_conv(%x: tensor<1x3x8x8xi32>, %w: tensor<8x3x3x3xi32>) {
  // expected-error @+1 {{'mx.Convolution' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  "mx_test.create"(%x, %w) {op = "Convolution", attrs = {kernel = "(3, 3)", num_filter = "8", no_bias = "True"}} : (tensor<1x3x8x8xi32>, tensor<8x3x3x3xi32>) -> ()
  return
}
