// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: dartpy.Lock (a DART team lock, usable as a context manager) and the
// dart_lock_* functions (the methods are the same functions).
#include "core.h"

namespace dartpy {

namespace {

// Its address is never a live lock: the core answers "not a live lock" for it.
char g_dead_lock_tag;

struct Lock {
  dart_lock_t l = DART_LOCK_NULL;
  uint64_t generation = 0;
  dart_team_t team = DART_TEAM_NULL;
  bool live() const {
    return l != DART_LOCK_NULL && generation == g_generation && is_initialized();
  }
  // The handle for a DART call: a destroyed lock (or one of an earlier dart.init cycle)
  // is one the core recognizes as not live, so its error reaches the caller.
  dart_lock_t get() const { return live() ? l : reinterpret_cast<dart_lock_t>(&g_dead_lock_tag); }
  ~Lock() {
    if (live()) {
      std::string msg = "dartpy.Lock of team " + std::to_string(team) +
                        " collected without team_lock_destroy(); it is released only at "
                        "dart.exit() (collective calls are never made by the garbage "
                        "collector)";
      if (PyErr_WarnEx(PyExc_ResourceWarning, msg.c_str(), 1) < 0) PyErr_WriteUnraisable(nullptr);
    }
  }
};

void lock_acquire(Lock &lk) {
  dart_lock_t l = lk.get();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_lock_acquire(l);
  }
  check(rc, "dart_lock_acquire");
}

bool lock_try_acquire(Lock &lk) {
  dart_lock_t l = lk.get();
  int32_t got = 0;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_lock_try_acquire(l, &got);
  }
  check(rc, "dart_lock_try_acquire");
  return got != 0;
}

void lock_release(Lock &lk) {
  dart_lock_t l = lk.get();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_lock_release(l);
  }
  check(rc, "dart_lock_release");
}

void lock_destroy(Lock &lk) {
  if (!lk.live()) {  // destroyed already, or freed by dart_exit
    lk.l = DART_LOCK_NULL;
    return;
  }
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_lock_destroy(&lk.l);
  }
  check(rc, "dart_team_lock_destroy");
  lk.l = DART_LOCK_NULL;
}

bool lock_initialized(const Lock &l) { return dart_lock_initialized(l.get()); }

std::unique_ptr<Lock> lock_init(py::handle team_h) {
  dart_team_t team = team_arg(team_h);
  auto lk = std::make_unique<Lock>();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_lock_init(team, &lk->l);
  }
  check(rc, "dart_team_lock_init");
  lk->generation = g_generation;
  lk->team = team;
  return lk;
}

}  // namespace

void bind_lock(py::module_ &m) {
  py::class_<Lock>(m, "Lock", R"(A DART team lock (MCS queue lock), usable as a context manager.

Created collectively by team_lock_init(team); destroyed collectively by
team_lock_destroy(lock) / lock.destroy().)")
      .def("acquire", &lock_acquire)
      .def("try_acquire", &lock_try_acquire)
      .def("release", &lock_release)
      .def("destroy", &lock_destroy)
      .def_property_readonly("initialized", &lock_initialized)
      .def_property_readonly("team", [](const Lock &l) { return Team{l.team}; })
      .def("__enter__",
           [](py::object self) {
             lock_acquire(self.cast<Lock &>());
             return self;
           })
      .def("__exit__", [](Lock &l, py::handle, py::handle, py::handle) {
        lock_release(l);
        return false;
      });
  m.def("team_lock_init", &lock_init, py::arg("team"),
        R"doc(Create a lock shared by the units of ``team`` (collective over the team).

Parameters
----------
team : Team or int

Returns
-------
Lock
    A context manager: ``with lock:`` acquires and releases it.

Examples
--------
>>> lock = dart.team_lock_init(dart.TEAM_ALL)
>>> with lock:
...     pass   # one unit at a time
>>> dart.team_lock_destroy(lock)
)doc");
  m.def("team_lock_destroy", &lock_destroy, py::arg("lock"),
        R"doc(Destroy a team lock (collective over its team).

Parameters
----------
lock : Lock

Raises
------
DartError
    If a unit still holds it or it was destroyed already.
)doc");
  m.def("lock_acquire", &lock_acquire, py::arg("lock"),
        R"doc(Acquire ``lock``, waiting (GIL released) until it is free.

The lock is a team-wide MCS queue lock (PGAS'14): units get it in the order they asked.
``with lock:`` acquires and releases it.

Parameters
----------
lock : Lock

Raises
------
DartError
    If this thread holds the lock already (it is not recursive) or the lock was
    destroyed.
)doc");
  m.def("lock_try_acquire", &lock_try_acquire, py::arg("lock"),
        R"doc(Acquire ``lock`` if it is free, without waiting.

Parameters
----------
lock : Lock

Returns
-------
bool
    True if this unit now holds the lock.
)doc");
  m.def("lock_release", &lock_release, py::arg("lock"),
        R"doc(Release ``lock``, handing it to the next waiting unit.

Parameters
----------
lock : Lock

Raises
------
DartError
    If this unit does not hold the lock.
)doc");
  m.def("lock_initialized", &lock_initialized, py::arg("lock"),
        R"doc(Whether ``lock`` is live (created and not destroyed).

Parameters
----------
lock : Lock

Returns
-------
bool
)doc");
}

}  // namespace dartpy
