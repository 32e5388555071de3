// The per-command init of the sandbox server (init_linux.c).
#ifndef DOCKET_SERVER_SPAWN_H
#define DOCKET_SERVER_SPAWN_H

#include <stdint.h>
#include <linux/filter.h>

// The descriptors the init holds: the command's standard streams (until
// the command comes, /dev/null), the exit pipe to docket (likewise), the
// control socket to the server, the Landlock ruleset.
enum {
	DOCKET_FD_EXIT = 3,
	DOCKET_FD_CTL = 4,
	DOCKET_FD_RULESET = 5,
	DOCKET_SPAWN_FDS = 6,
	// A command brings its streams, its exit pipe and up to this many
	// cgroup files.
	DOCKET_MAX_CGROUPS = 4,
	DOCKET_MAX_RLIMITS = 4,
	// Its path, working directory, argv and environment together.
	DOCKET_MAX_COMMAND = 8 << 20,
};

// The steps of the init's setup; a status names the one that failed.
enum {
	DOCKET_STEP_OK = 0,
	DOCKET_STEP_FDS = 1,
	DOCKET_STEP_PROC = 2,
	DOCKET_STEP_CAPS = 3,
	DOCKET_STEP_CWD = 4,
	DOCKET_STEP_NNP = 5,
	DOCKET_STEP_LANDLOCK = 6,
	DOCKET_STEP_SECCOMP = 7,
	DOCKET_STEP_VERIFY = 8,
	DOCKET_STEP_SIGNALS = 9,
	DOCKET_STEP_COMMAND = 10,
};

// Flags a command's status carries: what of the fail-soft limits held.
enum {
	DOCKET_DONE_CGROUP = 1 << 0,
	DOCKET_DONE_RLIMIT0 = 1 << 1, // then 1 << 2, 1 << 3... per rlimit asked
};

struct docket_rlimit {
	int32_t resource;
	int32_t pad;
	uint64_t soft, hard;
};

// What the init is cloned with: everything but the command.
struct docket_spawn {
	// fds[i] is moved to descriptor i in the init.
	int fds[DOCKET_SPAWN_FDS];
	const struct sock_filter *filter;
	unsigned short filter_len;
	int last_cap;
	unsigned long securebits;
	int clone_flags;
};

// The command, sent on the control socket once the init is confined; the
// descriptors (stdin, stdout, stderr, the exit pipe, then ncgroup cgroup
// files) ride on it as SCM_RIGHTS. After the header come, NUL-terminated,
// the path, the working directory, argc arguments and envc variables.
#define DOCKET_COMMAND_MAGIC 0x444b5431u // "DKT1"
struct docket_command {
	uint32_t magic;
	uint32_t size; // the header and the strings
	int32_t ncgroup;
	int32_t lifeline; // watch the exit pipe (0 only in the crash tests)
	int32_t nrlimits;
	int32_t argc;
	int32_t envc;
	int32_t pad;
	struct docket_rlimit rlimits[DOCKET_MAX_RLIMITS];
};

// The init's two messages to the server: ready (confined, waiting for the
// command), then the command's status (its fds, cgroup, rlimits, cwd);
// after the second it waits for the go.
struct docket_status {
	int32_t step;
	int32_t err;
	uint32_t done;
};

// docket_spawn clones an init; it returns its pid (and its pidfd in
// *pidfd) or -errno.
int docket_spawn(struct docket_spawn *s, int *pidfd);

#endif
