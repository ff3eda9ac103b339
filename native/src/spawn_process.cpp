#include "spawn_process.hpp"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

extern char** environ;

namespace midpack {
namespace {

// The parent's and the child's ends of the three stdio streams, closed when not handed out.
struct StdioPipes {
  int parent[3] = {-1, -1, -1};
  int child[3] = {-1, -1, -1};
  ~StdioPipes() {
    for (int i = 0; i < 3; ++i) {
      if (parent[i] >= 0) close(parent[i]);
      if (child[i] >= 0) close(child[i]);
    }
  }
};

// Both ends close-on-exec: the child gets its end by dup2 onto 0/1/2 (a dup is not close-on-exec),
// and no other child started meanwhile (a worker thread's spawn) inherits either end.
int openPipes(const StdioMode (&modes)[3], StdioPipes& pipes) {
  for (int i = 0; i < 3; ++i) {
    if (modes[i] != StdioMode::Pipe) continue;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return errno;
    // stdin: the child reads fds[0]; stdout/stderr: the child writes fds[1].
    pipes.child[i] = i == 0 ? fds[0] : fds[1];
    pipes.parent[i] = i == 0 ? fds[1] : fds[0];
  }
  return 0;
}

int addStdioActions(const StdioMode (&modes)[3], const StdioPipes& pipes, posix_spawn_file_actions_t& actions) {
  for (int i = 0; i < 3; ++i) {
    int rc = 0;
    if (modes[i] == StdioMode::Pipe) rc = posix_spawn_file_actions_adddup2(&actions, pipes.child[i], i);
    else if (modes[i] == StdioMode::Ignore) rc = posix_spawn_file_actions_addopen(&actions, i, "/dev/null", i == 0 ? O_RDONLY : O_WRONLY, 0);
    if (rc != 0) return rc;
  }
  return 0;
}

// As libuv does for its children: every signal's handler back to the default (the parent ignores
// SIGPIPE; git must die of it as from a shell) and nothing blocked.
int setDefaultSignals(posix_spawnattr_t& attr) {
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  int rc = posix_spawnattr_setsigdefault(&attr, &all);
  if (rc == 0) rc = posix_spawnattr_setsigmask(&attr, &none);
  if (rc == 0) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  return rc;
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

int startChild(const SpawnRequest& request, const StdioPipes& pipes, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  if (int rc = posix_spawn_file_actions_init(&actions)) return rc;
  int rc = posix_spawnattr_init(&attr);
  if (rc == 0) rc = addStdioActions(request.stdio, pipes, actions);
  if (rc == 0 && !request.cwd.empty()) rc = posix_spawn_file_actions_addchdir_np(&actions, request.cwd.c_str());
  if (rc == 0) rc = setDefaultSignals(attr);
  if (rc == 0) {
    auto argv = pointers(request.argv);
    auto env = pointers(request.env);
    rc = posix_spawnp(&pid, request.file.c_str(), &actions, &attr, argv.data(), request.hasEnv ? env.data() : environ);
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

}  // namespace

SpawnResult spawnProcess(const SpawnRequest& request) {
  SpawnResult result;
  StdioPipes pipes;
  result.error = openPipes(request.stdio, pipes);
  if (result.error == 0) result.error = startChild(request, pipes, result.pid);
  if (result.error != 0) return result;
  for (int i = 0; i < 3; ++i) std::swap(result.fds[i], pipes.parent[i]);  // handed out, not closed
  return result;
}

void waitUntilEnded(pid_t pid) {
  siginfo_t info;
  int r;
  do r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
  while (r < 0 && errno == EINTR);
}

ExitStatus waitForExit(pid_t pid) {
  int status = 0;
  pid_t got;
  do got = waitpid(pid, &status, 0);
  while (got < 0 && errno == EINTR);
  ExitStatus out;
  if (got < 0) return out;  // not our child (reaped elsewhere): code -1, no signal
  if (WIFEXITED(status)) out.code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  return out;
}

}  // namespace midpack
