// SPDX-License-Identifier: GPL-2.0
/*
 * ioprio-probe: raw access to the I/O priority ABI for the guest tests.
 * Prints errno names rather than messages so that tests can compare them.
 *
 *   ioprio-probe set process|pgrp|user WHO VALUE   -> ok | EPERM | ...
 *   ioprio-probe get process|pgrp|user WHO         -> 0xVALUE | ESRCH | ...
 *   ioprio-probe uring VALUE PATH                  -> ok | EPERM | ...
 *   ioprio-probe aio VALUE PATH [OFFSET]           one 4 KiB O_DIRECT read through
 *                                                  io_submit with IOCB_FLAG_IOPRIO
 *                                                  and aio_reqprio VALUE
 *                                                  -> ok | EPERM | EINVAL | ...
 *   ioprio-probe aio-pairs PATH VALUE_A VALUE_B N  N pairs of adjacent 4 KiB
 *                                                  O_DIRECT reads in one
 *                                                  io_submit: at k MiB with
 *                                                  VALUE_A, at k MiB + 4 KiB
 *                                                  with VALUE_B -> ok | ...
 *   ioprio-probe inherit                           -> self, child, grandchild, thread
 *   ioprio-probe read PATH [VALUE [OFFSET]]        one 4 KiB O_DIRECT read, at
 *                                                  priority VALUE if given ("-":
 *                                                  as it is), at byte OFFSET
 *                                                  (default 0)
 *   ioprio-probe as UID GID [sys_nice] -- PROG ARG...
 *                                                  run PROG as UID:GID with
 *                                                  no capability, or with
 *                                                  CAP_SYS_NICE alone
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/aio_abi.h>
#include <linux/capability.h>
#include <linux/ioprio.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int ioprio_set(int which, int who, int value)
{
	return syscall(SYS_ioprio_set, which, who, value);
}

static int ioprio_get(int which, int who)
{
	return syscall(SYS_ioprio_get, which, who);
}

static void usage(void)
{
	fprintf(stderr, "usage: see the comment at the top of ioprio-probe.c\n");
	exit(2);
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || !*s || *end)
		usage();
	return v;
}

static int which_of(const char *s)
{
	if (!strcmp(s, "process"))
		return IOPRIO_WHO_PROCESS;
	if (!strcmp(s, "pgrp"))
		return IOPRIO_WHO_PGRP;
	if (!strcmp(s, "user"))
		return IOPRIO_WHO_USER;
	usage();
	return 0;
}

static int result(int ret, int err)
{
	if (ret < 0) {
		printf("%s\n", strerrorname_np(err));
		return 1;
	}
	printf("ok\n");
	return 0;
}

static int do_uring(int value, const char *path)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	void *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096) ||
	    io_uring_queue_init(4, &ring, 0) < 0) {
		perror("ioprio-probe: uring setup");
		return 2;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, buf, 4096, 0);
	sqe->ioprio = value;
	io_uring_submit(&ring);
	if (io_uring_wait_cqe(&ring, &cqe) < 0)
		return 2;
	ret = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	return result(ret, -ret);
}

/*
 * Reads of 4 KiB with O_DIRECT through the raw aio system calls, all in one
 * io_submit (which plugs the queue for more than two), each with
 * IOCB_FLAG_IOPRIO and its own aio_reqprio; prints ok or the errno of the
 * submission or of the first read that failed.
 */
static int do_aio(const char *path, int n, const int *values, const long long *offsets)
{
	aio_context_t ctx = 0;
	struct iocb cbs[64], *list[64];
	struct io_event events[64];
	char *buf;
	int fd, i, done = 0;
	long ret;

	if (n > 64)
		usage();
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, 4096 * n) ||
	    syscall(SYS_io_setup, n, &ctx) < 0) {
		perror("ioprio-probe: aio setup");
		return 2;
	}
	memset(cbs, 0, sizeof(cbs));
	for (i = 0; i < n; i++) {
		cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cbs[i].aio_fildes = fd;
		cbs[i].aio_buf = (unsigned long)(buf + 4096 * i);
		cbs[i].aio_nbytes = 4096;
		cbs[i].aio_offset = offsets[i];
		cbs[i].aio_flags = IOCB_FLAG_IOPRIO;
		/* aio_reqprio is signed: the level class (0x8000) is negative. */
		cbs[i].aio_reqprio = (__s16)values[i];
		list[i] = &cbs[i];
	}
	ret = syscall(SYS_io_submit, ctx, n, list);
	if (ret < 0)
		return result(-1, errno);
	if (ret != n) {
		printf("submitted %ld of %d\n", ret, n);
		return 1;
	}
	while (done < n) {
		ret = syscall(SYS_io_getevents, ctx, 1, n - done, events, NULL);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			perror("ioprio-probe: io_getevents");
			return 2;
		}
		for (i = 0; i < ret; i++)
			if (events[i].res < 0)
				return result(-1, -events[i].res);
		done += ret;
	}
	syscall(SYS_io_destroy, ctx);
	return result(0, 0);
}

static int do_aio_pairs(const char *path, int a, int b, int pairs)
{
	int values[64];
	long long offsets[64];
	int k;

	if (pairs < 1 || pairs > 32)
		usage();
	for (k = 0; k < pairs; k++) {
		values[2 * k] = a;
		offsets[2 * k] = (long long)k << 20;
		values[2 * k + 1] = b;
		offsets[2 * k + 1] = ((long long)k << 20) + 4096;
	}
	return do_aio(path, 2 * pairs, values, offsets);
}

static void *thread_get(void *arg)
{
	*(int *)arg = ioprio_get(IOPRIO_WHO_PROCESS, 0);
	return NULL;
}

/* The priority a new thread, child and grandchild start with. */
static int do_inherit(void)
{
	int fds[2], child = -1, grandchild = -1, thread = -1;
	pthread_t t;
	pid_t pid;

	if (pipe(fds))
		return 2;
	pid = fork();
	if (pid == 0) {
		int v[2] = { ioprio_get(IOPRIO_WHO_PROCESS, 0), -1 };
		pid_t gc = fork();

		if (gc == 0) {
			v[0] = ioprio_get(IOPRIO_WHO_PROCESS, 0);
			_exit(write(fds[1], &v[0], sizeof(v[0])) != sizeof(v[0]));
		}
		waitpid(gc, NULL, 0);
		if (read(fds[0], &v[1], sizeof(v[1])) != sizeof(v[1]))
			_exit(1);
		_exit(write(fds[1], v, sizeof(v)) != sizeof(v));
	}
	waitpid(pid, NULL, 0);
	{
		int v[2];

		if (read(fds[0], v, sizeof(v)) == sizeof(v)) {
			child = v[0];
			grandchild = v[1];
		}
	}
	if (pthread_create(&t, NULL, thread_get, &thread) == 0)
		pthread_join(t, NULL);
	printf("self 0x%x child 0x%x grandchild 0x%x thread 0x%x\n",
	       ioprio_get(IOPRIO_WHO_PROCESS, 0), child, grandchild, thread);
	return 0;
}

static int do_read(const char *path, const char *value, const char *offset)
{
	off_t off = offset ? number(offset) : 0;
	void *buf;
	int fd;

	if (value && strcmp(value, "-") &&
	    ioprio_set(IOPRIO_WHO_PROCESS, 0, number(value)) < 0)
		return result(-1, errno);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096) ||
	    pread(fd, buf, 4096, off) != 4096) {
		perror("ioprio-probe: read");
		return 1;
	}
	return 0;
}

static int do_as(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	uid_t uid = number(argv[0]);
	gid_t gid = number(argv[1]);
	int nice_cap = 0, i = 2;

	if (i < argc && !strcmp(argv[i], "sys_nice")) {
		nice_cap = 1;
		i++;
	}
	if (i >= argc || strcmp(argv[i], "--") || i + 1 >= argc)
		usage();
	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
	    setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		perror("ioprio-probe: as");
		return 2;
	}
	if (nice_cap) {
		data[0].permitted = data[0].effective =
			data[0].inheritable = 1U << CAP_SYS_NICE;
	}
	if (syscall(SYS_capset, &hdr, data) ||
	    (nice_cap && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_NICE, 0, 0))) {
		perror("ioprio-probe: capabilities");
		return 2;
	}
	execvp(argv[i + 1], argv + i + 1);
	perror("ioprio-probe: exec");
	return 127;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "set") && argc == 5) {
		ret = ioprio_set(which_of(argv[2]), number(argv[3]), number(argv[4]));
		return result(ret, errno);
	}
	if (!strcmp(argv[1], "get") && argc == 4) {
		ret = ioprio_get(which_of(argv[2]), number(argv[3]));
		if (ret < 0)
			return result(ret, errno);
		printf("0x%x\n", ret);
		return 0;
	}
	if (!strcmp(argv[1], "uring") && argc == 4)
		return do_uring(number(argv[2]), argv[3]);
	if (!strcmp(argv[1], "inherit") && argc == 2)
		return do_inherit();
	if (!strcmp(argv[1], "aio") && (argc == 4 || argc == 5)) {
		int value = number(argv[2]);
		long long offset = argc == 5 ? number(argv[4]) : 0;

		return do_aio(argv[3], 1, &value, &offset);
	}
	if (!strcmp(argv[1], "aio-pairs") && argc == 6)
		return do_aio_pairs(argv[2], number(argv[3]), number(argv[4]),
				    number(argv[5]));
	if (!strcmp(argv[1], "read") && argc >= 3 && argc <= 5)
		return do_read(argv[2], argc >= 4 ? argv[3] : NULL,
			       argc == 5 ? argv[4] : NULL);
	if (!strcmp(argv[1], "as") && argc >= 5)
		return do_as(argc - 2, argv + 2);
	usage();
	return 2;
}
