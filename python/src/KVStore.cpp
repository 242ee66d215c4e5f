//===- KVStore.cpp - mx.kv's binding of the runtime KVStore ---------------===//
//
// _mxc.KVStore over runtime::KVStore (runtime/include/mxc/runtime/kvstore.h)
// on runtime arrays (_mxc.Array). The Python layer (python/mxc/kvstore.py)
// keeps MXNet's API: keys of int or str, lists of keys and values, the
// optimizer and its states. Updaters and server command handlers are Python
// callables, called with the GIL on the thread that pushes (or a server's
// loop); blocking calls release the GIL.
//
//===----------------------------------------------------------------------===//
#include "mxc/runtime/kvstore.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <stdexcept>

namespace nb = nanobind;
namespace rt = mxc::runtime;

// From MXCModule.cpp: the runtime array of an _mxc.Array, and back; raising
// mxc.MXNetError.
rt::NDArray runtimeArrayOf(nb::handle array);
nb::object wrapRuntimeArray(const rt::NDArray &array);
[[noreturn]] void raiseMXNetError(const std::string &message);

namespace {

struct PyKVStore {
  std::unique_ptr<rt::KVStore> store;

  rt::KVStore &get() {
    if (!store)
      raiseMXNetError("the kvstore was closed");
    return *store;
  }
};

template <typename F> auto guarded(F &&f) -> decltype(f()) {
  try {
    return f();
  } catch (const nb::python_error &) {
    throw;
  } catch (const std::exception &e) {
    raiseMXNetError(e.what());
  }
}

/// A Python object kept by C++ callbacks: released with the GIL, wherever
/// the last copy of the callback dies (a server's loop runs without it).
std::shared_ptr<nb::object> keepObject(nb::object o) {
  return std::shared_ptr<nb::object>(new nb::object(std::move(o)), [](nb::object *p) {
    nb::gil_scoped_acquire gil;
    delete p;
  });
}

std::vector<rt::NDArray> arraysOf(nb::handle list) {
  std::vector<rt::NDArray> out;
  for (nb::handle a : list)
    out.push_back(runtimeArrayOf(a));
  return out;
}

/// A Python callable as an updater: (key, recv, stored) with _mxc.Array
/// arguments. A Python exception becomes a C++ one (its text).
rt::KVStore::Updater updaterOf(nb::object fn) {
  auto keep = keepObject(std::move(fn));
  return [keep](const std::string &key, const rt::NDArray &recv,
                rt::NDArray &stored) {
    nb::gil_scoped_acquire gil;
    try {
      (*keep)(key, wrapRuntimeArray(recv), wrapRuntimeArray(stored));
    } catch (nb::python_error &e) {
      throw std::runtime_error("updater of key '" + key + "': " + e.what());
    }
  };
}

} // namespace

void bindKVStore(nb::module_ &m) {
  nb::class_<PyKVStore>(m, "KVStore", "runtime::KVStore (internal; use mx.kv)")
      .def_static(
          "create",
          [](const std::string &type) {
            auto s = std::make_unique<PyKVStore>();
            guarded([&] { s->store = rt::KVStore::create(type); });
            return s.release();
          },
          nb::arg("type"), nb::rv_policy::take_ownership)
      .def_static("have_mpi", &rt::KVStore::haveMPI)
      .def_prop_ro("type", [](PyKVStore &s) { return s.get().type(); })
      .def_prop_ro("rank", [](PyKVStore &s) { return s.get().rank(); })
      .def_prop_ro("num_workers", [](PyKVStore &s) { return s.get().numWorkers(); })
      .def_prop_ro("is_worker", [](PyKVStore &s) { return s.get().isWorker(); })
      .def("init",
           [](PyKVStore &s, const std::string &key, nb::handle value) {
             rt::NDArray v = runtimeArrayOf(value);
             guarded([&] { s.get().init(key, v); });
           })
      .def("push",
           [](PyKVStore &s, const std::string &key, nb::list values, int priority) {
             std::vector<rt::NDArray> vs = arraysOf(values);
             guarded([&] { s.get().push(key, vs, priority); });
           },
           nb::arg("key"), nb::arg("values"), nb::arg("priority") = 0)
      .def("pull",
           [](PyKVStore &s, const std::string &key, nb::list outs, int priority) {
             std::vector<rt::NDArray> os = arraysOf(outs);
             guarded([&] { s.get().pull(key, os, priority); });
           },
           nb::arg("key"), nb::arg("outs"), nb::arg("priority") = 0)
      .def("set_updater",
           [](PyKVStore &s, nb::object fn) {
             s.get().setUpdater(fn.is_none() ? rt::KVStore::Updater()
                                             : updaterOf(std::move(fn)));
           },
           nb::arg("fn").none())  // (None: no updater; nanobind refuses None otherwise)
      .def("barrier",
           [](PyKVStore &s) {
             rt::KVStore &k = s.get();
             nb::gil_scoped_release release;
             guarded([&] { k.barrier(); });
           })
      .def("send_command_to_servers",
           [](PyKVStore &s, int head, nb::bytes body) {
             rt::KVStore &k = s.get();
             std::string b(body.c_str(), body.size());
             nb::gil_scoped_release release;
             guarded([&] { k.sendCommandToServers(head, b); });
           })
      .def("run_server",
           [](PyKVStore &s, nb::object handler) {
             rt::KVStore &k = s.get();
             auto keep = keepObject(std::move(handler));
             rt::KVStore::CommandHandler h = [keep](int head, const std::string &body) {
               nb::gil_scoped_acquire gil;
               try {
                 nb::object fn = (*keep)(head, nb::bytes(body.data(), body.size()));
                 return fn.is_none() ? rt::KVStore::Updater() : updaterOf(fn);
               } catch (nb::python_error &e) {
                 throw std::runtime_error(std::string("command handler: ") + e.what());
               }
             };
             nb::gil_scoped_release release;
             guarded([&] { k.runServer(h); });
           })
      .def("finalize", [](PyKVStore &s) {
        if (!s.store)
          return;
        rt::KVStore &k = *s.store;
        nb::gil_scoped_release release;
        guarded([&] { k.finalize(); });
      });
  m.def("kv_abort", [](int code, const std::string &message) {
    rt::kvstoreAbort(code, message);
  }, nb::arg("code"), nb::arg("message"),
        "Aborts the MPI job (MPI_Abort) after printing message; never returns");
  m.def("kv_finalize_mpi", [] {
    nb::gil_scoped_release release;
    rt::kvstoreFinalizeMPI();
  });
}
