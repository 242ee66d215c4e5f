#!/usr/bin/env python3
"""Writes the generated-code side of the GEMM benchmark: one MLIR module with
a linalg.matmul per shape and a transform-dialect schedule (toolchain.md's
recipe: tile for the caches, tile to an 8x32 register block, vectorize, hoist
the accumulator out of the k loop, lower the contraction to outer products,
unroll transfers).

    gen_codegen.py M,N,K:Tm,Tn,Tk [...] > gemm_codegen.mlir
    gen_codegen.py --schedule M,N,K:Tm,Tn,Tk [...] > gemm_schedule.mlir

(T: the cache tile; it must divide the shape.) The schedule is applied with
transform-preload-library + transform-interpreter (build.sh).

Each function is `mm_<M>x<N>x<K>(A: MxK, B: KxN, C: MxN)` computing C += A B
with `llvm.emit_c_interface`; C is zeroed by the caller.
"""
import sys


def func(m, n, k):
    a, b, c = f"memref<{m}x{k}xf32>", f"memref<{k}x{n}xf32>", f"memref<{m}x{n}xf32>"
    ta, tb, tc = (t.replace("memref", "tensor") for t in (a, b, c))
    return f"""
  func.func @mm_{m}x{n}x{k}(%A: {a}, %B: {b}, %C: {c}) attributes {{llvm.emit_c_interface}} {{
    %a = bufferization.to_tensor %A restrict : {a} to {ta}
    %b = bufferization.to_tensor %B restrict : {b} to {tb}
    %c = bufferization.to_tensor %C restrict writable : {c} to {tc}
    %r = linalg.matmul ins(%a, %b : {ta}, {tb}) outs(%c : {tc}) -> {tc}
    bufferization.materialize_in_destination %r in restrict writable %C : ({tc}, {c}) -> ()
    return
  }}"""


def schedule(m, n, k, t):
    name = f"mm_{m}x{n}x{k}"
    return f"""
    %f_{name} = transform.structured.match ops{{["func.func"]}} attributes {{sym_name = "{name}"}} in %root : (!transform.any_op) -> !transform.any_op
    %mm_{name} = transform.structured.match ops{{["linalg.matmul"]}} in %f_{name} : (!transform.any_op) -> !transform.any_op
    %t1_{name}, %l1_{name}:3 = transform.structured.tile_using_for %mm_{name} tile_sizes [{t[0]}, {t[1]}, {t[2]}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %t2_{name}, %l2_{name}:3 = transform.structured.tile_using_for %t1_{name} tile_sizes [8, 32, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %v_{name} = transform.structured.vectorize_children_and_apply_patterns %f_{name} : (!transform.any_op) -> !transform.any_op
    %loops_{name} = transform.structured.match ops{{["scf.for"]}} in %v_{name} : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops_{name} : !transform.any_op
    transform.apply_patterns to %v_{name} {{
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.canonicalization
    }} : !transform.any_op"""


def main(argv):
    emit_schedule = argv[:1] == ["--schedule"]
    shapes = []
    for a in argv[1 if emit_schedule else 0:]:
        dims, tiles = a.split(":")
        shapes.append((tuple(int(x) for x in dims.split(",")), tuple(int(x) for x in tiles.split(","))))
    if not emit_schedule:
        print("module {" + "".join(func(m, n, k) for (m, n, k), _ in shapes) + "\n}")
        return
    out = ["module attributes {transform.with_named_sequence} {",
           "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {"]
    for (m, n, k), t in shapes:
        out.append(schedule(m, n, k, t))
    out.append("    transform.yield\n  }\n}")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
