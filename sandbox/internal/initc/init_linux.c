//go:build linux && cgo

// The per-command init of the sandbox server. The server (a Go process
// that built the session's mount, network and UTS namespaces once) clones
// each init from a thread of its own whose mount namespace the init
// shares. The child is a copy of a multi-threaded process: it never execs
// (the command it forks does), so it may only make system calls and call
// async-signal-safe functions, on memory the server prepared before the
// clone or that it maps itself.
//
// The init is PID 1 of a fresh PID namespace (and IPC namespace). Before
// any command exists it mounts that namespace's /proc, drops every
// capability, sets no_new_privs, enters its Landlock ruleset, loads the
// seccomp filter, checks that it holds what it claims, and tells the
// server it is ready. Then it receives its one command (argv, environment,
// working directory, streams, exit pipe, cgroup files, rlimits), installs
// it, tells the server, and waits for the go, which the server gives only
// once docket has the layers. Only then does it fork the command, and it
// stays as the namespace's init: it reaps, forwards termination signals,
// kills and reaps what the command left once it ends, then reports how the
// command ended on the exit pipe, and kills everything left when docket
// goes away. The server may start an init before its
// command comes (a ready init, so that a call does not wait for the
// setup); each init runs one command at most.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/seccomp.h>

#include "init_linux.h"

#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

// The exit codes of env(1) and timeout(1): the sandbox failed, the command
// could not be run, it was not found.
#define EXIT_SETUP 125
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127

static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

static void fail(int step, int err) {
	struct docket_status st = {step, err, 0};
	(void)!write(DOCKET_FD_CTL, &st, sizeof st);
	_exit(EXIT_SETUP);
}

// put appends s to buf at *n, up to cap.
static void put(char *buf, size_t *n, size_t cap, const char *s) {
	while (*s && *n < cap) buf[(*n)++] = *s++;
}

static void put_int(char *buf, size_t *n, size_t cap, long v) {
	char tmp[24];
	int i = 0;
	if (v < 0) {
		put(buf, n, cap, "-");
		v = -v;
	}
	do {
		tmp[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i < (int)sizeof tmp);
	while (i > 0 && *n < cap) buf[(*n)++] = tmp[--i];
}

// errname spells the errors an exec can give the way Go does, so that a
// command that cannot start reads the same with or without the server.
static const char *errname(int e) {
	switch (e) {
	case ENOENT: return "no such file or directory";
	case EACCES: return "permission denied";
	case ENOEXEC: return "exec format error";
	case ENOTDIR: return "not a directory";
	case ELOOP: return "too many levels of symbolic links";
	case E2BIG: return "argument list too long";
	case ENOMEM: return "cannot allocate memory";
	case ETXTBSY: return "text file busy";
	case EPERM: return "operation not permitted";
	case EISDIR: return "is a directory";
	case ENAMETOOLONG: return "file name too long";
	case EIO: return "input/output error";
	}
	return "exec failed";
}

// report writes one JSON line on the exit pipe (one write: a pipe keeps a
// write of up to PIPE_BUF whole).
static void report_exit(int code, int sig) {
	char buf[128];
	size_t n = 0;
	put(buf, &n, sizeof buf, "{\"kind\":\"exit\",\"code\":");
	put_int(buf, &n, sizeof buf, code);
	if (sig) {
		put(buf, &n, sizeof buf, ",\"signal\":");
		put_int(buf, &n, sizeof buf, sig);
	}
	put(buf, &n, sizeof buf, "}\n");
	(void)!write(DOCKET_FD_EXIT, buf, n);
}

// kill_rest kills and reaps every other process in the namespace. The
// init calls it before reporting the command's end, because docket takes
// that report (and the exit pipe's end of file) as its word that nothing
// of the command is left: the kernel's own sweep of the namespace runs
// only after the exiting init has closed its descriptors, so a process the
// command left behind would otherwise outlive the call for a moment. Each
// round signals again, for a child forked while the last signal was sent;
// ECHILD means the namespace holds the init alone, since an orphan is
// reparented to the init before its parent can be reaped.
static void kill_rest(void) {
	for (;;) {
		kill(-1, SIGKILL);
		int ws;
		pid_t w = (pid_t)syscall(SYS_wait4, -1, &ws, __WALL, NULL);
		if (w < 0 && errno == ECHILD) return;
	}
}

static void report_exec_error(const char *path, int code, int e) {
	char buf[4096];
	size_t n = 0;
	put(buf, &n, sizeof buf, "docket sandbox: ");
	put(buf, &n, sizeof buf, path);
	put(buf, &n, sizeof buf, ": ");
	put(buf, &n, sizeof buf, errname(e));
	put(buf, &n, sizeof buf, "\n");
	(void)!write(2, buf, n);
	n = 0;
	put(buf, &n, sizeof buf, "{\"kind\":\"exec_error\",\"code\":");
	put_int(buf, &n, sizeof buf, code);
	put(buf, &n, sizeof buf, ",\"error\":\"");
	put(buf, &n, sizeof buf, errname(e));
	put(buf, &n, sizeof buf, "\"}\n");
	(void)!write(DOCKET_FD_EXIT, buf, n);
}

// arrange moves fds[i] to descriptor i and closes everything else the
// server had open (its socket to docket, other commands' pipes).
static void arrange(int *fds, int n) {
	for (int i = 0; i < n; i++) {
		if (fds[i] < i) {
			// Moving an earlier descriptor down onto it would clobber it.
			int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, n);
			if (fd < 0) fail(DOCKET_STEP_FDS, errno);
			fds[i] = fd;
		}
	}
	for (int i = 0; i < n; i++) {
		if (fds[i] == i) {
			if (fcntl(i, F_SETFD, 0) < 0) fail(DOCKET_STEP_FDS, errno);
		} else if (dup2(fds[i], i) < 0) {
			fail(DOCKET_STEP_FDS, errno);
		}
	}
	if (syscall(SYS_close_range, n, ~0U, 0) < 0) {
		for (int fd = n; fd < 65536; fd++) close(fd);
	}
	// The command gets 0, 1 and 2 only.
	for (int fd = 3; fd < n; fd++) {
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) fail(DOCKET_STEP_FDS, errno);
	}
}

static void drop_caps(struct docket_spawn *s) {
	if (prctl(PR_SET_SECUREBITS, s->securebits, 0, 0, 0) < 0) fail(DOCKET_STEP_CAPS, errno);
	for (int c = 0; c <= s->last_cap; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL) fail(DOCKET_STEP_CAPS, errno);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) fail(DOCKET_STEP_CAPS, errno);
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) < 0) fail(DOCKET_STEP_CAPS, errno);
}

// verify checks, rather than trusts, what the setup claims.
static void verify(struct docket_spawn *s) {
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0) fail(DOCKET_STEP_VERIFY, errno);
	for (int i = 0; i < 2; i++) {
		if (d[i].effective || d[i].permitted || d[i].inheritable) fail(DOCKET_STEP_VERIFY, EPERM);
	}
	for (int c = 0; c <= s->last_cap; c++) {
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1) fail(DOCKET_STEP_VERIFY, EPERM);
	}
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) fail(DOCKET_STEP_VERIFY, EPERM);
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != SECCOMP_MODE_FILTER) fail(DOCKET_STEP_VERIFY, EPERM);
	if (syscall(SYS_getpid) != 1) fail(DOCKET_STEP_VERIFY, ESRCH);
}

static void send_status(int step, int err, uint32_t done) {
	struct docket_status st = {step, err, done};
	if (write(DOCKET_FD_CTL, &st, sizeof st) != (ssize_t)sizeof st) _exit(EXIT_SETUP);
}

// The command, as received.
struct command {
	struct docket_command h;
	int fds[4 + DOCKET_MAX_CGROUPS];
	char *path, *cwd;
	char **argv, **envp;
};

// recv_command waits for the command. A control socket closed first (the
// server gone, or a ready init it no longer needs) ends the init.
static void recv_command(struct command *c) {
	char cbuf[CMSG_SPACE(sizeof(int) * (4 + DOCKET_MAX_CGROUPS))];
	struct iovec iov = {&c->h, sizeof c->h};
	struct msghdr m;
	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof cbuf;
	ssize_t n;
	do {
		n = recvmsg(DOCKET_FD_CTL, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	} while (n < 0 && errno == EINTR);
	if (n == 0) _exit(EXIT_SETUP);
	if (n != (ssize_t)sizeof c->h) fail(DOCKET_STEP_COMMAND, n < 0 ? errno : EPROTO);
	if (m.msg_flags & MSG_CTRUNC) fail(DOCKET_STEP_COMMAND, EMSGSIZE);
	int nfds = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
		int k = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		if (nfds + k > 4 + DOCKET_MAX_CGROUPS) fail(DOCKET_STEP_COMMAND, EMSGSIZE);
		memcpy(c->fds + nfds, CMSG_DATA(cm), (size_t)k * sizeof(int));
		nfds += k;
	}
	struct docket_command *h = &c->h;
	if (h->magic != DOCKET_COMMAND_MAGIC || h->size < sizeof *h || h->size > DOCKET_MAX_COMMAND ||
	    h->ncgroup < 0 || h->ncgroup > DOCKET_MAX_CGROUPS || nfds != 4 + h->ncgroup ||
	    h->nrlimits < 0 || h->nrlimits > DOCKET_MAX_RLIMITS || h->argc < 1 || h->envc < 0 ||
	    h->argc > DOCKET_MAX_COMMAND / 2 || h->envc > DOCKET_MAX_COMMAND / 2) {
		fail(DOCKET_STEP_COMMAND, EPROTO);
	}
	size_t rest = h->size - sizeof *h;
	char *buf = mmap(NULL, rest + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) fail(DOCKET_STEP_COMMAND, errno);
	for (size_t got = 0; got < rest;) {
		ssize_t r = read(DOCKET_FD_CTL, buf + got, rest - got);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) fail(DOCKET_STEP_COMMAND, r < 0 ? errno : EPROTO);
		got += (size_t)r;
	}
	buf[rest] = 0;
	size_t want = 2 + (size_t)h->argc + (size_t)h->envc;
	char **ptrs = mmap(NULL, (want + 2) * sizeof(char *), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptrs == MAP_FAILED) fail(DOCKET_STEP_COMMAND, errno);
	// Every string ends in a NUL, and there are exactly as many as said.
	size_t k = 0, at = 0;
	while (at < rest) {
		if (k == want) fail(DOCKET_STEP_COMMAND, EPROTO);
		char *str = buf + at;
		size_t len = 0;
		while (at + len < rest && str[len]) len++;
		if (at + len >= rest) fail(DOCKET_STEP_COMMAND, EPROTO);
		// Slots: path, cwd, argv..., NULL, envp..., NULL.
		size_t slot = k < 2 + (size_t)h->argc ? k : k + 1;
		ptrs[slot] = str;
		at += len + 1;
		k++;
	}
	if (k != want) fail(DOCKET_STEP_COMMAND, EPROTO);
	ptrs[2 + h->argc] = NULL;
	ptrs[want + 1] = NULL;
	c->path = ptrs[0];
	c->cwd = ptrs[1];
	c->argv = ptrs + 2;
	c->envp = ptrs + 3 + h->argc;
}

// install gives the init the command's descriptors, cgroup and limits.
static uint32_t install(struct command *c) {
	for (int i = 0; i < 4; i++) {
		if (dup2(c->fds[i], i) < 0) fail(DOCKET_STEP_FDS, errno);
		close(c->fds[i]);
	}
	if (fcntl(DOCKET_FD_EXIT, F_SETFD, FD_CLOEXEC) < 0) fail(DOCKET_STEP_FDS, errno);
	uint32_t done = 0;
	if (c->h.ncgroup > 0) {
		int joined = 1;
		for (int i = 0; i < c->h.ncgroup; i++) {
			// "0" is the writer itself: this process (v2) or thread (v1).
			// The files were opened by docket; being root by uid is what
			// the kernel asks of the writer, not a capability.
			if (write(c->fds[4 + i], "0", 1) != 1) joined = 0;
			close(c->fds[4 + i]);
		}
		if (joined) done |= DOCKET_DONE_CGROUP;
	}
	for (int i = 0; i < c->h.nrlimits; i++) {
		struct docket_rlimit *l = &c->h.rlimits[i];
		struct rlimit cur;
		if (getrlimit(l->resource, &cur) < 0) continue;
		struct rlimit next = {l->soft, l->hard};
		// Lower, never raise past the current hard limit.
		if (next.rlim_max > cur.rlim_max) next.rlim_max = cur.rlim_max;
		if (next.rlim_cur > next.rlim_max) next.rlim_cur = next.rlim_max;
		if (setrlimit(l->resource, &next) == 0) done |= DOCKET_DONE_RLIMIT0 << i;
	}
	if (chdir(c->cwd) < 0) fail(DOCKET_STEP_CWD, errno);
	return done;
}

// The command's start: shares the init's memory until it execs (the init
// waits, as with vfork), so nothing is copied for a process that is about
// to replace itself.
struct start {
	struct command *c;
	int errpipe;
	int sfd;
};

// run_command is the command's own process, between clone and exec.
static void run_command(struct command *c, int errpipe) {
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	// The server's handlers are not the command's: every signal starts
	// at its default, and none blocked.
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, NULL);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(c->path, c->argv, c->envp);
	int e = errno;
	(void)!write(errpipe, &e, sizeof e);
	_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN);
}

static int start_command(void *arg) {
	struct start *st = arg;
	// Close-on-exec would close them at the exec; the command must not
	// hold them before it either. (The read end of errpipe and the
	// signalfd are the init's: closing them here closes the child's
	// own descriptor table entries, which CLONE_VM does not share.)
	close(st->sfd);
	run_command(st->c, st->errpipe);
	return 0;
}

static int init_main(void *arg) {
	struct docket_spawn *s = arg;
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	// Nothing the command can do may reach this process's memory (a copy
	// of the server's) or its descriptors.
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	arrange(s->fds, DOCKET_SPAWN_FDS);

	// The namespace's own /proc, so that /proc/$$ is the command's.
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) fail(DOCKET_STEP_PROC, errno);
	drop_caps(s);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail(DOCKET_STEP_NNP, errno);
	if (syscall(SYS_landlock_restrict_self, DOCKET_FD_RULESET, 0) < 0) fail(DOCKET_STEP_LANDLOCK, errno);
	close(DOCKET_FD_RULESET);
	struct sock_fprog prog = {s->filter_len, (struct sock_filter *)s->filter};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) fail(DOCKET_STEP_SECCOMP, errno);
	verify(s);

	sigset_t watched;
	sigemptyset(&watched);
	sigaddset(&watched, SIGCHLD);
	for (unsigned i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) sigaddset(&watched, forwarded[i]);
	int sfd = signalfd(-1, &watched, SFD_CLOEXEC);
	if (sfd < 0) fail(DOCKET_STEP_SIGNALS, errno);
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC) < 0) fail(DOCKET_STEP_SIGNALS, errno);

	// Confined: ready for a command.
	send_status(DOCKET_STEP_OK, 0, 0);
	struct command c;
	memset(&c, 0, sizeof c);
	recv_command(&c);
	uint32_t done = install(&c);
	send_status(DOCKET_STEP_OK, 0, done);
	// The go comes once docket has the layers; a server that died, or
	// refused, closes the socket instead, and the command never starts.
	char go;
	if (read(DOCKET_FD_CTL, &go, 1) != 1 || go != 'g') _exit(EXIT_SETUP);
	close(DOCKET_FD_CTL);

	const size_t stack_size = 64 * 1024;
	char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		report_exec_error(c.path, EXIT_CANNOT_RUN, errno);
		_exit(EXIT_CANNOT_RUN);
	}
	struct start start = {&c, errpipe[1], sfd};
	pid_t cmd = clone(start_command, stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
	if (cmd < 0) {
		report_exec_error(c.path, EXIT_CANNOT_RUN, errno);
		_exit(EXIT_CANNOT_RUN);
	}
	munmap(stack, stack_size);
	close(errpipe[1]);
	int e = 0;
	ssize_t n;
	do {
		n = read(errpipe[0], &e, sizeof e);
	} while (n < 0 && errno == EINTR);
	close(errpipe[0]);
	if (n == (ssize_t)sizeof e) {
		int code = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
		report_exec_error(c.path, code, e);
		_exit(code);
	}
	// The streams are the command's: the init holds none of them, so that
	// their end of file is the command's.
	for (int fd = 0; fd < 3; fd++) close(fd);

	struct pollfd pfd[2] = {{sfd, POLLIN, 0}, {c.h.lifeline ? DOCKET_FD_EXIT : -1, 0, 0}};
	for (;;) {
		if (poll(pfd, 2, -1) < 0) continue; // EINTR: nothing is handled by a handler here
		if (pfd[1].revents & (POLLERR | POLLNVAL)) {
			// docket is gone: nobody will journal what the command does
			// from here, so nothing may go on.
			kill(-1, SIGKILL);
			_exit(EXIT_SETUP);
		}
		if (!(pfd[0].revents & POLLIN)) continue;
		struct signalfd_siginfo si;
		if (read(sfd, &si, sizeof si) != (ssize_t)sizeof si) continue;
		if (si.ssi_signo != SIGCHLD) {
			// From PID 1, kill(-1) reaches every other process in the namespace.
			kill(-1, (int)si.ssi_signo);
			continue;
		}
		int ws;
		pid_t w;
		while ((w = (pid_t)syscall(SYS_wait4, -1, &ws, WNOHANG, NULL)) > 0) {
			if (w != cmd || !(WIFEXITED(ws) || WIFSIGNALED(ws))) continue;
			kill_rest();
			if (WIFSIGNALED(ws)) {
				report_exit(128 + WTERMSIG(ws), WTERMSIG(ws));
				_exit(128 + WTERMSIG(ws));
			}
			report_exit(WEXITSTATUS(ws), 0);
			_exit(WEXITSTATUS(ws));
		}
	}
}

int docket_spawn(struct docket_spawn *s, int *pidfd) {
	const size_t size = 256 * 1024;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) return -errno;
	*pidfd = -1;
	int pid = clone(init_main, stack + size, s->clone_flags | CLONE_PIDFD | SIGCHLD, s, pidfd);
	int e = errno;
	// The child runs on its own copy of the stack.
	munmap(stack, size);
	return pid < 0 ? -e : pid;
}
