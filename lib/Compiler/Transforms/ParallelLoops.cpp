//===- ParallelLoops.cpp - mxc-parallel-loops -----------------------------===//
//
// The outermost scf.parallel loops of each function, outlined into functions
// that the runtime's mxc_parallel_for (runtime/src/kernels/parallel.h) runs
// on chunks of their iterations from the kernel threads. See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mxc {
#define GEN_PASS_DEF_PARALLELLOOPSPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kRuntimeParallelFor = "mxc_parallel_for";

/// A value used inside the loop and defined outside it, and how it crosses
/// into the outlined function.
struct Capture {
  Value value;
  enum Kind { Clone, MemRef, Scalar } kind;
  unsigned slot = 0; ///< first slot of ctx (MemRef, Scalar)
};

/// Slots of a memref: aligned pointer, offset, sizes, strides.
unsigned memrefSlots(MemRefType t) { return 2 + 2 * t.getRank(); }

bool isStridedDefaultSpace(MemRefType t) {
  if (t.getMemorySpace() && !isa<IntegerAttr>(t.getMemorySpace()))
    return false;
  if (auto ms = dyn_cast_or_null<IntegerAttr>(t.getMemorySpace());
      ms && ms.getInt() != 0)
    return false;
  return t.isStrided();
}

bool isScalar(Type t) {
  if (t.isIndex())
    return true;
  if (auto i = dyn_cast<IntegerType>(t))
    return i.getWidth() <= 64;
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(t);
}

/// A side-effect-free op without operands or regions (a constant): cloned.
bool isCloneableDef(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         isMemoryEffectFree(def);
}

std::optional<int64_t> constantTripCount(Value lb, Value ub, Value step) {
  auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
       s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u > *l ? (*u - *l + *s - 1) / *s : 0;
}

/// Innermost iterations one iteration of `region` runs: constant trip
/// counts of nested loops, the largest chain (1 where unknown).
int64_t innerWork(Region &region) {
  int64_t best = 1;
  for (Block &b : region)
    for (Operation &op : b) {
      int64_t w = 1;
      if (auto f = dyn_cast<scf::ForOp>(op)) {
        auto n = constantTripCount(f.getLowerBound(), f.getUpperBound(),
                                   f.getStep());
        w = n.value_or(1) * innerWork(f.getRegion());
      } else if (auto p = dyn_cast<scf::ParallelOp>(op)) {
        w = innerWork(p.getRegion());
        for (unsigned i = 0; i < p.getNumLoops(); ++i)
          w *= constantTripCount(p.getLowerBound()[i], p.getUpperBound()[i],
                                 p.getStep()[i])
                   .value_or(1);
      } else {
        for (Region &r : op.getRegions())
          w = std::max(w, innerWork(r));
      }
      best = std::max(best, w);
    }
  return best;
}

struct ParallelLoopsPass
    : mxc::impl::ParallelLoopsPassBase<ParallelLoopsPass> {
  using ParallelLoopsPassBase::ParallelLoopsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    decl = nullptr;
    SmallVector<scf::ParallelOp> loops;
    for (auto func : module.getOps<func::FuncOp>())
      for (Block &b : func.getBody())
        for (auto par : b.getOps<scf::ParallelOp>())
          if (par.getNumResults() == 0)
            loops.push_back(par);
    llvm::DenseMap<Operation *, unsigned> counter;
    SymbolTable symbols(module);
    for (scf::ParallelOp par : loops) {
      auto func = par->getParentOfType<func::FuncOp>();
      if (failed(outline(module, symbols, func, par, counter[func]++)))
        return signalPassFailure();
    }
  }

  func::FuncOp runtimeDecl(ModuleOp module, OpBuilder &b, FunctionType body) {
    if (decl)
      return decl;
    if (auto f = module.lookupSymbol<func::FuncOp>(kRuntimeParallelFor))
      return decl = f;
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(module.getBody());
    auto type = b.getFunctionType(
        {body, LLVM::LLVMPointerType::get(b.getContext()), b.getIndexType(),
         b.getIndexType()},
        {});
    auto f = func::FuncOp::create(b, module.getLoc(), kRuntimeParallelFor, type);
    f.setPrivate();
    return decl = f;
  }
  func::FuncOp decl; // mxc_parallel_for, once found or declared

  LogicalResult outline(ModuleOp module, SymbolTable &symbols,
                        func::FuncOp func, scf::ParallelOp par,
                        unsigned index) {
    MLIRContext *ctx = module.getContext();
    Location loc = par.getLoc();
    unsigned rank = par.getNumLoops();

    // Dimensions handed to the runtime: the shortest prefix whose constant
    // trip counts reach minChunks (one dimension when unknown).
    unsigned prefix = 0;
    int64_t prefixTrips = 1;
    while (prefix < rank) {
      auto n = constantTripCount(par.getLowerBound()[prefix],
                                 par.getUpperBound()[prefix],
                                 par.getStep()[prefix]);
      ++prefix;
      if (!n)
        break;
      prefixTrips *= *n;
      if (prefixTrips >= minChunks)
        break;
    }
    if (prefixTrips == 0)
      return success(); // never runs

    // What crosses into the outlined function.
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(par.getRegion(), used);
    for (Value v : par.getOperands())
      used.insert(v);
    SmallVector<Capture> captures;
    unsigned slots = 0;
    for (Value v : used) {
      if (isCloneableDef(v)) {
        captures.push_back({v, Capture::Clone});
      } else if (auto t = dyn_cast<MemRefType>(v.getType())) {
        if (!isStridedDefaultSpace(t))
          return success(); // left serial
        captures.push_back({v, Capture::MemRef, slots});
        slots += memrefSlots(t);
      } else if (isScalar(v.getType())) {
        captures.push_back({v, Capture::Scalar, slots});
        slots += 1;
      } else {
        return success(); // left serial
      }
    }

    OpBuilder b(par);
    Type i64 = b.getI64Type(), idx = b.getIndexType();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto slotArray = LLVM::LLVMArrayType::get(i64, std::max(slots, 1u));
    FunctionType bodyType = b.getFunctionType({ptrType, idx, idx}, {});

    // The outlined function.
    std::string name =
        (func.getSymName() + "_par" + llvm::Twine(index)).str();
    OpBuilder mb(ctx);
    auto outlined = func::FuncOp::create(mb, loc, name, bodyType);
    outlined.setPrivate();
    // Inserted after `func`; the name is made unique if taken.
    symbols.insert(outlined, std::next(Block::iterator(func)));
    Block *entry = outlined.addEntryBlock();
    OpBuilder ob = OpBuilder::atBlockBegin(entry);
    Value ctxArg = entry->getArgument(0), lo = entry->getArgument(1),
          hi = entry->getArgument(2);
    auto slotPtr = [&](OpBuilder &bb, Value base, unsigned s) -> Value {
      return LLVM::GEPOp::create(bb, loc, ptrType, slotArray, base,
                                 ArrayRef<LLVM::GEPArg>{0, int32_t(s)});
    };
    IRMapping map;
    for (const Capture &c : captures) {
      switch (c.kind) {
      case Capture::Clone:
        map.map(c.value, ob.clone(*c.value.getDefiningOp())->getResult(0));
        break;
      case Capture::Scalar: {
        Type t = c.value.getType();
        Type stored = t.isIndex() ? i64 : t;
        Value v = LLVM::LoadOp::create(ob, loc, stored, slotPtr(ob, ctxArg, c.slot));
        if (t.isIndex())
          v = arith::IndexCastOp::create(ob, loc, idx, v);
        map.map(c.value, v);
        break;
      }
      case Capture::MemRef: {
        auto t = cast<MemRefType>(c.value.getType());
        int64_t r = t.getRank();
        SmallVector<Type> fields{ptrType, ptrType, i64};
        if (r > 0) {
          fields.push_back(LLVM::LLVMArrayType::get(i64, r));
          fields.push_back(LLVM::LLVMArrayType::get(i64, r));
        }
        auto descType = LLVM::LLVMStructType::getLiteral(ctx, fields);
        Value desc = LLVM::PoisonOp::create(ob, loc, descType);
        Value p = LLVM::LoadOp::create(ob, loc, ptrType, slotPtr(ob, ctxArg, c.slot));
        desc = LLVM::InsertValueOp::create(ob, loc, desc, p, ArrayRef<int64_t>{0});
        desc = LLVM::InsertValueOp::create(ob, loc, desc, p, ArrayRef<int64_t>{1});
        auto load = [&](unsigned s) {
          return LLVM::LoadOp::create(ob, loc, i64, slotPtr(ob, ctxArg, c.slot + s));
        };
        desc = LLVM::InsertValueOp::create(ob, loc, desc, load(1), ArrayRef<int64_t>{2});
        for (int64_t d = 0; d < r; ++d) {
          desc = LLVM::InsertValueOp::create(ob, loc, desc, load(2 + d),
                                             ArrayRef<int64_t>{3, d});
          desc = LLVM::InsertValueOp::create(ob, loc, desc, load(2 + r + d),
                                             ArrayRef<int64_t>{4, d});
        }
        map.map(c.value,
                UnrealizedConversionCastOp::create(ob, loc, t, desc).getResult(0));
        break;
      }
      }
    }
    // for l in [lo, hi): the prefix indices from l (last fastest), then the
    // remaining dimensions as an scf.parallel of their own.
    auto mapped = [&](Value v) { return map.lookupOrDefault(v); };
    Value one = arith::ConstantIndexOp::create(ob, loc, 1);
    SmallVector<Value> trips;
    for (unsigned d = 0; d < prefix; ++d) {
      Value lb = mapped(par.getLowerBound()[d]), ub = mapped(par.getUpperBound()[d]),
            st = mapped(par.getStep()[d]);
      Value span = arith::SubIOp::create(ob, loc, ub, lb);
      trips.push_back(arith::CeilDivSIOp::create(ob, loc, span, st));
    }
    auto forOp = scf::ForOp::create(ob, loc, lo, hi, one);
    OpBuilder fb = OpBuilder::atBlockBegin(forOp.getBody());
    Value rest = forOp.getInductionVar();
    for (int d = int(prefix) - 1; d >= 0; --d) {
      Value i = d == 0 ? rest : arith::RemSIOp::create(fb, loc, rest, trips[d]).getResult();
      if (d > 0)
        rest = arith::DivSIOp::create(fb, loc, rest, trips[d]);
      Value iv = arith::AddIOp::create(
          fb, loc, mapped(par.getLowerBound()[d]),
          arith::MulIOp::create(fb, loc, i, mapped(par.getStep()[d])));
      map.map(par.getInductionVars()[d], iv);
    }
    Block &parBody = *par.getBody();
    auto cloneBody = [&](OpBuilder &bb) {
      for (Operation &op : parBody.without_terminator())
        bb.clone(op, map);
    };
    if (prefix < rank) {
      SmallVector<Value> lbs, ubs, steps;
      for (unsigned d = prefix; d < rank; ++d) {
        lbs.push_back(mapped(par.getLowerBound()[d]));
        ubs.push_back(mapped(par.getUpperBound()[d]));
        steps.push_back(mapped(par.getStep()[d]));
      }
      scf::ParallelOp::create(
          fb, loc, lbs, ubs, steps,
          [&](OpBuilder &nb, Location, ValueRange ivs) {
            for (unsigned d = prefix; d < rank; ++d)
              map.map(par.getInductionVars()[d], ivs[d - prefix]);
            cloneBody(nb);
          });
    } else {
      cloneBody(fb);
    }
    func::ReturnOp::create(ob, loc);

    // The caller: fill ctx, call the runtime.
    Value c1 = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
    Value ctxBuf = LLVM::AllocaOp::create(b, loc, ptrType, slotArray, c1, 8);
    auto toI64 = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, i64, v).getResult();
    };
    for (const Capture &c : captures) {
      if (c.kind == Capture::Scalar) {
        Value v = c.value.getType().isIndex() ? toI64(c.value) : c.value;
        LLVM::StoreOp::create(b, loc, v, slotPtr(b, ctxBuf, c.slot));
      } else if (c.kind == Capture::MemRef) {
        auto t = cast<MemRefType>(c.value.getType());
        int64_t r = t.getRank();
        Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, c.value);
        Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, toI64(p));
        LLVM::StoreOp::create(b, loc, ptr, slotPtr(b, ctxBuf, c.slot));
        auto meta = memref::ExtractStridedMetadataOp::create(b, loc, c.value);
        LLVM::StoreOp::create(b, loc, toI64(meta.getOffset()),
                              slotPtr(b, ctxBuf, c.slot + 1));
        for (int64_t d = 0; d < r; ++d) {
          LLVM::StoreOp::create(b, loc, toI64(meta.getSizes()[d]),
                                slotPtr(b, ctxBuf, c.slot + 2 + d));
          LLVM::StoreOp::create(b, loc, toI64(meta.getStrides()[d]),
                                slotPtr(b, ctxBuf, c.slot + 2 + r + d));
        }
      }
    }
    // n: the prefix's iterations; cost: all of the loop's, times the
    // constant work of one iteration.
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value n = arith::ConstantIndexOp::create(b, loc, 1), cost;
    for (unsigned d = 0; d < rank; ++d) {
      if (d == prefix)
        cost = n;
      Value span = arith::SubIOp::create(b, loc, par.getUpperBound()[d],
                                         par.getLowerBound()[d]);
      Value t = arith::CeilDivSIOp::create(b, loc, span, par.getStep()[d]);
      t = arith::MaxSIOp::create(b, loc, t, zero);
      n = arith::MulIOp::create(b, loc, n, t);
    }
    if (!cost)
      cost = n;
    std::swap(n, cost); // n: the prefix's product, cost: every dimension's
    cost = arith::MulIOp::create(
        b, loc, cost,
        arith::ConstantIndexOp::create(b, loc, innerWork(par.getRegion())));
    Value fn = func::ConstantOp::create(b, loc, bodyType,
                                        SymbolRefAttr::get(outlined));
    func::FuncOp decl = runtimeDecl(module, b, bodyType);
    func::CallOp::create(b, loc, decl, ValueRange{fn, ctxBuf, n, cost});
    par.erase();
    return success();
  }
};

} // namespace
