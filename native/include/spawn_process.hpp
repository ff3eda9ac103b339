// Starting a child process without copying the parent's address space: posix_spawnp (glibc:
// clone(CLONE_VM|CLONE_VFORK)) instead of fork. After a fork every page the parent has written is
// copy-on-write and faults again on its next write (on a PVM guest, 2.5 s for 512 MB); a vfork-style
// spawn shares the memory until the child's exec, so nothing is write-protected.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace midpack {

/** What a child's stdin, stdout or stderr is: a pipe to the parent, /dev/null, or the parent's own. */
enum class StdioMode { Pipe, Ignore, Inherit };

struct SpawnRequest {
  std::string file;               // looked up on PATH as execvp does
  std::vector<std::string> argv;  // argv[0] included
  std::string cwd;                // empty: the parent's
  bool hasEnv = false;            // false: the parent's environ
  std::vector<std::string> env;   // "NAME=value"
  StdioMode stdio[3] = {StdioMode::Pipe, StdioMode::Pipe, StdioMode::Pipe};
};

struct SpawnResult {
  int error = 0;              // an errno (ENOENT: no such program), 0 when started
  pid_t pid = -1;
  int fds[3] = {-1, -1, -1};  // the parent's ends (O_CLOEXEC) of the piped stdio, -1 for the others
};

/** Starts the program; on an error nothing is left open. */
SpawnResult spawnProcess(const SpawnRequest& request);

/** How a child ended: its exit code, or the signal that ended it (code -1 then). */
struct ExitStatus {
  int code = -1;
  int signal = 0;
};

/** Waits for the child (blocking) and reaps it. */
ExitStatus waitForExit(pid_t pid);

/**
 * Waits (blocking) until the child has ended, without reaping it: until it is reaped (waitForExit)
 * its pid stays a zombie of ours, so a signal sent meanwhile cannot reach another process that
 * was given the same pid.
 */
void waitUntilEnded(pid_t pid);

}  // namespace midpack
