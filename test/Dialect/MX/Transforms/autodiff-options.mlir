// RUN: mxc-opt %s --mx-autodiff='grad-req=add,b=null' | FileCheck %s --check-prefix=ADD
// RUN: mxc-opt %s --mx-autodiff='wrt=data' | FileCheck %s --check-prefix=WRT
// RUN: mxc-opt %s --mx-autodiff='grad-req=null' | FileCheck %s --check-prefix=NULL

// grad-req add: the previous gradient of w comes in (grad_in) and is added;
// b=null: no gradient for b.
// ADD-LABEL: func.func @main
// ADD-SAME: %[[D:[^:]*]]: tensor<4xf32> {mx.kind = "data", mx.name = "data"}
// ADD-SAME: %[[GY:[^:]*]]: tensor<4xf32> {mx.kind = "head_grad", mx.name = "y_grad"}, %[[GIN:[^:]*]]: tensor<4xf32> {mx.kind = "grad_in", mx.name = "w_grad"})
// ADD-SAME: -> (tensor<4xf32> {mx.name = "y"}, tensor<4xf32> {mx.kind = "grad", mx.name = "w_grad"})
// ADD: %[[GW:.*]] = mx.elemwise_mul %[[GY]], %[[D]]
// ADD-NEXT: %[[SUM:.*]] = mx.elemwise_add %[[GIN]], %[[GW]]
// ADD-NEXT: return %{{.*}}, %[[SUM]]

// wrt=data: only the data argument's gradient (w * head gradient).
// WRT-LABEL: func.func @main
// WRT-SAME: %[[W:[^:]*]]: tensor<4xf32> {mx.kind = "param", mx.name = "w"}
// WRT-SAME: %[[GY:[^:]*]]: tensor<4xf32> {mx.kind = "head_grad", mx.name = "y_grad"})
// WRT-SAME: -> (tensor<4xf32> {mx.name = "y"}, tensor<4xf32> {mx.kind = "grad", mx.name = "data_grad"})
// WRT: %[[GD:.*]] = mx.elemwise_mul %[[GY]], %[[W]]
// WRT-NEXT: return %{{.*}}, %[[GD]]

// grad-req=null: the forward pass in training form only, no gradients.
// NULL-LABEL: func.func @main
// NULL-SAME: -> (tensor<4xf32> {mx.name = "y"})
// NULL-NEXT: mx.elemwise_mul
// NULL-NEXT: mx.elemwise_add
// NULL-NEXT: return
func.func @main(%d: tensor<4xf32> {mx.kind = "data", mx.name = "data"}, %w: tensor<4xf32> {mx.kind = "param", mx.name = "w"}, %b: tensor<4xf32> {mx.kind = "param", mx.name = "b"}) -> (tensor<4xf32> {mx.name = "y"}) {
  %0 = mx.elemwise_mul %d, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("mul")
  %1 = mx.elemwise_add %0, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("add")
  return %1 : tensor<4xf32>
}
