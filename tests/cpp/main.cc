// SPDX-License-Identifier: BSD-3-Clause
// Shared main of every tests/cpp/test_*.cc executable.
//
// MPI_Init_thread (MULTIPLE requested, whatever is granted is accepted), then dart_init
// once (with progress processes, DART_PROGRESS_PER_NODE > 0, dart_init_thread starts MPI
// itself: prog::init_dart); all tests run on every unit in the same order. Only rank 0 keeps
// gtest's default printer; every rank with a failure prints its rank and the failing test through a
// listener (no collectives in listeners). The local results are reduced (max) so every
// rank exits with the same code.
#include <gtest/gtest.h>
#include <mpi.h>

#include <dash/dart/if/dart.h>

#include "prog_common.h"

#include <cstdio>
#include <string>

namespace {

int g_rank = 0;

// Prints every failed assertion and failed test with the rank, on every rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  // The current test is remembered here: UnitTest::current_test_info() takes a gtest
  // mutex that is held while part results are reported (it would deadlock).
  void OnTestStart(const ::testing::TestInfo &ti) override {
    current_ = std::string(ti.test_suite_name()) + "." + ti.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult &r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] FAILURE in %s at %s:%d\n%s\n", g_rank,
                 current_.empty() ? "(outside a test)" : current_.c_str(),
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.message());
    std::fflush(stderr);
  }
  void OnTestEnd(const ::testing::TestInfo &ti) override {
    if (ti.result()->Failed()) {
      std::fprintf(stderr, "[rank %d] FAILED TEST %s.%s\n", g_rank, ti.test_suite_name(),
                   ti.name());
      std::fflush(stderr);
    }
    current_.clear();
  }

 private:
  std::string current_;
};

}  // namespace

int main(int argc, char **argv) {
  g_rank = prog::init_dart(&argc, &argv);  // the unit id; a failure ends the job
  ::testing::InitGoogleTest(&argc, argv);

  ::testing::TestEventListeners &listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (g_rank != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new RankFailurePrinter);

  int local = RUN_ALL_TESTS();
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, prog::comm());
  if (g_rank == 0 && global != 0 && local == 0)
    std::fprintf(stderr, "[rank 0] some other rank failed (see the [rank N] lines)\n");

  dart_ret_t rc = dart_exit();
  if (rc != DART_OK) {
    std::fprintf(stderr, "[rank %d] dart_exit failed: %d (%s): %s\n", g_rank, (int)rc,
                 dart_strerror(rc), dart_error_detail());
    global = 1;
  }
  int flag = 0;
  MPI_Finalized(&flag);
  if (!flag) MPI_Finalize();
  return global;
}
