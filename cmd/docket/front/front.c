// docket's front binary: `make build` installs it as bin/docket, with the
// full docket (./cmd/docket) beside it as docket-core. It runs `docket
// sandbox` through the per-user sandbox daemon and execs docket-core for
// every other command line, and for a sandbox call the daemon does not
// take.
//
// It is C, not Go, because of what a call costs: a Go program spends
// about 1.2 ms in the runtime's start before main on the machine
// docs/benchmarks.md names, while bubblewrap's whole sandboxed start is
// about 7 ms. It is Linux only (the daemon is); elsewhere `make build`
// installs the full docket as docket.
//
// The daemon's side, and the wire, are Go: cmd/docket/internal/sandboxd
// (one SOCK_SEQPACKET datagram of JSON each way, the caller's stdout and
// stderr passed with the request) and cmd/docket/sandbox_daemon*.go. The
// socket's name (socket_path) must match nothing on the Go side: the
// daemon serves the path it is started with.
//
// Failing closed: until the daemon has the request, any failure means
// "not served", and the call is run by docket-core instead. After that a
// daemon that goes away means exit 125: the command may have run, so it
// is not run again.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

// The exit status of a sandbox call that failed before its command ran
// (sandboxd.ExitSandboxFailed).
#define EXIT_SANDBOX_FAILED 125

// The largest request sent (sandboxd's maxMessage); a bigger call is run
// by docket-core.
#define MAX_MESSAGE (128 << 10)

static const char core_name[] = "docket-core";

// buf is a growing byte buffer; a failed allocation sets oom and drops
// further writes, which the caller treats as "too big to send". notutf8
// is set by a string that is not UTF-8: JSON would carry it as U+FFFD,
// so the call goes to docket-core, which gets the bytes as they are.
struct buf {
	char *p;
	size_t n, cap;
	int oom, notutf8;
};

static void put(struct buf *b, const char *s, size_t n) {
	if (b->oom) return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->n + n) cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void puts_(struct buf *b, const char *s) { put(b, s, strlen(s)); }

// utf8_len is the length of the UTF-8 sequence at s as Go's decoder
// accepts it (no overlong forms, no surrogates, nothing past U+10FFFF),
// or 0.
static int utf8_len(const unsigned char *s) {
	unsigned char c = s[0];
	if (c < 0x80) return 1;
	if (c >= 0xc2 && c <= 0xdf) return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

// put_json_string writes s, which must be UTF-8, as a JSON string.
static void put_json_string(struct buf *b, const char *s) {
	static const char hex[] = "0123456789abcdef";
	for (const unsigned char *c = (const unsigned char *)s; *c;) {
		int n = utf8_len(c);
		if (!n) {
			b->notutf8 = 1;
			return;
		}
		c += n;
	}
	put(b, "\"", 1);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			char e[2] = {'\\', (char)*c};
			put(b, e, 2);
		} else if (*c < 0x20) {
			char e[6] = {'\\', 'u', '0', '0', hex[*c >> 4], hex[*c & 15]};
			put(b, e, 6);
		} else {
			put(b, (const char *)c, 1);
		}
	}
	put(b, "\"", 1);
}

static void put_json_array(struct buf *b, char *const *v, int n) {
	put(b, "[", 1);
	for (int i = 0; i < n; i++) {
		if (i) put(b, ",", 1);
		put_json_string(b, v[i]);
	}
	put(b, "]", 1);
}

static void say(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fputs("docket: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

// core_path puts docket-core, beside this binary (links resolved), in out.
static int core_path(char *out, size_t size) {
	char exe[PATH_MAX];
	if (!realpath("/proc/self/exe", exe)) {
		say("find this binary: %s", strerror(errno));
		return -1;
	}
	char *slash = strrchr(exe, '/');
	if (!slash) return -1;
	slash[1] = 0;
	if ((size_t)snprintf(out, size, "%s%s", exe, core_name) >= size) {
		say("%s%s: path too long", exe, core_name);
		return -1;
	}
	struct stat st;
	if (stat(out, &st) != 0) {
		say("%s: the full docket must be installed beside this one (make build installs both): %s", out, strerror(errno));
		return -1;
	}
	return 0;
}

// socket_path names the daemon of the docket-core at core for this user:
// in $XDG_RUNTIME_DIR/docket, else in $TMPDIR (or /tmp)/docket-UID, after
// that very binary (path, device, inode, size, change time), so that a
// rebuilt docket-core gets a daemon of its own and the old one idles out.
// The directory is made 0700 and must be the user's own, not a link.
static int socket_path(const char *core, char *out, size_t size, char *err, size_t errsize) {
	struct stat st;
	if (stat(core, &st) != 0) {
		snprintf(err, errsize, "sandbox daemon: %s: %s", core, strerror(errno));
		return -1;
	}
	char id[PATH_MAX + 128];
	int n = snprintf(id, sizeof id, "%s%c%llu%c%llu%c%lld%c%lld.%ld", core, 0,
	                 (unsigned long long)st.st_dev, 0, (unsigned long long)st.st_ino, 0,
	                 (long long)st.st_size, 0, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	if (n < 0 || (size_t)n >= sizeof id) {
		snprintf(err, errsize, "sandbox daemon: %s: path too long", core);
		return -1;
	}
	// FNV-1a: the name need only differ between builds of one user's dockets.
	uint64_t h = 14695981039346656037ULL;
	for (int i = 0; i < n; i++) {
		h ^= (unsigned char)id[i];
		h *= 1099511628211ULL;
	}
	char dir[PATH_MAX];
	const char *x = getenv("XDG_RUNTIME_DIR");
	if (x && x[0] == '/') {
		n = snprintf(dir, sizeof dir, "%s/docket", x);
	} else {
		const char *tmp = getenv("TMPDIR");
		n = snprintf(dir, sizeof dir, "%s/docket-%u", tmp && tmp[0] ? tmp : "/tmp", (unsigned)getuid());
	}
	if (n < 0 || (size_t)n >= sizeof dir) {
		snprintf(err, errsize, "sandbox daemon: runtime directory: path too long");
		return -1;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errsize, "sandbox daemon: mkdir %s: %s", dir, strerror(errno));
		return -1;
	}
	// Another user may have made it first, in a shared /tmp: then it is
	// not ours to connect in.
	if (lstat(dir, &st) != 0) {
		snprintf(err, errsize, "sandbox daemon: lstat %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		snprintf(err, errsize, "sandbox daemon: %s is not a directory of uid %u with mode 0700", dir, (unsigned)getuid());
		return -1;
	}
	n = snprintf(out, size, "%s/sandbox-%016llx.sock", dir, (unsigned long long)h);
	if (n < 0 || (size_t)n >= size) {
		snprintf(err, errsize, "sandbox daemon: socket path in %s too long", dir);
		return -1;
	}
	return 0;
}

// start_daemon starts the daemon for path in the background, in a session
// of its own with /dev/null for streams; it idles out by itself. The
// middle process exits at once, so the daemon is nobody's child here.
static void start_daemon(const char *core, const char *path) {
	pid_t pid = fork();
	if (pid < 0) return;
	if (pid == 0) {
		if (setsid() < 0 || fork() != 0) _exit(0);
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || chdir("/") != 0) _exit(1);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2) close(null);
		execl(core, core, "sandbox-daemon", "--socket", path, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
	}
}

// json_field finds "name": in a flat JSON object (the daemon's reply) and
// returns what follows it, or NULL.
static const char *json_field(const char *obj, const char *name) {
	size_t n = strlen(name);
	for (const char *p = obj; (p = strchr(p, '"')); p++) {
		if (!strncmp(p + 1, name, n) && p[1 + n] == '"') {
			p += n + 2;
			while (*p == ' ') p++;
			return *p == ':' ? p + 1 : NULL;
		}
		// Skip the string that starts here.
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1]) p++;
		}
		if (!*p) return NULL;
	}
	return NULL;
}

// json_unquote copies the JSON string at s into out (escapes decoded;
// \u escapes outside ASCII as '?': only for a message).
static void json_unquote(const char *s, char *out, size_t size) {
	size_t n = 0;
	if (*s++ != '"') s = "";
	for (; *s && *s != '"' && n + 1 < size; s++) {
		char c = *s;
		if (c == '\\' && s[1]) {
			s++;
			switch (*s) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				unsigned v = 0;
				int i;
				for (i = 1; i <= 4 && s[i]; i++) {
					char h = s[i];
					v = v * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
				}
				s += i - 1;
				c = v < 0x80 ? (char)v : '?';
				break;
			}
			default: c = *s;
			}
		}
		out[n++] = c;
	}
	out[n] = 0;
}

// not_served is what a call the daemon did not take comes to: nothing ran,
// so docket-core runs it, unless the caller required the daemon.
static int not_served(int require, int *code, const char *why) {
	if (!require) return 0;
	say("sandbox daemon: not served: %s", why);
	*code = EXIT_SANDBOX_FAILED;
	return 1;
}

// sandbox_via_daemon runs the call (args: "sandbox" and what follows)
// through the daemon. It returns 1 with *code set when the call is done
// (run, or failed for good), 0 when docket-core must run it.
static int sandbox_via_daemon(const char *core, int argc, char **args, int *code) {
	const char *mode = getenv("DOCKET_SANDBOX_DAEMON");
	if (mode && !strcmp(mode, "off")) return 0;
	int require = mode && !strcmp(mode, "require");
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char err[PATH_MAX + 256];
	if (socket_path(core, path, sizeof path, err, sizeof err) != 0) return not_served(require, code, err);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd)) return 0; // docket-core says what is wrong with it

	struct buf req = {0};
	puts_(&req, "{\"args\":");
	put_json_array(&req, args, argc);
	puts_(&req, ",\"cwd\":");
	put_json_string(&req, cwd);
	puts_(&req, ",\"env\":");
	int nenv = 0;
	while (environ[nenv]) nenv++;
	put_json_array(&req, environ, nenv);
	put(&req, "}", 1);
	if (req.notutf8) {
		free(req.p);
		return not_served(require, code, "an argument, the directory or the environment is not UTF-8");
	}
	if (req.oom || req.n > MAX_MESSAGE) {
		free(req.p);
		snprintf(err, sizeof err, "sandbox daemon: a message of %zu bytes, over %d", req.n, MAX_MESSAGE);
		return not_served(require, code, err);
	}

	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		free(req.p);
		snprintf(err, sizeof err, "socket: %s", strerror(errno));
		return not_served(require, code, err);
	}
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	memcpy(addr.sun_path, path, strlen(path) + 1);
	if (connect(sock, (struct sockaddr *)&addr, sizeof addr) != 0) {
		int e = errno;
		free(req.p);
		close(sock);
		snprintf(err, sizeof err, "%s: %s", e == ENOENT || e == ECONNREFUSED ? "no daemon listens" : "connect", strerror(e));
		if (!require && (e == ENOENT || e == ECONNREFUSED)) {
			// This call runs in docket-core; the next one finds a daemon
			// (one that loses the race to another exits at once).
			start_daemon(core, path);
		}
		return not_served(require, code, err);
	}

	// From here SIGINT and SIGTERM ask the daemon to stop the command
	// (a hang-up it reads); its result still comes.
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, &old);
	int sfd = signalfd(-1, &sigs, SFD_CLOEXEC);

	int fds[2] = {1, 2};
	char cmsg[CMSG_SPACE(sizeof fds)];
	memset(cmsg, 0, sizeof cmsg);
	struct iovec iov = {.iov_base = req.p, .iov_len = req.n};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cmsg, .msg_controllen = sizeof cmsg};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof fds);
	memcpy(CMSG_DATA(c), fds, sizeof fds);
	ssize_t sent;
	do {
		sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (sent < 0 && errno == EINTR);
	free(req.p);
	if (sent < 0) {
		snprintf(err, sizeof err, "%s", strerror(errno));
		close(sock);
		if (sfd >= 0) close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return not_served(require, code, err);
	}

	static char reply[MAX_MESSAGE + 1];
	ssize_t n = -1;
	struct pollfd pfd[2] = {{sock, POLLIN, 0}, {sfd, POLLIN, 0}};
	for (;;) {
		if (poll(pfd, sfd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR) continue;
			break;
		}
		if (sfd >= 0 && (pfd[1].revents & POLLIN)) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) shutdown(sock, SHUT_WR);
		}
		if (pfd[0].revents) {
			do {
				n = recv(sock, reply, MAX_MESSAGE, 0);
			} while (n < 0 && errno == EINTR);
			break;
		}
	}
	int e = errno;
	close(sock);
	if (sfd >= 0) close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (n <= 0) {
		say("sandbox daemon: no result (it may have run the command): %s", n == 0 ? "the daemon closed the connection" : strerror(e));
		*code = EXIT_SANDBOX_FAILED;
		return 1;
	}
	reply[n] = 0;
	const char *refused = json_field(reply, "refused");
	if (refused) {
		char why[1024] = "refused: ";
		json_unquote(refused, why + strlen(why), sizeof why - strlen(why));
		// A refused caller starts no daemon: nothing ran, docket-core runs it.
		return not_served(require, code, why);
	}
	const char *v = json_field(reply, "code");
	char *end = NULL;
	long status = v ? strtol(v, &end, 10) : 0;
	if (!v || end == v) {
		say("sandbox daemon: no result (it may have run the command): a reply without a status: %s", reply);
		*code = EXIT_SANDBOX_FAILED;
		return 1;
	}
	*code = (int)status;
	return 1;
}

int main(int argc, char **argv) {
	char core[PATH_MAX];
	if (core_path(core, sizeof core) != 0) return 1;
	if (argc > 1 && !strcmp(argv[1], "sandbox")) {
		int code;
		if (sandbox_via_daemon(core, argc - 1, argv + 1, &code)) return code;
	}
	execv(core, argv);
	say("run %s: %s", core, strerror(errno));
	return 1;
}
