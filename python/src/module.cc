// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: the extension module. Each object's functions and classes are registered
// by its own file (see core.h); the order matters where one uses another's class (Team
// before the collectives' default team argument).
#include "args.h"
#include "core.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "DART-MPI binding (dartpy._core); use the dartpy package.";
  using namespace dartpy;
  bind_errors(m);
  bind_types(m);
  args::bind(m);
  bind_init(m);
  bind_gptr(m);
  bind_memory(m);
  bind_rma(m);
  bind_handle(m);
  bind_atomics(m);
  bind_group(m);
  bind_team(m);
  bind_locality(m);
  bind_lock(m);
  bind_ops(m);
  bind_coll(m);
  bind_notify(m);
  bind_array(m);
  bind_array_reduce(m);
  bind_h5(m);
}
