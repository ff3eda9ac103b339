// The posix_spawnp core without Node: output and stdin through its pipes, exit codes, a signal,
// a missing program's errno, cwd and env, and no descriptor left open.
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "check.hpp"
#include "spawn_process.hpp"

using midpack::SpawnRequest;
using midpack::StdioMode;

static std::string readAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

static int openFds() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

static SpawnRequest shell(const std::string& script) { return SpawnRequest{"sh", {"sh", "-c", script}, "", false, {}, {}}; }

static void testPipes() {
  SpawnRequest r = shell("tr a-z A-Z; echo oops >&2; exit 3");
  auto started = midpack::spawnProcess(r);
  CHECK(started.error == 0, "error %d", started.error);
  const std::string input = std::string(200000, 'x') + "end";  // over a pipe's buffer
  // Written by a child of this test: the child reads while we would block writing.
  pid_t writer = fork();
  if (writer == 0) {
    ssize_t ignored = write(started.fds[0], input.data(), input.size());
    (void)ignored;
    _exit(0);
  }
  close(started.fds[0]);
  std::string out = readAll(started.fds[1]);
  std::string err = readAll(started.fds[2]);
  waitpid(writer, nullptr, 0);
  auto status = midpack::waitForExit(started.pid);
  CHECK(out == std::string(200000, 'X') + "END", "stdout of %zu bytes", out.size());
  CHECK(err == "oops\n", "stderr '%s'", err.c_str());
  CHECK(status.code == 3 && status.signal == 0, "code %d signal %d", status.code, status.signal);
}

static void testIgnoredCwdEnv() {
  SpawnRequest r = shell("pwd; echo \"$A\"; cat");
  r.cwd = "/";
  r.hasEnv = true;
  r.env = {"A=b c", "PATH=/usr/bin:/bin"};
  r.stdio[0] = StdioMode::Ignore;
  r.stdio[2] = StdioMode::Ignore;
  auto started = midpack::spawnProcess(r);
  CHECK(started.fds[0] == -1 && started.fds[2] == -1, "only stdout piped");
  std::string out = readAll(started.fds[1]);
  CHECK(out == "/\nb c\n", "stdout '%s'", out.c_str());
  CHECK(midpack::waitForExit(started.pid).code == 0, "exit 0");
}

static void testSignalAndMissing() {
  auto started = midpack::spawnProcess(shell("exec sleep 30"));
  kill(started.pid, SIGTERM);
  auto status = midpack::waitForExit(started.pid);
  CHECK(status.signal == SIGTERM && status.code == -1, "signal %d", status.signal);
  for (int fd : started.fds) close(fd);
  SpawnRequest missing{"midpack-no-such-program", {"midpack-no-such-program"}, "", false, {}, {}};
  auto failed = midpack::spawnProcess(missing);
  CHECK(failed.error == ENOENT && failed.pid == -1, "error %d", failed.error);
  CHECK(failed.fds[0] == -1 && failed.fds[1] == -1 && failed.fds[2] == -1, "no fd handed out");
}

// An ended child stays a zombie of ours until waitForExit reaps it, so a signal sent in between
// reaches no other process: the binding reaps on the JavaScript thread, where kill() runs.
static void testEndedNotReaped() {
  SpawnRequest quiet = shell("exit 3");
  for (auto& mode : quiet.stdio) mode = StdioMode::Ignore;
  auto started = midpack::spawnProcess(quiet);
  midpack::waitUntilEnded(started.pid);
  siginfo_t info{};
  int r = waitid(P_PID, static_cast<id_t>(started.pid), &info, WEXITED | WNOHANG | WNOWAIT);
  CHECK(r == 0 && info.si_pid == started.pid && info.si_status == 3, "still waitable after waitUntilEnded: %d, pid %d", r, info.si_pid);
  CHECK(kill(started.pid, 0) == 0, "the zombie's pid is still ours");
  auto status = midpack::waitForExit(started.pid);
  CHECK(status.code == 3 && status.signal == 0, "exit %d", status.code);
  CHECK(kill(started.pid, 0) != 0 && errno == ESRCH, "reaped: its pid is free");
}

int main() {
  int before = openFds();
  testPipes();
  testIgnoredCwdEnv();
  testSignalAndMissing();
  testEndedNotReaped();
  CHECK(openFds() == before, "%d descriptors open, %d before", openFds(), before);
  if (failures) return 1;
  std::printf("test_spawn_process: ok\n");
  return 0;
}
