//===- MXGradients.h - gradient rules of mx ops (internal) ------*- C++ -*-===//
//
// Each family file attaches GradientOpInterface external models to its ops
// when the dialect initialises:
//   MXGradientsTensor.cpp  elementwise, broadcast, scalar, reductions, data
//                          movement, dot / batch_dot, softmax family,
//                          SoftmaxOutput, Dropout, BatchNorm, where, Cast, ...
//   MXGradientsNN.cpp      Convolution, Pooling, LRN, FullyConnected (and the
//                          backward ops of MXBackwardOps.td they build)
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_DIALECT_MX_IR_MXGRADIENTS_H
#define MXC_LIB_DIALECT_MX_IR_MXGRADIENTS_H

namespace mxc::mx {
class MXDialect;
void registerTensorGradients(MXDialect &dialect);
void registerNNGradients(MXDialect &dialect);
} // namespace mxc::mx

#endif // MXC_LIB_DIALECT_MX_IR_MXGRADIENTS_H
