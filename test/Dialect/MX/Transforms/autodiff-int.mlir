// RUN: mxc-opt %s --split-input-file --mx-autodiff='wrt=x,idx' | FileCheck %s
// RUN: mxc-opt %s --split-input-file --mx-autodiff | FileCheck %s --check-prefix=DEFAULT

// An integer argument asked for by name gets a gradient in its own type, as
// MXNet computes it: through Cast the head gradient cast back; an index
// operand gets zeros. By default (every param) only floats get gradients.

// CHECK-LABEL: func.func @main
// CHECK-SAME: -> (tensor<2xf32> {mx.name = "out"}, tensor<2xi32> {mx.kind = "grad", mx.name = "x_grad"}, tensor<2xi32> {mx.kind = "grad", mx.name = "idx_grad"})
// CHECK: mx.Cast %{{.*}} {dtype = "int32"} : (tensor<2xf32>) -> tensor<2xi32>
// CHECK: mx.zeros_like %{{.*}} : (tensor<2xi32>) -> tensor<2xi32>
// DEFAULT-LABEL: func.func @main
// DEFAULT-SAME: -> (tensor<2xf32> {mx.name = "out"})
func.func @main(%x: tensor<2xi32> {mx.kind = "param", mx.name = "x"}, %idx: tensor<2xi32> {mx.kind = "param", mx.name = "idx"}) -> (tensor<2xf32> {mx.name = "out"}) {
  %0 = mx.Cast %x {dtype = "float32"} : (tensor<2xi32>) -> tensor<2xf32> loc("c")
  %1 = mx.take %0, %idx {axis = 0 : i64} : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32> loc("t")
  return %1 : tensor<2xf32>
}

// -----

// Integer arithmetic (+, -, *, a scalar's + - *, sum) differentiates in the
// integer type, as MXNet's kernels do.

// CHECK-LABEL: func.func @main
// CHECK-SAME: tensor<2xi32> {mx.kind = "grad", mx.name = "x_grad"}
// CHECK: mx.elemwise_mul {{.*}} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// CHECK: mx._mul_scalar {{.*}} : (tensor<2xi32>) -> tensor<2xi32>
// CHECK: return {{.*}} : tensor<1xi32>, tensor<2xi32>, tensor<2xi32>
func.func @main(%x: tensor<2xi32> {mx.kind = "param", mx.name = "x"}, %idx: tensor<2xi32> {mx.kind = "param", mx.name = "idx"}) -> (tensor<1xi32> {mx.name = "out"}) {
  %0 = mx.elemwise_mul %x, %idx : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = mx._mul_scalar %0 {scalar = 3.0 : f64, is_int = true} : (tensor<2xi32>) -> tensor<2xi32>
  %2 = mx.sum %1 : (tensor<2xi32>) -> tensor<1xi32>
  return %2 : tensor<1xi32>
}
