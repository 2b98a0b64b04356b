// Runs a program to completion and captures its exit code, stdout and stderr. For tests that
// check a command-line contract (exit codes, one line on stderr) the way a script sees it.
#pragma once

#include <string>
#include <vector>

namespace droidlab::testutil {

struct ProcessResult {
  int exit_code = -1;   // -1 when killed by a signal (then `signal` says which)
  int signal = 0;
  std::string out;
  std::string err;
};

// `argv[0]` is the program's path. `stdin_data` is written to its standard input, then closed.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& stdin_data = "");

}  // namespace droidlab::testutil
