/* milp_fork.c -- a file written by a writer without a stop hook (GLPK's glp_write_lp and
 * glp_write_mps), stoppable all the same.
 *
 * The writer runs in a forked child into a temporary file next to the target and the child
 * _exit()s; the parent asks the caller's should-stop hook every few milliseconds while it waits
 * (waitpid with WNOHANG). A stop kills the child and removes the temporary file; a success
 * renames the temporary file over the target. The target is therefore whole or untouched. The
 * child calls the writer and the C library only (glibc and the BSD libcs make malloc and stdio
 * safe after a fork in a threaded process); it never returns into the caller's code. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "milp_internal.h"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define WPART_HAVE_FORK 1
#endif

#ifdef WPART_HAVE_FORK
/* What the child reports through its pipe (one write, below PIPE_BUF: atomic). */
typedef struct {
    int32_t st;
    char msg[1024];
} fork_report_t;

/* Waits for the child whatever signals arrive; its wait status, or -1. */
static int reap(pid_t pid)
{
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return ws;
}

/* A new empty file "<path>.<pid>.<k>.tmp" (mode: the existing target's, else 0666 less the
 * umask, as fopen gives); its name in tmp. 0, or an errno value. */
static int make_temp(const char *path, const struct stat *old, char *tmp, size_t size)
{
    for (int k = 0; k < 100; k++) {
        int n = snprintf(tmp, size, "%s.%ld.%d.tmp", path, (long)getpid(), k);
        if (n < 0 || (size_t)n >= size) return ENAMETOOLONG;
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0) {
            if (errno == EEXIST) continue;
            return errno;
        }
        if (old) (void)fchmod(fd, old->st_mode & 07777);
        close(fd);
        return 0;
    }
    return EEXIST;
}
#endif

wpart_status_t wpart_i_write_forked(const char *path, wpart_i_write_fn writer, void *arg,
                                    const wpart_control_t *control)
{
#ifndef WPART_HAVE_FORK
    (void)control;
    return writer(path, arg);
#else
    if (!control || !control->should_stop) return writer(path, arg);
    /* a new or regular target gets the temporary file; anything else (a link, a device, a
     * FIFO) is written in place by the child, still stoppable */
    struct stat old;
    int exists = lstat(path, &old) == 0;
    int in_place = exists && !S_ISREG(old.st_mode);
    char *tmp = NULL;
    if (!in_place) {
        size_t size = strlen(path) + 64;
        tmp = wpart_i_malloc((int64_t)size, 1);
        if (!tmp) return wpart_i_error(WPART_ENOMEM, "out of memory");
        int e = make_temp(path, exists ? &old : NULL, tmp, size);
        if (e) {
            free(tmp);
            return wpart_i_error(WPART_ESOLVER, "cannot write '%s': %s", path, strerror(e));
        }
    }
    const char *file = in_place ? path : tmp;
    wpart_status_t st = WPART_OK;
    int fds[2];
    pid_t pid = -1;
    if (pipe(fds) == 0) {
        (void)fcntl(fds[0], F_SETFD, FD_CLOEXEC);
        (void)fcntl(fds[1], F_SETFD, FD_CLOEXEC);
        pid = fork();
        if (pid < 0) {
            close(fds[0]);
            close(fds[1]);
        }
    }
    if (pid < 0) { /* no child (no memory for one): written here, not stoppable */
        st = writer(file, arg);
        if (st == WPART_OK && tmp && rename(tmp, path) != 0) {
            st = wpart_i_error(WPART_ESOLVER, "cannot write '%s': %s", path, strerror(errno));
        }
        goto done;
    }
    if (pid == 0) { /* the child: write, report, leave without the caller's exit handlers */
        struct sigaction sa;
        if (sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN) {
            signal(SIGINT, SIG_DFL); /* not the caller's handler; an ignored Ctrl-C stays so */
        }
        close(fds[0]);
        fork_report_t rep;
        memset(&rep, 0, sizeof rep);
        rep.st = (int32_t)writer(file, arg);
        if (rep.st != WPART_OK) snprintf(rep.msg, sizeof rep.msg, "%s", wpart_last_error());
        ssize_t w;
        do {
            w = write(fds[1], &rep, sizeof rep);
        } while (w < 0 && errno == EINTR);
        _exit(w == (ssize_t)sizeof rep ? 0 : 1);
    }
    close(fds[1]);
    int stopped = 0, ws = 0;
    const struct timespec nap = {0, 2000000}; /* 2 ms between two looks at the child */
    for (;;) {
        pid_t r = waitpid(pid, &ws, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) {
            ws = -1;
            break;
        }
        if (control->should_stop(control->ctx)) {
            stopped = 1;
            kill(pid, SIGKILL);
            ws = reap(pid);
            break;
        }
        nanosleep(&nap, NULL);
    }
    fork_report_t rep;
    memset(&rep, 0, sizeof rep);
    size_t got = 0;
    while (!stopped && got < sizeof rep) {
        ssize_t n = read(fds[0], (char *)&rep + got, sizeof rep - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fds[0]);
    int killed = ws != -1 && WIFSIGNALED(ws);
    if (stopped || (killed && WTERMSIG(ws) == SIGINT)) { /* a Ctrl-C reached the child too */
        st = wpart_i_error(WPART_ECANCELLED, "stopped while writing '%s'", path);
    } else if (got != sizeof rep) {
        st = wpart_i_error(WPART_ESOLVER, "cannot write '%s': the writing process %s %d", path,
                           killed ? "was killed by signal" : "ended with status",
                           killed ? WTERMSIG(ws)
                                  : (ws != -1 && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1));
    } else if (rep.st != WPART_OK) {
        rep.msg[sizeof rep.msg - 1] = '\0';
        st = wpart_i_error((wpart_status_t)rep.st, "%s", rep.msg);
    } else if (tmp && rename(tmp, path) != 0) {
        st = wpart_i_error(WPART_ESOLVER, "cannot write '%s': %s", path, strerror(errno));
    }
done:
    if (tmp && st != WPART_OK) unlink(tmp);
    free(tmp);
    return st;
#endif
}
